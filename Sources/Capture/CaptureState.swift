/// The kinds of `CaptureRecord.Body.state` the daemon writes and replay reads.
public enum CaptureState {
    /// The runtime started (`on = true`) or stopped: adverts and fixes count only in between.
    public static let running = "running"
    /// An event the daemon announced and queued as a sample: `kind` and its detail.
    public static let event = "event"
    /// A radio health report over `seconds`.
    public static let health = "health"
    /// A reconcile's conditions: the requirements `missing`, the `intent`
    /// and whether the session was `authorized`. Replay reconciles on them.
    public static let requirements = "requirements"
    /// The scan mode chosen or changed: `mode`.
    public static let scanMode = "scanMode"
    /// logind's PrepareForSleep: `sleep`, then `wake`.
    public static let sleep = "sleep"
    public static let wake = "wake"
    /// The capture was closed in order (a rotation or the daemon stopping).
    public static let end = "end"
}
