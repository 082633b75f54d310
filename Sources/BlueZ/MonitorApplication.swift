import DBus
import Radio
import Synchronization

/// What the scanner exports for passive scanning: an ObjectManager at
/// `root`, which bluetoothd reads when the root is registered with
/// `AdvertisementMonitorManager1.RegisterMonitor`, and under it one
/// `AdvertisementMonitor1` of type `or_patterns` per 7 patterns
/// (`MonitorPattern.perMonitor`).
///
/// No RSSI thresholds or timeouts are exported. BlueZ then calls
/// `DeviceFound` for every advert that matches and never `DeviceLost`, so a
/// device's presence is timed from its adverts by the same rules in every
/// scan mode. With thresholds, BlueZ reports a device once and decides
/// itself, on whole-second timers, when it is lost.
///
/// An advert that matches several monitors is reported to each, in the
/// monitors' order (`adv_monitor.c`, `btd_adv_monitor_notify_monitors`);
/// `DeviceFound` is handled on the connection's loop, in order with the
/// device's property changes, and says which monitor was called.
struct MonitorApplication: Sendable {
    /// A call from bluetoothd to one of the monitors.
    enum Call: Sendable, Equatable {
        /// The monitor is active: matching adverts will be reported.
        case activate
        /// The monitor was deactivated (unregistered, refused, or bluetoothd
        /// giving up on it).
        case release
        /// `monitor`: the index of the monitor called.
        case deviceFound(path: String, monitor: Int)
        case deviceLost(path: String)
    }

    let root: String
    let monitors: [[MonitorPattern]]

    private static let instances = Atomic<Int>(0)
    static let interface = "org.bluez.AdvertisementMonitor1"

    init(patterns: [MonitorPattern]) {
        let number = Self.instances.add(1, ordering: .relaxed).newValue
        root = "/io/waymark/scanner\(number)/monitors"
        let size = MonitorPattern.perMonitor
        monitors = stride(from: 0, to: patterns.count, by: size).map { Array(patterns[$0..<min($0 + size, patterns.count)]) }
    }

    func path(of monitor: Int) -> String { root + "/m\(monitor)" }

    /// Exports the root and the monitors; `handle` is called for each call bluetoothd makes.
    func export(on connection: DBusConnection, _ handle: @escaping @Sendable (Call) -> Void) throws(DBusError) {
        let managed = DBusValue.dictionary(key: "o", value: "a{sa{sv}}", monitors.indices.map { index in
            DBusDictEntry(.objectPath(path(of: index)), .dictionary(key: "s", value: "a{sv}", [
                DBusDictEntry(.string(Self.interface), properties(of: monitors[index])),
            ]))
        })
        try connection.export(DBusObject([
            DBusInterface("org.freedesktop.DBus.ObjectManager", methods: [
                DBusMethod("GetManagedObjects", output: "a{oa{sa{sv}}}") { _ in [managed] },
            ]),
        ]), at: root)
        for index in monitors.indices {
            let patterns = monitors[index]
            try connection.export(DBusObject([
                DBusInterface(Self.interface, methods: [
                    // On the loop, in order with the replies read with them:
                    // a Release that comes before UnregisterMonitor's answer is its.
                    DBusMethod("Activate", input: "") { _ in handle(.activate) },
                    DBusMethod("Release", input: "") { _ in handle(.release) },
                    DBusMethod("DeviceFound", input: "o") { call in
                        if let path = try? call.arguments().first?.string { handle(.deviceFound(path: path, monitor: index)) }
                    },
                    DBusMethod("DeviceLost", input: "o") { arguments in
                        if let path = arguments.first?.string { handle(.deviceLost(path: path)) }
                        return []
                    },
                ], properties: [
                    DBusProperty("Type", signature: "s") { .string("or_patterns") },
                    DBusProperty("Patterns", signature: "a(yyay)") { Self.patterns(patterns) },
                ]),
            ]), at: path(of: index))
        }
    }

    func unexport(from connection: DBusConnection) {
        for index in monitors.indices { connection.unexport(path: path(of: index)) }
        connection.unexport(path: root)
    }

    private func properties(of patterns: [MonitorPattern]) -> DBusValue {
        .vardict(["Type": .string("or_patterns"), "Patterns": Self.patterns(patterns)])
    }

    private static func patterns(_ patterns: [MonitorPattern]) -> DBusValue {
        .array(element: "(yyay)", patterns.map(\.value))
    }
}
