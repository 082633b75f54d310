import Advertisements
import BlueZ
import BluetoothKernel
import Cipher
import Foundation
import Pairings
import Radio
import Recording
import Testing
import Vocabulary

/// Resolvable private addresses: the Core specification's `ah()` and the
/// resolver that turns a device's changing addresses into its pairing.
struct PrivateAddressTests {
    static let specKey = IdentityResolvingKey(Advertisement.parseHex("ec0234a357c8ad05341010a60a397d9b")!)!

    @Test func theCoreSpecificationsAhSampleGivesItsHash() {
        // Vol 3, Part H, Appendix D: IRK ec0234a3…, prand 0x708194, ah 0x0dfbaa.
        #expect(Self.specKey.hash(0x708194) == 0x0DFBAA)
        #expect(Self.specKey.resolves(0x708194_0DFBAA))
        #expect(!Self.specKey.resolves(0x708194_0DFBAB))
    }

    /// RPAs made with `openssl enc -aes-128-ecb -nopad` from each key and
    /// prand (independently of the code under test).
    static let table: [(key: String, address: String)] = [
        ("ec0234a357c8ad05341010a60a397d9b", "40:00:00:45:0C:63"), ("ec0234a357c8ad05341010a60a397d9b", "5A:5A:5A:5E:E5:81"),
        ("ec0234a357c8ad05341010a60a397d9b", "7F:FF:FF:D5:9A:83"), ("ec0234a357c8ad05341010a60a397d9b", "6B:8E:21:E7:BD:D9"),
        ("000102030405060708090a0b0c0d0e0f", "40:00:00:6C:FA:E8"), ("000102030405060708090a0b0c0d0e0f", "5A:5A:5A:86:21:3F"),
        ("000102030405060708090a0b0c0d0e0f", "7F:FF:FF:D3:44:D8"), ("000102030405060708090a0b0c0d0e0f", "6B:8E:21:D6:7E:27"),
        ("ffeeddccbbaa99887766554433221100", "40:00:00:0E:00:56"), ("ffeeddccbbaa99887766554433221100", "5A:5A:5A:70:0F:28"),
        ("ffeeddccbbaa99887766554433221100", "7F:FF:FF:1B:A6:83"), ("ffeeddccbbaa99887766554433221100", "6B:8E:21:21:49:0B"),
    ]

    static func pairing(_ id: Int64, key: String, role: Pairing.Role = .vehicle) -> Pairing {
        let irk = IdentityResolvingKey(Advertisement.parseHex(key)!)!
        return Pairing(id: id, identity: .irk(fingerprint: irk.fingerprint), role: role, label: "phone \(id)", bindkey: key)
    }

    @Test func everyGeneratedAddressResolvesToItsOwnKeyAndNoOther() {
        let keys = Array(Set(Self.table.map(\.key))).sorted()
        let pairings = keys.enumerated().map { Self.pairing(Int64($0.offset), key: $0.element) }
        let resolver = PairedDevices(pairings).resolver
        for (key, address) in Self.table {
            let expected = pairings[keys.firstIndex(of: key)!].identity
            #expect(resolver.identity(of: BluetoothAddress(address, kind: .random)!) == expected, "\(address)")
        }
        // The same addresses from our own generator.
        for (index, key) in keys.enumerated() {
            let irk = IdentityResolvingKey(Advertisement.parseHex(key)!)!
            for random in [UInt32(0), 0x1A5A5A, 0x3FFFFF, 0x2B8E21] {
                let address = BluetoothAddress(value: irk.address(random: random)!, kind: .random)
                #expect(Self.table.contains { $0.key == key && $0.address == address.description } && resolver.identity(of: address) == pairings[index].identity)
            }
        }
    }

    @Test func aStrangersPrivateAddressCostsOneBlockPerKeyOnlyOnce() {
        let resolver = PairedDevices([Self.pairing(1, key: Self.table[0].key), Self.pairing(2, key: Self.table[4].key)]).resolver
        #expect(resolver.identity(of: "4A:00:00:12:34:56") == nil)
        #expect(resolver.blocksComputed == 2)
        #expect(resolver.identity(of: "4A:00:00:12:34:56") == nil)
        #expect(resolver.blocksComputed == 2)
        // Public and static random addresses (top bits not 01) are not looked at.
        #expect(resolver.identity(of: "C0:FF:EE:00:00:01") == nil && resolver.identity(of: "00:1A:7D:DA:71:13") == nil)
        #expect(resolver.blocksComputed == 2)
        #expect(resolver.identity(of: BluetoothAddress(Self.table[5].address, kind: .random)!) == Self.pairing(2, key: Self.table[4].key).identity)
    }

    @Test func aPairedPhoneIsTheVehicleAcrossAddressChangesAndAnotherPhoneIsNot() {
        let paired = PairedDevices([Self.pairing(1, key: Self.table[0].key)])
        func sighting(_ address: String) -> Sighting {
            Sighting(address: BluetoothAddress(address, kind: .random)!, rssi: -60, manufacturerData: [0x004C: [0x10, 0x05, 0x01]], uptimeNanoseconds: 0)
        }
        for address in Self.table.prefix(4).map(\.address) {
            guard case .vehicle(rssi: let rssi, at: _)? = paired.observation(sighting(address), at: { 1 }) else {
                Issue.record("\(address) not recognised")
                continue
            }
            #expect(rssi == -60)
        }
        #expect(paired.observation(sighting(Self.table[4].address), at: { 1 }) == nil)
    }

    @Test func theKeyIsNeverShown() throws {
        let pairing = Self.pairing(1, key: Self.table[0].key)
        #expect(!"\(Self.specKey)".contains("ec0234") && "\(Self.specKey)" == "IRK \(Self.specKey.fingerprint)")
        let json = String(decoding: try JSONEncoder().encode(pairing), as: UTF8.self)
        #expect(!json.contains(Self.table[0].key) && json.contains(#""has_irk":true"#) && json.contains(#""has_bindkey":false"#))
    }
}
