import Foundation
import PeerHarness

/// The PyPI decoders the bench compares against, in a venv of their own.
enum PythonPeers {
    static let packages = ["bthome-ble==3.25.0", "ruuvitag-ble==0.4.0", "ibeacon-ble==1.2.0", "beacontools==2.1.0"]
    nonisolated(unsafe) static var lastProblem = ""

    /// `.build/bench-venv`, created and filled on first use.
    static func environment() throws -> String {
        let venv = FileManager.default.currentDirectoryPath + "/.build/bench-venv"
        let python = venv + "/bin/python"
        if !FileManager.default.fileExists(atPath: python) {
            try run("/usr/bin/python3", ["-m", "venv", venv], package: "python3-venv")
        }
        let marker = venv + "/.installed"
        if !FileManager.default.fileExists(atPath: marker) {
            try run(venv + "/bin/pip", ["install", "-q"] + packages, package: "python3-venv")
            _ = FileManager.default.createFile(atPath: marker, contents: nil)
        }
        return venv
    }

    static func decodeRate(venv: String, format: String, file: String, in directory: TemporaryDirectory) throws -> Double {
        let process = try ChildProcess(venv + "/bin/python", [template("decode_peer.py"), format, file],
                                       aptPackage: "python3-venv", logPath: directory.file("peer-\(format).log"))
        guard try process.wait(timeout: 600) == 0, let rate = Double(process.output.split(separator: " ").first ?? "") else {
            lastProblem = "\(format) peer failed: \(process.output.suffix(300))"
            throw PeerError.startFailed("python decoder", output: process.output)
        }
        return rate
    }

    static func template(_ name: String) -> String {
        (BlueZMock.templatePath as NSString).deletingLastPathComponent + "/" + name
    }

    private static func run(_ program: String, _ arguments: [String], package: String) throws {
        let log = NSTemporaryDirectory() + "waymark-bench-setup.log"
        let process = try ChildProcess(program, arguments, aptPackage: package, logPath: log)
        guard try process.wait(timeout: 900) == 0 else {
            lastProblem = "\(program) \(arguments.first ?? ""): \(process.output.suffix(300))"
            throw PeerError.startFailed(program, output: process.output)
        }
    }
}
