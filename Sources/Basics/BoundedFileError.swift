internal import Glibc

/// Why `BoundedFile.read` gave no bytes.
public enum BoundedFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotOpen(errno: Int32)
    case cannotRead(errno: Int32)
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let number), .cannotRead(let number): "cannot read the file: \(String(cString: strerror(number)))"
        case .tooLarge(let limit): "the file is over \(limit) bytes"
        }
    }
}
