public import Foundation

/// The `waymark` executable built next to the test binary.
public enum WaymarkBinary {
    public static var path: String {
        get throws { try named("waymark") }
    }

    /// An executable of this package, built next to the test binary.
    public static func named(_ name: String) throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw PeerError.startFailed(name, output: "no \(name) binary next to \(directory.path); run `swift build` first")
    }

    /// Runs `waymark` to completion and returns its exit code and output.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory, timeout: TimeInterval = 30
    ) throws -> (status: Int32, output: String) {
        let process = try start(arguments, environment: environment, in: directory)
        let status = try process.wait(timeout: timeout)
        return (status, process.output)
    }

    /// Starts `waymark`; its output goes to a log in `directory`.
    public static func start(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory) throws -> ChildProcess {
        try ChildProcess(try path, arguments, aptPackage: "(built by swift build)", environment: environment,
                         logPath: directory.file("waymark-\(UUID().uuidString).log"))
    }
}
