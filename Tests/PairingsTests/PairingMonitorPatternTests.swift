import Advertisements
import BlueZ
import Foundation
import Pairings
import Radio
import Testing
import Vocabulary

/// A paired device's passive-scan pattern matches its own adverts, as
/// bluetoothd matches them: the pattern's bytes at its offset in the data
/// of an AD structure of its type.
struct PairingMonitorPatternTests {
    /// An AD structure: its type and its data (after the type byte).
    struct Structure: Sendable, CustomStringConvertible {
        var type: UInt8
        var data: [UInt8]
        var description: String { String(format: "%02x:", type) + data.map { String(format: "%02x", $0) }.joined() }

        /// Manufacturer data (company id little-endian first) or 16-bit service data.
        init(_ type: UInt8, _ hex: String) {
            self.type = type
            self.data = Advertisement.parseHex(hex)!
        }

        var identity: DeviceIdentity? {
            type == 0xFF
                ? AdvertisementDecoder.decode(companyID: UInt16(data[0]) | UInt16(data[1]) << 8, Array(data.dropFirst(2))).identity
                : AdvertisementDecoder.decode(serviceUUID: BluetoothUUID(short: UInt16(data[1]) << 8 | UInt16(data[0])), Array(data.dropFirst(2))).identity
        }

        func matches(_ pattern: MonitorPattern) -> Bool {
            let start = Int(pattern.offset)
            return pattern.adType == type && data.count >= start + pattern.content.count
                && Array(data[start..<start + pattern.content.count]) == pattern.content
        }
    }

    // From the shared advertisement vectors: iBeacon, AltBeacon, Eddystone-UID and Ruuvi.
    static let adverts = [
        Structure(0xFF, "4c000215426c7565436861726d426561636f6e730efe1355c5"),
        Structure(0xFF, "4c000215e2c56db5dffb48d2b060d0f5a71096e000640000c5"),
        Structure(0xFF, "ffffbeacd3162f5af3ee494799db09756062d0fc005a0005c400"),
        Structure(0x16, "aafe00939e5d61e66621da7ca6300ed145673a890000"),
        Structure(0x16, "aafe00e3123456789012346789010000000000010000"),
        Structure(0xFF, "99040512fc5394c37c0004fffc040cac364200cdcbb8334c884f"),
    ]

    @Test(arguments: adverts)
    func aPairedDevicesPatternMatchesItsOwnAdvertAndNotOneWithAnotherIdentity(_ advert: Structure) throws {
        let identity = try #require(advert.identity)
        let pattern = try #require(Pairing(id: 1, identity: identity, role: .vehicle, label: "car", bindkey: nil).monitorPattern)
        #expect(advert.matches(pattern))
        // Every byte of a beacon's identity is in its pattern: changing any one
        // of them gives another identity, which the pattern does not match.
        if case .ruuvi = identity { return }
        for index in Int(pattern.offset)..<Int(pattern.offset) + pattern.content.count {
            var other = advert
            other.data[index] ^= 0x01
            #expect(!other.matches(pattern) && other.identity != identity, "byte \(index)")
        }
    }

    @Test func aBTHomePairingWatchesForBTHomeServiceData() throws {
        let pattern = try #require(Pairing(id: 1, identity: .btHome(mac: "A4:C1:38:00:00:01"), role: .sensor, label: "fridge", bindkey: nil).monitorPattern)
        #expect(Structure(0x16, "d2fc4002ca0903bf13").matches(pattern))
        #expect(!Structure(0x16, "aafe00939e5d").matches(pattern))
    }

    @Test func anAddressPairingWidensTheScanToEverything() {
        let address = Pairing(id: 1, identity: .address("C0:FF:EE:00:00:01"), role: .vehicle, label: "car", bindkey: nil)
        #expect(address.monitorPattern == nil)
        #expect(Pairing(id: 2, identity: .iBeacon(uuid: "not-hex", major: 1, minor: 2), role: .vehicle, label: "car", bindkey: nil).monitorPattern == nil)
    }
}
