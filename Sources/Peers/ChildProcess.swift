public import Foundation

/// A peer program started by a test, stopped by PID. Its stdout and stderr go
/// to a log file next to its other state, for reading after a failure.
///
/// Started with `posix_spawn` and an empty signal mask: the test runner's
/// threads block most signals, and a child inheriting that mask would ignore
/// the SIGTERM that tests use to stop it.
public final class ChildProcess: @unchecked Sendable {
    public let program: String
    public let logPath: String
    public let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var peakKiB: Int?

    /// Starts `executable` (an absolute path, or a name looked up on PATH). A
    /// program that is not installed throws `missingProgram` naming `aptPackage`.
    public init(
        _ executable: String, _ arguments: [String], aptPackage: String,
        environment: [String: String] = [:], logPath: String, stdin: Pipe? = nil, stdout: Pipe? = nil
    ) throws {
        program = executable
        self.logPath = logPath
        let path = try Self.locate(executable, aptPackage: aptPackage)
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw PeerError.startFailed(executable, output: "cannot open \(logPath)") }
        defer { close(log) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin.fileHandleForReading.fileDescriptor, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout?.fileHandleForWriting.fileDescriptor ?? log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw PeerError.startFailed(executable, output: String(cString: strerror(rc))) }
        pid = child
        try? stdout?.fileHandleForWriting.close()
        try? stdin?.fileHandleForReading.close()
    }

    deinit { stop() }

    /// Writes `bytes` to a child's stdin pipe and (unless told not to)
    /// closes it. A child that
    /// exited without reading must fail its own test, not kill the test
    /// process with SIGPIPE, so that signal is ignored and errors dropped.
    public static func feed(_ pipe: Pipe, _ bytes: Data, close: Bool = true) {
        _ = ignoreBrokenPipes
        let fd = pipe.fileHandleForWriting.fileDescriptor
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { break }
            offset += written
        }
        if close { try? pipe.fileHandleForWriting.close() }
    }

    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    public var isRunning: Bool { status(wait: false) == nil }

    /// Sends `signal` to the process while it runs.
    public func kill(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil { Glibc.kill(pid, signal) }
    }

    /// Sends `signal` to the process group the child leads: the child and
    /// any helpers it started (gpsfake's gpsd, for one).
    public func killGroup(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil { Glibc.kill(-pid, signal) }
    }

    /// SIGTERM, then SIGKILL after `grace`, to the whole group; reaps the process.
    public func stop(grace: TimeInterval = 3) {
        guard isRunning else {
            Glibc.kill(-pid, SIGKILL)
            return
        }
        killGroup(SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning && Date() < deadline { usleep(2_000) }
        killGroup(SIGKILL)
        _ = status(wait: true)
    }

    /// Waits for the process to exit and returns its exit code (128 + signal
    /// number when a signal ended it).
    public func wait(timeout: TimeInterval) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = status(wait: false) { return status }
            guard Date() < deadline else { throw PeerError.timedOut("\(program) to exit") }
            usleep(2_000)
        }
    }

    /// The most memory the process had resident (`ru_maxrss`, KiB), once it has exited.
    public var maxResidentKiB: Int? {
        lock.lock()
        defer { lock.unlock() }
        return peakKiB
    }

    /// What the process wrote so far.
    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    private func status(wait: Bool) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &raw, wait ? 0 : WNOHANG, &usage) == pid else { return nil }
        peakKiB = usage.ru_maxrss
        let signal = raw & 0x7f
        exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return exitStatus
    }

    public static func locate(_ executable: String, aptPackage: String) throws -> String {
        if executable.hasPrefix("/") {
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw PeerError.missingProgram(executable, aptPackage: aptPackage)
            }
            return executable
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = directory + "/" + executable
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw PeerError.missingProgram(executable, aptPackage: aptPackage)
    }
}
