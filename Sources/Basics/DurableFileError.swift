internal import Glibc

/// Why `DurableFile` could not write a file; the file at the path is as it was.
public enum DurableFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case exists(path: String)
    /// Something other than a regular file is at the path (a device, a
    /// FIFO, a socket, a directory or a symbolic link): never replaced.
    case notRegular(path: String, kind: String)
    case system(path: String, operation: String, errno: Int32)

    /// Whether the file could be created but its bytes not written or synced
    /// (sysexits' 74, where a file that cannot be made is 73).
    public var isWriteFailure: Bool {
        if case .system(_, let operation, _) = self { return operation == "write" || operation == "sync" }
        return false
    }

    public var description: String {
        switch self {
        case .exists(let path): "\(path) exists"
        case .notRegular(let path, let kind): "\(path) is \(kind), not a regular file; only a regular file is ever replaced"
        case .system(let path, let operation, let code): "\(path): cannot \(operation) it: \(String(cString: strerror(code)))"
        }
    }
}
