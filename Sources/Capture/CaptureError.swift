/// Why a capture cannot be written or read on.
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be created, opened or written.
    case file(path: String, operation: String, errno: Int32, message: String)
    /// Not a capture at all (no magic at the start).
    case notACapture(path: String)
    /// Written by a newer waymark, in a format this one does not read.
    case newerFormat(path: String, format: UInt16, supported: UInt16)
    /// A record that does not decode; the reader stops before it.
    case malformed(String)

    public var description: String {
        switch self {
        case .file(let path, let operation, _, let message): "\(path): cannot \(operation): \(message)"
        case .notACapture(let path): "\(path): not a waymark capture (no WMCAP header in a gzip stream)"
        case .newerFormat(let path, let format, let supported):
            "\(path): capture format \(format) is newer than this waymark reads (up to \(supported)); replay it with a newer waymark"
        case .malformed(let reason): reason
        }
    }
}
