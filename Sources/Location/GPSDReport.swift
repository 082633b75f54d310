/// One line of gpsd's JSON protocol, reduced to what the gateway uses.
///
/// Decoding is lenient the way a field client must be: a key that is missing,
/// of the wrong type or out of range is treated as absent; only a line that is
/// not a JSON object with a `class` is refused.
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
        /// Not JSON, not an object, or without a string `class`.
        case notAReport
    }
}
