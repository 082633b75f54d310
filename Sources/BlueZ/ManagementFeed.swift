import BluetoothKernel
internal import Dispatch
import Radio
import Synchronization
import Vocabulary

/// Adverts read from the kernel's management channel for the scanner's
/// adapter, turned into sightings on the channel's own queue (no task hop
/// per advert), the way D-Bus updates are on the D-Bus connection's loop.
final class ManagementFeed: Sendable {
    private let socket: ManagementSocket
    private let table: DeviceTable
    private let tick: @Sendable () -> UInt64
    private let deliver: @Sendable (Sighting) -> Bool
    /// The adapter followed, and the names made for its devices.
    private let followed = Mutex(Followed())
    private let malformedCount = Mutex(0)
    /// The last advert handled, to know its echo (see `Echo`).
    private let last = Mutex<Echo?>(nil)

    /// While a client discovers (`scan --radio`, `bluetoothctl scan on`) and
    /// a monitor matches a device (where the controller matches monitors
    /// itself, Microsoft's extension), the kernel reports the device's first
    /// advert twice, one event after the other: as `DEVICE_FOUND`, which
    /// discovery gets for every advert, and as the monitor's
    /// `ADV_MONITOR_DEVICE_FOUND` (`mgmt_adv_monitor_device_found` in
    /// `net/bluetooth/mgmt.c`). The second is an echo, no advert of its own.
    private struct Echo {
        var controller: UInt16
        var address: UInt64
        var addressType: UInt8
        var rssi: Int8
        var data: Int
        var monitor: Bool

        init(_ found: FoundAdvert) {
            (controller, address, addressType, rssi, monitor) = (found.controller, found.address, found.addressType, found.rssi, found.monitorHandle != nil)
            var hasher = Hasher()
            hasher.combine(bytes: found.data)
            data = hasher.finalize()
        }

        /// The same advert, reported as the other kind of event.
        func echoes(_ other: Echo) -> Bool {
            monitor != other.monitor && controller == other.controller && address == other.address && addressType == other.addressType
                && rssi == other.rssi && data == other.data
        }
    }

    private struct Followed {
        /// The controller index and object path; nil drops everything.
        var adapter: (index: UInt16, path: String)?
        /// Address text and object path per address, made once: every
        /// advert would otherwise build both strings again. Emptied when the
        /// adapter changes or when it grows large.
        /// By address and type (the type above the 48 bits).
        var names: [UInt64: (address: BluetoothAddress, path: String)] = [:]
    }

    private static let queue = DispatchQueue(label: "waymark.bluetooth.management")

    init(socket: ManagementSocket, table: DeviceTable, tick: @escaping @Sendable () -> UInt64, deliver: @escaping @Sendable (Sighting) -> Bool) {
        self.socket = socket
        self.table = table
        self.tick = tick
        self.deliver = deliver
    }

    /// Starts reading; `failed` is called once if the channel stops working.
    func start(failed: @escaping @Sendable (Int32) -> Void) {
        socket.start(queue: Self.queue, onAdvert: { [self] advert in
            handle(advert)
        }, onEvent: { _, _ in }, onMalformed: { [self] _ in
            malformedCount.withLock { $0 += 1 }
        }, onFailure: failed)
    }

    func cancel() { socket.cancel() }

    /// Events that were not well-formed (counted, never fatal).
    var malformed: Int { malformedCount.withLock { $0 } }

    /// Follows the adapter at `path` (`/org/bluez/hci1` is index 1); nil drops everything.
    func follow(adapterPath path: String?) {
        let index = path.flatMap { AdapterName(path: $0).controllerIndex }
        followed.withLock { $0 = Followed(adapter: index.map { ($0, path!) }) }
    }

    private func handle(_ found: FoundAdvert) {
        let echo = Echo(found)
        let repeated = last.withLock { last in
            let repeated = last?.echoes(echo) == true
            // An echo pairs with the one advert before it; the next event starts afresh.
            last = repeated ? nil : echo
            return repeated
        }
        guard !repeated else { return }
        let names = followed.withLock { followed -> (address: BluetoothAddress, path: String)? in
            guard let adapter = followed.adapter, adapter.index == found.controller else { return nil }
            let key = found.address | UInt64(found.addressType) << 48
            if let known = followed.names[key] { return known }
            if followed.names.count >= 4096 { followed.names.removeAll(keepingCapacity: true) }
            let kind = found.addressTypeText.flatMap(BluetoothAddress.Kind.init(rawValue:))
            let made = (BluetoothAddress(value: found.address, kind: kind), adapter.path + "/" + found.objectPathComponent)
            followed.names[key] = made
            return made
        }
        guard let names, let paired = table.seen(names.path, at: tick(), shedStrangers: socket.isBehind) else { return }
        let data = AdvertisingData(found.data)
        let interesting = deliver(Sighting(
            address: names.address, rssi: found.rssi == 127 ? nil : Int(found.rssi),
            txPower: data.txPower, name: data.name, manufacturerData: data.manufacturerData, serviceData: data.serviceData,
            paired: paired, uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds))
        table.judge(names.path, interesting: interesting)
    }
}
