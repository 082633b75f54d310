import Bluetooth
internal import Dispatch
import Synchronization

/// Adverts read from the kernel's management channel for the scanner's
/// adapter, turned into sightings on the channel's own queue (no task hop
/// per advert), the way D-Bus updates are on the D-Bus queue.
final class ManagementFeed: Sendable {
    private let socket: ManagementSocket
    private let table: DeviceTable
    private let tick: @Sendable () -> UInt64
    private let deliver: @Sendable (Sighting) -> Void
    /// The adapter followed: its controller index and object path.
    private let adapter = Mutex<(index: UInt16, path: String)?>(nil)
    private let malformedCount = Mutex(0)
    /// Address text and object path per address, made once: every advert
    /// would otherwise build both strings again. Filled on the channel's
    /// queue; emptied when the adapter changes (from the scanner's actor,
    /// hence the lock) or when it grows large.
    private let names = Mutex<[UInt64: (address: String, path: String)]>([:])
    private static let queue = DispatchQueue(label: "waymark.bluetooth.management")

    init(socket: ManagementSocket, table: DeviceTable, tick: @escaping @Sendable () -> UInt64, deliver: @escaping @Sendable (Sighting) -> Void) {
        self.socket = socket
        self.table = table
        self.tick = tick
        self.deliver = deliver
    }

    /// Starts reading; `failed` is called once if the channel stops working.
    func start(failed: @escaping @Sendable (Int32) -> Void) {
        socket.start(queue: Self.queue, onEvent: { [self] index, event in
            switch event {
            case .deviceFound(let found), .monitorDeviceFound(_, let found): handle(found, index: index)
            case .commandReply, .other: break
            }
        }, onMalformed: { [self] _ in
            malformedCount.withLock { $0 += 1 }
        }, onFailure: failed)
    }

    func cancel() { socket.cancel() }

    /// Events that were not well-formed (counted, never fatal).
    var malformed: Int { malformedCount.withLock { $0 } }

    /// Follows the adapter at `path` (`/org/bluez/hci1` is index 1); nil drops everything.
    func follow(adapterPath path: String?) {
        let index = path.flatMap { $0.split(separator: "/").last }.flatMap { $0.hasPrefix("hci") ? UInt16($0.dropFirst(3)) : nil }
        adapter.withLock { $0 = index.map { ($0, path!) } }
        names.withLock { $0.removeAll() }
    }

    private func handle(_ found: DeviceFound, index: UInt16) {
        guard let adapter = adapter.withLock({ $0 }), adapter.index == index else { return }
        let (address, path) = names.withLock { names in
            if let known = names[found.address] { return known }
            if names.count >= 4096 { names.removeAll(keepingCapacity: true) }
            let made = (found.addressText, adapter.path + "/" + found.objectPathComponent)
            names[found.address] = made
            return made
        }
        let now = tick()
        guard let paired = table.seen(path, at: now) else { return }
        let data = AdvertisingData(found.data)
        deliver(Sighting(
            address: address, addressType: found.addressTypeText, rssi: found.rssi == 127 ? nil : Int(found.rssi),
            txPower: data.txPower, name: data.name, manufacturerData: data.manufacturerData, serviceData: data.serviceData,
            paired: paired, uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds))
    }
}
