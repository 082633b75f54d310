/// What a device-login poll learnt, for progress output.
public enum DevicePoll: Sendable, Equatable {
    /// The user has not approved yet.
    case pending
    /// The provider asked to poll less often; the new interval in seconds.
    case slowDown(interval: Int)
}
