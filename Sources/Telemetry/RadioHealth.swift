/// How the gateway's radio did over one health interval: what the fleet
/// sees before trips go missing. Recorded as a `radio_health` sample every
/// `[Bluetooth] HealthInterval`, whether or not a trip is open.
public struct RadioHealth: Sendable, Equatable, Codable {
    /// Adverts heard with one adapter in one scan mode.
    public struct Reception: Sendable, Equatable, Codable {
        /// `hci0`.
        public var adapter: String
        /// `passive`, `active` or `mgmt`.
        public var mode: String
        public var adverts: Int
        /// Over the whole interval, one decimal.
        public var advertsPerMinute: Double

        enum CodingKeys: String, CodingKey { case adapter, mode, adverts, advertsPerMinute = "adverts_per_minute" }

        public init(adapter: String, mode: String, adverts: Int, advertsPerMinute: Double) {
            (self.adapter, self.mode, self.adverts, self.advertsPerMinute) = (adapter, mode, adverts, advertsPerMinute)
        }
    }

    /// A paired device in the interval.
    public struct Paired: Sendable, Equatable, Codable {
        public var identity: String
        public var role: String
        public var seen: Bool
        /// dBm; nil when unseen or no RSSI was given.
        public var strongestRSSI: Int?

        enum CodingKeys: String, CodingKey { case identity, role, seen, strongestRSSI = "strongest_rssi" }

        public init(identity: String, role: String, seen: Bool, strongestRSSI: Int?) {
            (self.identity, self.role, self.seen, self.strongestRSSI) = (identity, role, seen, strongestRSSI)
        }
    }

    /// Seconds the report covers.
    public var intervalSeconds: Int
    /// Empty while nothing was scanning.
    public var scanning: [Reception]
    /// Times scanning was started again other than at start: by the
    /// watchdog, after bluetoothd or the adapter returned, or because BlueZ
    /// stopped it. Discovery cycles are not counted.
    public var discoveryRestarts: Int
    /// Recovery steps taken (`restart-discovery`, `power-cycle`), in order.
    public var ladderSteps: [String]
    /// Adverts of strangers (devices of no pairing's, many times in a row)
    /// shed unread while the scanner's reader was behind a burst, so that
    /// paired devices' updates queued behind them were reached sooner.
    public var strangersShed: Int
    public var paired: [Paired]

    enum CodingKeys: String, CodingKey {
        case intervalSeconds = "interval_s", scanning, discoveryRestarts = "discovery_restarts", ladderSteps = "ladder_steps"
        case strangersShed = "strangers_shed", paired
    }

    public init(intervalSeconds: Int, scanning: [Reception], discoveryRestarts: Int, ladderSteps: [String], strangersShed: Int = 0, paired: [Paired]) {
        self.intervalSeconds = intervalSeconds
        self.scanning = scanning
        self.discoveryRestarts = discoveryRestarts
        self.ladderSteps = ladderSteps
        self.strangersShed = strangersShed
        self.paired = paired
    }
}
