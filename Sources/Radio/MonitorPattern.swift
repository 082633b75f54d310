/// One pattern of an `or_patterns` advertisement monitor: `content` found at
/// `offset` in the data of an AD structure of type `adType` (offset 0 is the
/// first byte after the type). BlueZ accepts 1 to 31 bytes ending within 31.
public struct MonitorPattern: Sendable, Hashable {
    public let adType: UInt8
    public let offset: UInt8
    public let content: [UInt8]

    /// Nil for a pattern BlueZ would refuse.
    public init?(adType: UInt8, offset: UInt8 = 0, content: [UInt8]) {
        guard !content.isEmpty, Int(offset) + content.count <= 31 else { return nil }
        self.adType = adType
        self.offset = offset
        self.content = content
    }

    package static let flags: UInt8 = 0x01
    package static let serviceData16: UInt8 = 0x16
    package static let manufacturerData: UInt8 = 0xFF

    /// What `scan` and `pair` watch for, and what an address pairing needs:
    /// every advert with a Flags structure (each of the 32 values its five
    /// defined bits can take), and every advert of the formats Waymark
    /// decodes, which beacons often send without flags. A pattern cannot
    /// match "any content", so an advert with neither is not seen in
    /// passive mode.
    public static let catchAll: [MonitorPattern] =
        (0..<32).compactMap { MonitorPattern(adType: flags, content: [UInt8($0)]) } + [
            MonitorPattern(adType: manufacturerData, content: [0x4C, 0x00, 0x02, 0x15]),  // iBeacon
            MonitorPattern(adType: manufacturerData, offset: 2, content: [0xBE, 0xAC]),  // AltBeacon, any company
            MonitorPattern(adType: manufacturerData, content: [0x99, 0x04]),  // Ruuvi
            MonitorPattern(adType: serviceData16, content: [0xAA, 0xFE]),  // Eddystone
            MonitorPattern(adType: serviceData16, content: [0xD2, 0xFC]),  // BTHome
        ].compactMap { $0 }

    /// What the monitor watches for in mgmt mode, where the adverts come on
    /// the management channel and the monitor is there only to keep the
    /// kernel scanning with the duplicate filter off: 31 bytes of
    /// manufacturer data, where a legacy advert has room for 29 (the
    /// company id and 27 more). bluetoothd then parses each advert, matches
    /// it against nothing, and creates no device and sends no signal for it.
    public static let nothing = MonitorPattern(adType: manufacturerData, content: [0xFF, 0xFF] + Array("waymark: adverts come on mgmt".utf8))!

    /// Patterns per monitor object. The kernel takes 16, but bluetoothd
    /// (5.66, and master as of late 2026) sizes its Add Adv Patterns Monitor
    /// command in a `uint8_t`: 1 + 34 bytes per pattern, which wraps at 8
    /// patterns and overflows its heap (seen in the VM: bluetoothd aborts
    /// with "free(): invalid next size"). Seven fit.
    package static let perMonitor = 7
}
