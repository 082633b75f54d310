/// `GET /v1/settings`: settings and policy pushed by the fleet, and commands.
/// Unknown settings are ignored; missing ones keep the local config's value.
public struct RemoteSettings: Sendable, Equatable, Codable {
    public var gapThreshold: Double?
    public var uploadBatchSize: Int?
    public var scanWatchdog: Double?
    public var deviceExpiry: Double?
    public var commands: [Command]

    public struct Command: Sendable, Equatable, Codable {
        public var id: String
        public var type: Kind

        public enum Kind: String, Sendable, Equatable, Codable {
            /// Delete tokens and every local record.
            case wipe
            /// Keep data; stop recording until the next login.
            case lock
        }
    }

    enum CodingKeys: String, CodingKey { case settings, commands }
    enum SettingKeys: String, CodingKey, Hashable {
        case gapThreshold = "gap_threshold_s", uploadBatchSize = "upload_batch_size"
        case scanWatchdog = "scan_watchdog_s", deviceExpiry = "device_expiry_s"
    }

    public init(gapThreshold: Double? = nil, uploadBatchSize: Int? = nil, scanWatchdog: Double? = nil, deviceExpiry: Double? = nil,
                commands: [Command] = []) {
        self.gapThreshold = gapThreshold
        self.uploadBatchSize = uploadBatchSize
        self.scanWatchdog = scanWatchdog
        self.deviceExpiry = deviceExpiry
        self.commands = commands
    }

    /// Settings present but refused for being out of range, not numbers, or
    /// not finite; the local config's value stands. Not stored, not compared.
    public private(set) var ignored: [String] = []

    /// What each setting may be; anything else from the fleet is ignored.
    static let ranges: [SettingKeys: ClosedRange<Double>] = [
        .gapThreshold: 1...604_800, .uploadBatchSize: 1...100_000, .scanWatchdog: 1...86_400, .deviceExpiry: 1...604_800,
    ]

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        let settings = try? keys.nestedContainer(keyedBy: SettingKeys.self, forKey: .settings)
        var ignored: [String] = []
        func inRange(_ key: SettingKeys) -> Double? {
            guard let settings, settings.contains(key) else { return nil }
            guard let value = try? settings.decode(Double.self, forKey: key), value.isFinite, Self.ranges[key]?.contains(value) == true else {
                ignored.append(key.rawValue)
                return nil
            }
            return value
        }
        gapThreshold = inRange(.gapThreshold)
        uploadBatchSize = inRange(.uploadBatchSize).map { Int($0.rounded()) }
        scanWatchdog = inRange(.scanWatchdog)
        deviceExpiry = inRange(.deviceExpiry)
        self.ignored = ignored
        // A command of a kind this version does not know is skipped, not fatal.
        var list: [Command] = []
        if var items = try? keys.nestedUnkeyedContainer(forKey: .commands) {
            while !items.isAtEnd {
                if let command = try? items.decode(Command.self) { list.append(command) } else { _ = try? items.decode(Skip.self) }
            }
        }
        commands = list
    }

    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        var settings = keys.nestedContainer(keyedBy: SettingKeys.self, forKey: .settings)
        try settings.encodeIfPresent(gapThreshold, forKey: .gapThreshold)
        try settings.encodeIfPresent(uploadBatchSize, forKey: .uploadBatchSize)
        try settings.encodeIfPresent(scanWatchdog, forKey: .scanWatchdog)
        try settings.encodeIfPresent(deviceExpiry, forKey: .deviceExpiry)
        try keys.encode(commands, forKey: .commands)
    }

    public static func == (lhs: RemoteSettings, rhs: RemoteSettings) -> Bool {
        lhs.gapThreshold == rhs.gapThreshold && lhs.uploadBatchSize == rhs.uploadBatchSize && lhs.scanWatchdog == rhs.scanWatchdog
            && lhs.deviceExpiry == rhs.deviceExpiry && lhs.commands == rhs.commands
    }

    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
