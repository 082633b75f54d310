internal import Glibc

/// Why `DurableFile` could not write a file; the file at the path is as it was.
public enum DurableFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case exists(path: String)
    case system(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .exists(let path): "\(path) exists"
        case .system(let path, let operation, let code): "\(path): cannot \(operation) it: \(String(cString: strerror(code)))"
        }
    }
}
