import Foundation

/// Headless Chromium from Debian (`chromium`), as a browser opening a file:
/// the DOM after the page's scripts ran, what the page logged to the
/// console, and a screenshot. Run as root, so without its sandbox. It
/// reaches no host but this one: every other name fails to resolve at once,
/// as on a machine offline.
public enum Chromium {
    public static let aptPackage = "chromium"

    /// A page as the browser left it.
    public struct Page: Sendable {
        /// The serialized DOM after load.
        public var dom: String
        /// Console messages and uncaught errors, one per line.
        public var console: [String]
    }

    static func arguments(_ directory: TemporaryDirectory, _ name: String) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(directory.file("chromium-\(name)"))",
         "--enable-logging=stderr", "--v=0", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
         // Time enough for the page's images (map tiles) to come in before the DOM or the picture is taken.
         "--virtual-time-budget=5000"]
    }

    /// Loads `file` and returns its DOM and console.
    public static func load(_ file: String, directory: TemporaryDirectory) throws -> Page {
        let process = try ChildProcess("chromium", arguments(directory, "dom") + ["--dump-dom", URL(fileURLWithPath: file).absoluteString],
                                       aptPackage: aptPackage, logPath: directory.file("chromium-dom.log"))
        guard try process.wait(timeout: 90) == 0 else { throw PeerError.startFailed("chromium --dump-dom", output: process.output) }
        let output = process.output
        guard let start = output.range(of: "<html"), let end = output.range(of: "</html>", options: .backwards) else {
            throw PeerError.startFailed("chromium --dump-dom printed no document", output: output)
        }
        let console = output.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
        return Page(dom: String(output[start.lowerBound..<end.upperBound]), console: console)
    }

    /// Renders `file` in a `width`×`height` window to a PNG at `png`.
    public static func screenshot(_ file: String, to png: String, width: Int, height: Int, directory: TemporaryDirectory) throws {
        let process = try ChildProcess("chromium", arguments(directory, "shot") + ["--hide-scrollbars", "--window-size=\(width),\(height)",
                                       "--screenshot=\(png)", URL(fileURLWithPath: file).absoluteString],
                                       aptPackage: aptPackage, logPath: directory.file("chromium-shot.log"))
        guard try process.wait(timeout: 90) == 0, FileManager.default.fileExists(atPath: png) else {
            throw PeerError.startFailed("chromium --screenshot", output: process.output)
        }
    }
}
