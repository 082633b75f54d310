public import Radio

/// One thing the gateway heard or did, as a capture keeps it.
public struct CaptureRecord: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// A sighting as the scanner delivered it, and the adapter that heard it.
        case advert(adapter: String, Sighting)
        /// A line from the location source, exactly as received.
        case location(LocationLine)
        /// A state change: the runtime starting or stopping, an announced
        /// event, a health report, sleep and wake.
        case state(CaptureState)
    }

    /// When, on the boot clock (seconds): replay's timeline.
    public var boot: Double
    /// The wall clock then (seconds since 1970), and whether the kernel
    /// called it synchronized.
    public var wall: Double
    public var synchronized: Bool
    public var body: Body

    public init(boot: Double, wall: Double, synchronized: Bool, body: Body) {
        (self.boot, self.wall, self.synchronized, self.body) = (boot, wall, synchronized, body)
    }
}
