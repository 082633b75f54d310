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
    case temporaryFailure = 75
    case noPermission = 77
    case config = 78
}

/// Thrown where a helper has already reported a problem and only the exit code is left.
extension ExitCode: Error {}
