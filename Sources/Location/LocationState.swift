/// What the location source can give right now.
public enum LocationState: String, Sendable, Equatable, Codable {
    /// gpsd (or the serial device) cannot be reached.
    case unreachable
    /// gpsd answers but has no active receiver, or the receiver went silent.
    case noDevice = "no-device"
    /// The receiver reports, but without a 2D or 3D fix.
    case noFix = "no-fix"
    case fix
}
