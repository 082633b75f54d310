/// An advertisement monitor added to the kernel through the management
/// channel (`MGMT_OP_ADD_ADV_PATTERNS_MONITOR`), as bluetoothd adds one for
/// each monitor registered over D-Bus, where bluetoothd offers none (BlueZ
/// keeps its monitor API behind `--experimental`). While a controller has
/// any monitor, the kernel scans it passively with the duplicate filter
/// off, and, where the controller does not match patterns itself (no
/// Microsoft extension), sends every advert on the channel as
/// `MGMT_EV_ADV_MONITOR_DEVICE_FOUND` with handle 0, whatever the patterns.
///
/// The kernel ties a monitor to the controller, not to the socket that
/// added it: it outlives the process (and bluetoothd's restarts, and power
/// cycles) until removed or the controller goes away. `KernelMonitorRecord`
/// keeps the handles for a process that died without removing them.
public struct KernelMonitor: Sendable, Hashable, CustomStringConvertible {
    public let controller: UInt16
    public let handle: UInt16

    /// One pattern: `content` at `offset` in the data of an AD structure of type `adType`.
    public struct Pattern: Sendable, Hashable {
        public let adType: UInt8
        public let offset: UInt8
        public let content: [UInt8]

        public init(adType: UInt8, offset: UInt8, content: [UInt8]) {
            (self.adType, self.offset, self.content) = (adType, offset, content)
        }
    }

    static let readFeaturesOpcode: UInt16 = 0x0051
    static let addOpcode: UInt16 = 0x0052
    static let removeOpcode: UInt16 = 0x0053
    /// `MGMT_ADV_MONITOR_FEATURE_MASK_OR_PATTERNS`: the controller matches the patterns itself.
    static let controllerMatchesPatterns: UInt32 = 1

    public init(controller: UInt16, handle: UInt16) {
        (self.controller, self.handle) = (controller, handle)
    }

    public var description: String { "monitor \(handle) on hci\(controller)" }

    /// The command's parameters: the pattern count, then per pattern its AD
    /// type, offset, length and 31 bytes of value (`doc/mgmt-api.txt`).
    /// Nil for what the kernel would refuse: no pattern, more than 255, or
    /// one that is empty or ends past 31 bytes.
    static func parameters(_ patterns: [Pattern]) -> [UInt8]? {
        guard !patterns.isEmpty, patterns.count <= 255 else { return nil }
        var bytes: [UInt8] = [UInt8(patterns.count)]
        for pattern in patterns {
            guard !pattern.content.isEmpty, Int(pattern.offset) + pattern.content.count <= 31 else { return nil }
            bytes += [pattern.adType, pattern.offset, UInt8(pattern.content.count)]
            bytes += pattern.content + [UInt8](repeating: 0, count: 31 - pattern.content.count)
        }
        return bytes
    }

    /// Adds a monitor of `patterns` to controller `hciN`. Refused where the
    /// controller matches patterns itself: a monitor of patterns that match
    /// nothing would then hide every advert rather than show them all.
    public static func add(controller: UInt16, patterns: [Pattern], timeout: Duration = .seconds(5)) async throws(ManagementSocketError) -> KernelMonitor {
        guard let parameters = parameters(patterns) else { throw .unsuitable("the monitor's patterns are not ones the kernel takes") }
        return try await ManagementSocket.onControlChannel { channel throws(ManagementSocketError) in
            let features = try channel.request(readFeaturesOpcode, controller: controller, parameters: [], timeout: timeout)
            guard features.count >= 4 else { throw .unsuitable("the kernel's monitor features are \(features.count) bytes, not 4 or more") }
            let supported = features.withUnsafeBytes { $0.littleEndian(UInt32.self, at: 0) }
            if supported & controllerMatchesPatterns != 0 { throw .unsuitable("hci\(controller) matches monitors' patterns itself") }
            let returned = try channel.request(addOpcode, controller: controller, parameters: parameters, timeout: timeout)
            guard returned.count >= 2 else { throw .unsuitable("the kernel's reply names no monitor handle") }
            return KernelMonitor(controller: controller, handle: returned.withUnsafeBytes { $0.littleEndian(UInt16.self, at: 0) })
        }
    }

    /// Removes the monitor. Never handle 0, which the kernel reads as "all of them".
    public func remove(timeout: Duration = .seconds(5)) async throws(ManagementSocketError) {
        guard handle != 0 else { return }
        let (controller, handle) = (controller, handle)
        _ = try await ManagementSocket.onControlChannel { channel throws(ManagementSocketError) in
            try channel.request(Self.removeOpcode, controller: controller, parameters: withUnsafeBytes(of: handle.littleEndian, Array.init), timeout: timeout)
        }
    }
}
