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
    enum SettingKeys: String, CodingKey {
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

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        let settings = try? keys.nestedContainer(keyedBy: SettingKeys.self, forKey: .settings)
        func positive(_ key: SettingKeys) -> Double? {
            (try? settings?.decodeIfPresent(Double.self, forKey: key)).flatMap { $0 }.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        }
        gapThreshold = positive(.gapThreshold)
        uploadBatchSize = positive(.uploadBatchSize).map { Int($0) }
        scanWatchdog = positive(.scanWatchdog)
        deviceExpiry = positive(.deviceExpiry)
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

    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
