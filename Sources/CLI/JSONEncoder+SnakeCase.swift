package import FoundationEssentials
import Logging
import Store

extension JSONEncoder {
    /// Sorted keys in snake case: what every `--json` prints.
    package static var snakeCase: JSONEncoder {
        let encoder = sorted
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }
}

extension JSONEncoder {
    /// Prints `value` as one line of JSON. A value that cannot be encoded
    /// (a number JSON has no form for) is an error on standard error, never
    /// an empty line that reads as success.
    package func printLine(_ value: some Encodable) {
        do {
            print(String(decoding: try encode(value), as: UTF8.self))
        } catch {
            Log.error("cannot write the answer as JSON: \(error)")
        }
    }
}
