package import DBus

/// Why a command got no answer from the daemon: not running is one reason
/// among four, and each has its own fix.
package enum DaemonUnreachable: Error, Equatable, Sendable, CustomStringConvertible {
    /// No system bus to ask on.
    case noSystemBus(String)
    /// Nothing owns `io.waymark.Gateway1`.
    case notRunning
    /// The bus's policy refuses this user the call.
    case refused(String)
    /// The daemon owns its name but did not answer in time.
    case noAnswer(String)
    /// Any other error reply.
    case failed(String)

    /// What a call's error says about the daemon.
    package init(_ error: DBusError) {
        switch error.name {
        case .serviceUnknown?, .nameHasNoOwner?: self = .notRunning
        case .accessDenied?: self = .refused(error.description)
        case .noReply?, .timeout?: self = .noAnswer(error.description)
        default: self = .failed(error.description)
        }
    }

    package var description: String {
        switch self {
        case .noSystemBus(let why): "no system bus, so no daemon to ask (\(why))"
        case .notRunning: "not running (no waymark on the system bus): systemctl status waymark"
        case .refused(let why): "running, but it refuses this user (\(why)): run as root or as a member of the waymark group"
        case .noAnswer(let why): "running, but it did not answer in time (\(why)): journalctl -u waymark"
        case .failed(let why): "running, but its answer is an error: \(why)"
        }
    }
}
