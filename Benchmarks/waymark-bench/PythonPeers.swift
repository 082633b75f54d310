import Foundation
import Peers

/// The PyPI decoders the bench compares against, in a venv of their own.
enum PythonPeers {
    static let packages = ["bthome-ble==3.25.0", "ruuvitag-ble==0.4.0", "ibeacon-ble==1.2.0", "beacontools==2.1.0", "pynmea2==1.19.0",
                                  "dbus-fast==5.2.0", "paho-mqtt==1.6.1"]
    nonisolated(unsafe) static var lastProblem = ""

    /// `.build/bench-venv`, created and filled on first use.
    static func environment() throws -> String {
        let venv = FileManager.default.currentDirectoryPath + "/.build/bench-venv"
        let python = venv + "/bin/python"
        if !FileManager.default.fileExists(atPath: python) {
            try run("/usr/bin/python3", ["-m", "venv", venv], package: "python3-venv")
        }
        // The marker holds the package list, so adding a peer reinstalls.
        let marker = venv + "/.installed"
        let wanted = packages.joined(separator: "\n")
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != wanted {
            try run(venv + "/bin/pip", ["install", "-q"] + packages, package: "python3-venv")
            try wanted.write(toFile: marker, atomically: true, encoding: .utf8)
        }
        return venv
    }

    /// Lines per second a peer script parses from `file`.
    static func rate(python: String, script: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> Double {
        let process = try ChildProcess(python, [template(script)] + arguments,
                                       aptPackage: "python3-venv", logPath: directory.file("peer-\(script)-\(arguments[0]).log"))
        guard try process.wait(timeout: 600) == 0, let rate = Double(process.output.split(separator: " ").first ?? "") else {
            lastProblem = "\(script) \(arguments[0]) failed: \(process.output.suffix(300))"
            throw PeerError.startFailed("python \(script)", output: process.output)
        }
        return rate
    }

    static func template(_ name: String) -> String {
        PeerTemplates.path(name)
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
