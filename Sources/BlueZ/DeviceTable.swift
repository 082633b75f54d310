import DBus
import Radio
import Synchronization

/// The devices the scanner tracks, bounded, behind a lock: updated on the
/// D-Bus connection's loop for every advert (no task hop), read by the
/// scanner's actor.
final class DeviceTable: Sendable {
    private struct State {
        var devices: [String: DeviceRecord] = [:]
        /// When the last advert arrived, in the scanner's ticks.
        var lastAdvert: UInt64 = 0
        /// `/org/bluez/hci0/`: devices of other adapters are another scan's.
        var prefix: String?
    }

    private let state = Mutex(State())
    let capacity: Int
    /// Told of each advert shed (see `update`).
    let onShed: @Sendable () -> Void

    init(capacity: Int, onShed: @escaping @Sendable () -> Void = {}) {
        self.capacity = capacity
        self.onShed = onShed
    }

    var count: Int { state.withLock { $0.devices.count } }

    /// Tracks only the devices under the adapter at `path` from now on (none for nil).
    func follow(adapter path: String?) {
        state.withLock { state in
            state.prefix = path.map { $0 + "/" }
            state.devices = state.devices.filter { state.prefix.map($0.key.hasPrefix) ?? false }
        }
    }
    var lastAdvert: UInt64 { state.withLock { $0.lastAdvert } }

    /// Applies Device1 properties (`a{sv}` entries) for `path` and returns
    /// the device as a sighting. `owedOnly`: under a monitor, where only a
    /// sighting owed to a `found` advert is made.
    @discardableResult
    func update(
        _ path: String, with properties: [DBusDictEntry], at tick: UInt64, advert: Bool = true, owedOnly: Bool = false, shedStrangers: Bool = false
    ) -> Sighting? {
        update(path, at: tick, shedStrangers: shedStrangers) { record in
            record.apply(properties)
            return owedOnly ? record.pays(advert: advert) : advert
        }
    }

    /// The same, reading the properties in place from a message. Nil when
    /// the change carried no advert data (see `DeviceRecord.apply`): the
    /// change is kept, but it is not a sighting.
    func update(
        _ path: String, with properties: inout DBusArgumentReader, at tick: UInt64, owedOnly: Bool = false, shedStrangers: Bool = false
    ) -> Sighting? {
        update(path, at: tick, shedStrangers: shedStrangers) { record in
            let advert = record.apply(&properties)
            return owedOnly ? record.pays(advert: advert) : advert
        }
    }

    /// An advert from `path` that arrived another way (the management
    /// channel): only the time is recorded. Returns whether the device is
    /// paired, or nil for a path that names no device, or for a stranger's
    /// advert shed because the channel's reader is behind (`shedStrangers`).
    func seen(_ path: String, at tick: UInt64, shedStrangers: Bool = false) -> Bool? {
        let (paired, shed): (Bool?, Bool) = state.withLock { state in
            guard let index = Self.index(of: path, in: &state, capacity: capacity, tick: tick) else { return (nil, false) }
            state.lastAdvert = tick
            if shedStrangers, state.devices.values[index].isStranger { return (nil, true) }
            // One access in place, without copying the record out: this runs for every advert.
            return (Self.touch(&state.devices.values[index], at: tick), false)
        }
        if shed { onShed() }
        return paired
    }

    private static func touch(_ record: inout DeviceRecord, at tick: UInt64) -> Bool {
        record.lastSeen = tick
        return record.paired
    }

    /// A device bluetoothd reported to `monitor` as matching it: an advert.
    /// Its data comes after the call, as a Device1 property change (gdbus
    /// sends changes once bluetoothd's loop is idle), so the advert is owed
    /// a sighting: the change that follows pays it, with the new data; if
    /// none follows (nothing changed), the next advert pays it, with the
    /// data as it stands. One sighting per advert either way, however many
    /// monitors it matched.
    func found(_ path: String, monitor: Int, at tick: UInt64, shedStrangers: Bool = false) -> Sighting? {
        let (sighting, shed): (Sighting?, Bool) = state.withLock { state in
            guard let index = Self.index(of: path, in: &state, capacity: capacity, tick: tick) else { return (nil, false) }
            let (advert, pays) = state.devices.values[index].found(by: monitor)
            guard advert else { return (nil, false) }
            state.devices.values[index].lastSeen = tick
            state.lastAdvert = tick
            guard pays else { return (nil, false) }
            if shedStrangers, state.devices.values[index].isStranger { return (nil, true) }
            return (state.devices.values[index].sighting(), false)
        }
        if shed { onShed() }
        return sighting
    }

    /// Applies `change`, which says whether it was an advert; only an advert
    /// moves the device's and the table's times and returns a sighting,
    /// made in place without copying the record out.
    ///
    /// `shedStrangers`: the reader is behind. A stranger's update is then
    /// not read at all: counted as shed, and as an advert for the watchdog,
    /// so that paired devices' updates, queued behind it, are reached sooner.
    private func update(_ path: String, at tick: UInt64, shedStrangers: Bool = false, _ change: (inout DeviceRecord) -> Bool) -> Sighting? {
        let (sighting, shed): (Sighting?, Bool) = state.withLock { state in
            guard let index = Self.index(of: path, in: &state, capacity: capacity, tick: tick) else { return (nil, false) }
            if shedStrangers, state.devices.values[index].isStranger {
                state.lastAdvert = tick
                return (nil, true)
            }
            // Updated in place: no copy of the record.
            guard change(&state.devices.values[index]) else { return (nil, false) }
            state.devices.values[index].lastSeen = tick
            state.lastAdvert = tick
            return (state.devices.values[index].sighting(), false)
        }
        if shed { onShed() }
        return sighting
    }

    /// What the consumer made of `path`'s sighting: of interest (a
    /// pairing's) or not.
    func judge(_ path: String, interesting: Bool) {
        state.withLock { state in
            guard let index = state.devices.index(forKey: path) else { return }
            state.devices.values[index].judged(interesting: interesting)
        }
    }

    /// Where `path`'s record is, made first if it is new (nil for a path
    /// that names no device of the followed adapter); one hash lookup for a
    /// known device.
    private static func index(
        of path: String, in state: inout State, capacity: Int, tick: UInt64
    ) -> Dictionary<String, DeviceRecord>.Index? {
        if let index = state.devices.index(forKey: path) { return index }
        guard let prefix = state.prefix, path.hasPrefix(prefix), let address = DeviceRecord.address(fromPath: path) else { return nil }
        if state.devices.count >= capacity { evict(&state.devices, capacity) }
        state.devices[path] = DeviceRecord(address: address, lastSeen: tick)
        return state.devices.index(forKey: path)
    }

    func remove(_ path: String) {
        state.withLock { _ = $0.devices.removeValue(forKey: path) }
    }

    /// Forgets every device under an adapter that went away.
    func removeAll(under adapter: String) {
        state.withLock { $0.devices = $0.devices.filter { !$0.key.hasPrefix(adapter + "/") } }
    }

    /// Removes and returns unpaired devices not seen for `age` ticks.
    func expire(olderThan age: UInt64, now: UInt64) -> [String] {
        state.withLock { state in
            let stale = state.devices.filter { !$0.value.paired && now &- $0.value.lastSeen >= age }.map(\.key)
            for path in stale { state.devices[path] = nil }
            return stale
        }
    }


    /// When full, the longest-unseen tenth of the unpaired devices goes at
    /// once, so eviction is rare.
    private static func evict(_ devices: inout [String: DeviceRecord], _ capacity: Int) {
        let victims = devices.filter { !$0.value.paired }.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(max(1, capacity / 10))
        for (path, _) in victims { devices[path] = nil }
    }
}
