@testable import BlueZ
import DBus
import Radio
import Synchronization
import Testing

/// The scanner's device table, as the D-Bus handlers drive it: one sighting
/// per advert under monitors, and strangers shed while the reader is behind.
struct DeviceTableTests {
    static let adapter = "/org/bluez/hci0"
    static let beacon = adapter + "/dev_C0_FF_EE_00_00_01"

    final class Shed: Sendable {
        let count = Mutex(0)
    }

    static func table(shed: Shed? = nil) -> DeviceTable {
        let table = DeviceTable(capacity: 100) { shed?.count.withLock { $0 += 1 } }
        table.follow(adapter: adapter)
        return table
    }

    static func advert(rssi: Int16, data: [UInt8] = [0x02, 0x15]) -> [DBusDictEntry] {
        [DBusDictEntry(.string("RSSI"), .variant(.int16(rssi))),
         DBusDictEntry(.string("ManufacturerData"), .variant(.dictionary(key: "q", value: "v", [DBusDictEntry(.uint16(0x004C), .variant(.bytes(data)))])))]
    }

    /// bluetoothd calls every monitor an advert matches, in their order, and
    /// sends the advert's new data after the calls: each advert is one
    /// sighting, carrying its own data, however many monitors it matched.
    @Test func anAdvertReportedToSeveralMonitorsThenChangedIsOneSightingWithItsNewData() {
        let table = Self.table()
        var sightings: [Int?] = []
        func heard(_ sighting: Sighting?) { if let sighting { sightings.append(sighting.rssi) } }
        for (advert, rssi) in [(1, -50), (2, -61), (3, -70)] {
            heard(table.found(Self.beacon, monitor: 0, at: UInt64(advert)))
            heard(table.found(Self.beacon, monitor: 4, at: UInt64(advert)))
            heard(table.update(Self.beacon, with: Self.advert(rssi: Int16(rssi)), at: UInt64(advert), owedOnly: true))
        }
        #expect(sightings == [-50, -61, -70])
    }

    /// An advert bluetoothd has nothing new for comes as `DeviceFound`
    /// alone: it is owed its sighting, which the next advert pays, with the
    /// data as it stands.
    @Test func anUnchangedAdvertIsPaidByTheNextOne() {
        let table = Self.table()
        #expect(table.found(Self.beacon, monitor: 2, at: 1) == nil)
        #expect(table.update(Self.beacon, with: Self.advert(rssi: -50), at: 1, owedOnly: true)?.rssi == -50)
        #expect(table.found(Self.beacon, monitor: 2, at: 2) == nil, "owed to this advert")
        #expect(table.found(Self.beacon, monitor: 2, at: 3)?.rssi == -50, "paid by the next")
        #expect(table.found(Self.beacon, monitor: 5, at: 3) == nil, "the same advert, at a later monitor")
        // A change without a DeviceFound before it (a discovery stop's) is no sighting under monitors.
        #expect(table.update(Self.beacon, with: Self.advert(rssi: -52), at: 4, owedOnly: true)?.rssi == -52, "pays the advert of tick 3")
        #expect(table.update(Self.beacon, with: Self.advert(rssi: -53), at: 4, owedOnly: true) == nil)
    }

    /// A device found of no interest eight times in a row is a stranger: its
    /// updates are shed unread while the reader is behind, and read again
    /// once it caught up. One of interest, or paired in BlueZ, never is.
    @Test func aStrangerIsShedOnlyWhileTheReaderIsBehindAndNeverADeviceOfInterest() {
        let shed = Shed()
        let table = Self.table(shed: shed)
        let (stranger, tag, bonded) = (Self.adapter + "/dev_11_11_11_11_11_11", Self.adapter + "/dev_22_22_22_22_22_22", Self.adapter + "/dev_33_33_33_33_33_33")
        table.update(bonded, with: [DBusDictEntry(.string("Paired"), .variant(.bool(true)))], at: 0, advert: false)
        for tick in 1...8 as ClosedRange<UInt64> {
            for path in [stranger, tag, bonded] {
                #expect(table.update(path, with: Self.advert(rssi: -60), at: tick, shedStrangers: true) != nil, "tick \(tick): not yet a stranger")
                // The tag takes turns between a frame of interest and one of none.
                table.judge(path, interesting: path == tag && tick.isMultiple(of: 2))
            }
        }
        #expect(table.update(stranger, with: Self.advert(rssi: -60), at: 9, shedStrangers: true) == nil)
        #expect(table.lastAdvert == 9, "a shed advert is still an advert to the watchdog")
        #expect(table.found(stranger, monitor: 0, at: 10, shedStrangers: true) == nil)
        #expect(shed.count.withLock { $0 } == 1, "a DeviceFound owes, it does not deliver, so only the update was shed")
        #expect(table.update(tag, with: Self.advert(rssi: -60), at: 9, shedStrangers: true) != nil)
        #expect(table.update(bonded, with: Self.advert(rssi: -60), at: 9, shedStrangers: true) != nil)
        #expect(table.update(stranger, with: Self.advert(rssi: -60), at: 11) != nil, "caught up: read again")
        table.judge(stranger, interesting: true)
        #expect(table.update(stranger, with: Self.advert(rssi: -60), at: 12, shedStrangers: true) != nil, "of interest once: no longer a stranger")
    }

    /// On the management channel, a stranger's event is shed before its
    /// advertising data is read while the channel's reader is behind.
    @Test func aStrangersManagementEventIsShedWhileTheChannelIsBehind() {
        let shed = Shed()
        let table = Self.table(shed: shed)
        let stranger = Self.adapter + "/dev_11_11_11_11_11_11"
        for tick in 1...8 as ClosedRange<UInt64> {
            #expect(table.seen(stranger, at: tick, shedStrangers: true) == false)
            table.judge(stranger, interesting: false)
        }
        #expect(table.seen(stranger, at: 9, shedStrangers: true) == nil)
        #expect(shed.count.withLock { $0 } == 1 && table.lastAdvert == 9)
        #expect(table.seen(stranger, at: 10) == false, "caught up: read again")
    }
}
