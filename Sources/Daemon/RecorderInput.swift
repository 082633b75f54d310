import Telemetry
import Recording

/// What the recorder's loop takes, one at a time, in the order the capture
/// holds it: so the live recording and its replay decide alike, however
/// late a task ran.
enum RecorderInput: Sendable {
    /// A paired device's sighting or a fix.
    case observed(Observation)
    /// A radio health report taken at `at` (the boot clock).
    case health(RadioHealth, at: Double)
}
