import Foundation

/// A standalone `gpsd`, reading a pseudo-terminal the test writes NMEA into,
/// so the test decides what the receiver says and when, and can kill and
/// restart gpsd while the "receiver" stays put.
public final class GPSDaemon: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    public let controlSocket: String

    public init(device: String?, port: Int? = nil, directory: TemporaryDirectory) throws {
        self.port = try port ?? FreePort.tcp()
        controlSocket = directory.file("gpsd-\(self.port).sock")
        process = try ChildProcess(
            "gpsd", ["-N", "-n", "-b", "-S", String(self.port), "-F", controlSocket] + (device.map { [$0] } ?? []),
            aptPackage: "gpsd", logPath: directory.file("gpsd-\(self.port).log"))
        try FreePort.waitForListener(port: self.port, process: process)
    }

    deinit { stop() }

    public func stop() { process.stop() }
}
