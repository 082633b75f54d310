import Foundation

/// gpsd fed by `gpsfake` replaying a receiver log once, on a private port.
///
/// gpsfake starts feeding as soon as gpsd is up, which races a client that
/// connects afterwards. So a text log runs single-stepped (`-l -i`: one
/// prompt per sentence on stdin), and `release()` lets it play once the
/// client is watching and gpsd reports the device open. gpsfake 3.22's line
/// dump fails on binary packets, so a log holding UBX runs in pipe mode
/// (`-p`) instead, where gpsfake watches first and waits 1.4 s before
/// feeding: the client connects well inside that.
/// `-n` makes gpsd read the device without waiting for a client, and `-W`
/// bounds gpsfake's wait at the end.
///
/// gpsfake names gpsd's control socket after its own PID, in `TMPDIR`, and
/// takes an existing file there as gpsd being ready. A gpsd killed before it
/// removed its socket leaves one behind; a later gpsfake given the same PID
/// then adds its device before gpsd listens, the add is lost without a word,
/// and the client never sees the device. So each gpsfake gets the test's own
/// fresh directory as `TMPDIR`.
public final class GPSFake: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    private let prompts = Pipe()
    private let sentences: Int

    /// `once: false` keeps gpsd up after the log's end, for `play(every:)`.
    public init(log: String, directory: TemporaryDirectory, cycle: Double = 0.001, once: Bool = true) throws {
        port = try FreePort.tcp()
        let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: log))) ?? Data())
        sentences = bytes.count { $0 == UInt8(ascii: "\n") }
        let binary = zip(bytes, bytes.dropFirst()).contains { $0 == 0xB5 && $1 == 0x62 }
        process = try ChildProcess(
            "gpsfake", (once ? ["-1"] : []) + ["-n", "-q", binary ? "-p" : "-l", binary ? "-q" : "-i", "-c", String(cycle), "-W", "3", "-P", String(port), log],
            aptPackage: "gpsd-clients (gpsfake) and gpsd",
            // Unbuffered, so that its log shows each prompt as it is made.
            environment: ["PYTHONUNBUFFERED": "1", "TMPDIR": directory.path], logPath: directory.file("gpsfake-\(port).log"), stdin: prompts)
        try FreePort.waitForListener(port: port, process: process)
    }

    deinit { stop() }

    /// Answers every prompt: the log plays at the configured cycle.
    public func release() {
        ChildProcess.feed(prompts, Data(repeating: UInt8(ascii: "\n"), count: sentences + 16), close: false)
    }

    /// Plays a text log once, one sentence per `interval`, and returns at its
    /// end with gpsd still up (unless started `once`), as a receiver that
    /// stopped talking would leave it. gpsfake prompts "line N: …?" before it
    /// sends line N; a second prompt for line 1 means the log has wrapped.
    /// `burst` sentences at a time, as a receiver sends a fix's sentences
    /// together at the top of each second; paced by deadlines, so a log of
    /// one fix a second plays at its own speed.
    public func play(every interval: Duration, burst: Int = 1) async throws {
        let clock = ContinuousClock()
        var next = clock.now
        var fed = 0
        while true {
            let output = process.output
            if output.contains("# EOF?") || output.components(separatedBy: ": line 1: ").count > 2 { return }
            guard process.isRunning else { throw PeerError.startFailed("gpsfake", output: output) }
            ChildProcess.feed(prompts, Data(repeating: UInt8(ascii: "\n"), count: max(1, burst)), close: false)
            fed += max(1, burst)
            // The last line is let through: the receiver has said all it will.
            if fed >= sentences { return }
            next = next.advanced(by: interval)
            try await clock.sleep(until: next)
        }
    }

    public func stop() { process.stop() }
}
