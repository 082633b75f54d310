/// Why bytes from the management channel are not a well-formed event.
public enum ManagementEventError: Error, Equatable, CustomStringConvertible {
    case truncatedHeader(length: Int)
    /// Longer than the reader's slot for one event.
    case tooLong(limit: Int)
    /// The header's parameter length disagrees with the bytes read.
    case lengthMismatch(code: UInt16, declared: Int, actual: Int)
    case truncatedParameters(code: UInt16, length: Int)
    /// The advertising-data length disagrees with the bytes that follow.
    case advertisingDataMismatch(declared: Int, actual: Int)

    public var description: String {
        switch self {
        case .truncatedHeader(let length): "management event of \(length) bytes, shorter than its 6-byte header"
        case .tooLong(let limit): "management event longer than \(limit) bytes"
        case .lengthMismatch(let code, let declared, let actual):
            "management event 0x\(String(code, radix: 16)) declares \(declared) parameter bytes but carries \(actual)"
        case .truncatedParameters(let code, let length):
            "management event 0x\(String(code, radix: 16)) has only \(length) parameter bytes"
        case .advertisingDataMismatch(let declared, let actual):
            "device-found event declares \(declared) bytes of advertising data but carries \(actual)"
        }
    }
}
