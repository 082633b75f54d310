import Foundation

/// A fresh directory under /tmp, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ prefix: String = "waymark-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw PeerError.startFailed("mkdtemp", output: String(cString: strerror(errno)))
        }
        path = String(cString: made)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
