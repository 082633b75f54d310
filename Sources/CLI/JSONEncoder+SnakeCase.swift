package import FoundationEssentials
import Store

extension JSONEncoder {
    /// Sorted keys in snake case: what every `--json` prints.
    package static var snakeCase: JSONEncoder {
        let encoder = sorted
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}
