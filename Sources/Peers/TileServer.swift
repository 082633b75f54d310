import Foundation

/// Map tiles for the report's tests (`Templates/tile_server.py`), in place
/// of OpenStreetMap's: one light green tile for every z, x and y.
public final class TileServer: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    /// The URL template `waymark report --tiles` takes.
    public var template: String { "http://127.0.0.1:\(port)/{z}/{x}/{y}.png" }

    public init(directory: TemporaryDirectory) throws {
        port = try FreePort.tcp()
        process = try ChildProcess("/usr/bin/python3", [PeerTemplates.path("tile_server.py"), String(port)],
                                   aptPackage: "python3", logPath: directory.file("tiles-\(port).log"))
        try FreePort.waitForListener(port: port, process: process)
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Tiles served so far, by the server's log of requests.
    public var served: Int { process.output.components(separatedBy: ".png HTTP/1.1\" 200").count - 1 }
}
