/// Process exit codes, from sysexits(3).
public enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    /// `waymark health`'s verdicts, one per first problem: the daemon, the
    /// store, the session, the radio, the queue.
    case unhealthyDaemon = 10, unhealthyStore = 11, unhealthySession = 12, unhealthyRadio = 13, unhealthyQueue = 14
    case usage = 64
    case dataError = 65
    case unavailable = 69
    case software = 70
    case cannotCreate = 73
    case ioError = 74
    case noPermission = 77
    case config = 78
}

extension ExitCode {
    /// What each code means, as the README's table and the man page give it
    /// (the one source of both; a test holds the README to it).
    public static let documented: [(codes: String, meaning: String)] = [
        ("0", "success"),
        ("1", "a check failed (`doctor`, `config --require-backend`, `mqtt test`)"),
        ("10–14", "`health`: unhealthy, by first problem (see [Health, for fleet updates](fleet.md#health-for-fleet-updates))"),
        ("64", "usage error (unknown command or option)"),
        ("65", "bad input data (a payload or key that is not hex, an unknown pairing id)"),
        ("69", "Bluetooth unavailable for `scan` / `pair` (the message names the missing requirement)"),
        ("73 / 74", "the store cannot be created / read or written (74 also: standard output or an `--out` file cannot be written, `gps --nmea` cannot read its file)"),
        ("70", "internal error: `run` stopped on a failure it could not recover from"),
        ("77", "no permission for the data directory"),
        ("78", "configuration error, or a store from a newer Waymark that this one may not use"),
    ]
}

/// Thrown where a helper has already reported a problem and only the exit code is left.
extension ExitCode: Error {}
