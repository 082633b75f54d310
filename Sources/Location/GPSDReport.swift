public import Telemetry
/// One line of gpsd's JSON protocol, reduced to what the gateway uses.
///
/// Decoded by `GPSDDecoder`: a key that is missing, of the wrong type or out
/// of range is treated as absent; only a line that is not a report is refused.
public enum GPSDReport: Sendable, Equatable {
    case version(release: String)
    /// The devices gpsd knows; only active ones are listed.
    case devices([String])
    /// A device was activated or, with `activated: 0`, deactivated (unplugged).
    case device(path: String, active: Bool)
    case watch
    case tpv(Fix, device: String?)
    /// Satellites used in the solution and seen.
    case sky(used: Int?, seen: Int?)
    case error(message: String)
    /// A class this client does not use (GST, ATT, IMU, PPS, TOFF, …).
    case other(class: String)

    public enum Problem: Error, Sendable, Equatable {
        /// Does not start `{"class":"…"`, as every gpsd report does.
        case notAReport
    }
}
