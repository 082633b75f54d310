import Advertisements
import BlueZ
import Config
import DBus
import Foundation
import Pairings
import PeerHarness
import Radio
import Store
import Testing
import Vocabulary

/// `decode`, `scan`, `pair`, `beacons` and `unpair`, run as the real binary.
@Suite(.serialized)
struct BluetoothCommandTests {
    static let ibeaconHex = "0215e2c56db5dffb48d2b060d0f5a71096e000640000c5"
    static let ibeaconIdentity = "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0"

    @Test func decodePrintsStableJSON() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let ibeacon = try WaymarkBinary.run(["decode", "--manufacturer-data", "0x004C:" + Self.ibeaconHex, "--json"], in: work)
        #expect(ibeacon.status == 0)
        #expect(ibeacon.output == #"{"format":"ibeacon","identity":"ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0","major":100,"measured_power_dbm":-59,"minor":0,"uuid":"e2c56db5-dffb-48d2-b060-d0f5a71096e0"}"# + "\n")

        let ruuvi = try WaymarkBinary.run(["decode", "--manufacturer-data", "0x0499:058000ffffffff800080008000ffffffffffffffffffffff", "--json"], in: work)
        #expect(ruuvi.output.contains(#""temperature_c":null"#))

        let encrypted = try WaymarkBinary.run([
            "decode", "--service-data", "0000fcd2-0000-1000-8000-00805f9b34fb:41a47266c95f730011223378237214",
            "--bindkey", "231d39c1d7cc1ab1aee224cd096db932", "--address", "54:48:E6:8F:80:A5", "--json",
        ], in: work)
        #expect(encrypted.output.contains(#""name":"temperature","unit":"°C","value":25.06"#))

        let bad = try WaymarkBinary.run(["decode", "--manufacturer-data", "0x004C:zz"], in: work)
        #expect(bad.status == 65)
        #expect(bad.output.hasPrefix("<3>decode: --manufacturer-data must be"))
    }

    @Test func scanPrintsDecodedSightingsAsNDJSON() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -50)
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let scan = try ChildProcess(try WaymarkBinary.path, ["scan", "--json", "--duration", "2", "--data-dir", work.file("data")],
                                    aptPackage: "(built by swift build)", environment: rig.bus.environment, logPath: work.file("scan.log"))
        // Updates while the scan runs, as a live tag would send.
        while scan.isRunning {
            try await rig.advertise("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -48)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try scan.wait(timeout: 10) == 0)
        let lines = scan.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(!lines.isEmpty)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect(last["address"] as? String == "C0:FF:EE:00:00:01")
        let adverts = try #require(last["adverts"] as? [[String: Any]])
        #expect(adverts.first?["identity"] as? String == Self.ibeaconIdentity)
    }

    /// A field tester sees which devices are paired: the car's beacon by its
    /// identity, and a phone whose private address only its IRK resolves,
    /// with the pairing's label; strangers are not marked.
    @Test func scanMarksPairedDevicesIncludingAPrivateAddressResolvedByItsIRK() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = ["--data-dir", work.file("data")]
        func waymark(_ arguments: [String]) throws -> Int32 {
            let process = try ChildProcess(try WaymarkBinary.path, data + arguments, aptPackage: "(built by swift build)",
                                           environment: rig.bus.environment, logPath: work.file("waymark-\(UUID().uuidString).log"))
            return try process.wait(timeout: 30)
        }
        #expect(try waymark(["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0", "--label", "car"]) == 0)
        // The Core specification's sample: this IRK resolves 70:81:94:0D:FB:AA.
        #expect(try waymark(["pair", "--irk", "ec0234a357c8ad05341010a60a397d9b", "--role", "sensor", "--label", "phone"]) == 0)
        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -50)
        try await rig.addDevice("70:81:94:0D:FB:AA", rssi: -60)
        try await rig.addDevice("5A:00:00:11:22:33", rssi: -70)
        let scan = try ChildProcess(try WaymarkBinary.path, data + ["scan", "--json", "--duration", "2"], aptPackage: "(built by swift build)",
                                    environment: rig.bus.environment, logPath: work.file("scan.log"))
        while scan.isRunning {
            for address in ["70:81:94:0D:FB:AA", "5A:00:00:11:22:33"] { try await rig.advertise(address, rssi: -61) }
            try await rig.advertise("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -48)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try scan.wait(timeout: 10) == 0)
        var marks: [String: String] = [:]
        for line in scan.output.split(separator: "\n") where line.hasPrefix("{") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            marks[object["address"] as? String ?? ""] = (object["pairing"] as? [String: Any])?["label"] as? String ?? "-"
        }
        #expect(marks == ["C0:FF:EE:00:00:01": "car", "70:81:94:0D:FB:AA": "phone", "5A:00:00:11:22:33": "-"], "\(scan.output.suffix(2000))")
    }

    /// A pipe or a file gets each line when its advert arrives, not when
    /// 4 KiB have gathered or the scan ends: `waymark scan --json | jq` is a
    /// live view, and a log line on stderr never lands inside a sighting's.
    @Test func scanWritesEachLineAsItsAdvertArrives() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let scan = try ChildProcess(try WaymarkBinary.path, ["scan", "--json", "--duration", "60", "--data-dir", work.file("data")],
                                    aptPackage: "(built by swift build)", environment: rig.bus.environment, logPath: work.file("scan.log"))
        defer { scan.stop() }
        let deadline = ContinuousClock.now + .seconds(20)
        while !scan.output.contains("scanning in") {
            try #require(ContinuousClock.now < deadline && scan.isRunning, "the scan did not start: \(scan.output)")
            try await Task.sleep(for: .milliseconds(50))
        }
        // One advert, far less than a buffer's worth.
        try await rig.addDevice("C0:FF:EE:00:00:02", manufacturer: [ibeacon()], rssi: -50)
        while !scan.output.contains(#"{"address":"C0:FF:EE:00:00:02""#) {
            try #require(ContinuousClock.now < deadline && scan.isRunning, "no line while the scan runs: \(scan.output)")
            try await Task.sleep(for: .milliseconds(50))
        }
        scan.kill(SIGTERM)
        #expect(try scan.wait(timeout: 10) == 0)
        for line in scan.output.split(separator: "\n") where !line.hasPrefix("<") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
    }

    @Test func pairingByIdentityListsAndUnpairs() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let data = ["--data-dir", work.file("data")]
        let paired = try WaymarkBinary.run(["pair", "--ibeacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:100:0", "--label", "car"] + data, in: work)
        #expect(paired.status == 0)
        #expect(paired.output.contains(Self.ibeaconIdentity))
        let sensor = try WaymarkBinary.run(["pair", "--address", "a4:c1:38:8d:18:b2", "--role", "sensor", "--bindkey", "231d39c1d7cc1ab1aee224cd096db932"] + data, in: work)
        #expect(sensor.status == 0)

        let listed = try WaymarkBinary.run(["beacons", "--json"] + data, in: work)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(list.map { $0["identity"] as? String } == [Self.ibeaconIdentity, "address:A4:C1:38:8D:18:B2"])
        #expect(list.map { $0["role"] as? String } == ["vehicle", "sensor"])
        #expect(list.last?["has_bindkey"] as? Bool == true)
        // The key itself is never printed.
        #expect(!listed.output.contains("231d39c1"))

        let id = try #require(list.first?["id"] as? Int)
        #expect(try WaymarkBinary.run(["unpair", String(id)] + data, in: work).status == 0)
        #expect(try WaymarkBinary.run(["unpair", String(id)] + data, in: work).status == 65)
        #expect(try WaymarkBinary.run(["pair", "--ibeacon", "nonsense"] + data, in: work).status == 64)
    }

    @Test func pairTheStrongestThenRecogniseItUnderANewAddress() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        try await rig.addDevice("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -45)
        try await rig.addDevice("C0:FF:EE:00:00:02", manufacturer: [ibeacon(major: 7)], rssi: -80)
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let pair = try ChildProcess(try WaymarkBinary.path, ["pair", "--strongest", "--within", "2", "--data-dir", work.file("data")],
                                    aptPackage: "(built by swift build)", environment: rig.bus.environment, logPath: work.file("pair.log"))
        // Both keep advertising for as long as pair listens, as real beacons do.
        while pair.isRunning {
            try await rig.advertise("C0:FF:EE:00:00:01", manufacturer: [ibeacon()], rssi: -45)
            try await rig.advertise("C0:FF:EE:00:00:02", manufacturer: [ibeacon(major: 7)], rssi: -80)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try pair.wait(timeout: 10) == 0)
        #expect(pair.output.contains(Self.ibeaconIdentity))

        // The phone or tag rotates its address: the same beacon under a new MAC.
        let pairing = try #require(try PairingStore(database: GatewayStore(path: work.file("data/waymark.db")).database).all().first)
        let scanner = BlueZScanner(connection: rig.connection, options: Configuration().bluetooth.scannerOptions(cycle: .seconds(5)), clock: ContinuousClock())
        try await scanner.start()
        try await rig.addDevice("5A:11:22:33:44:55", manufacturer: [ibeacon()], rssi: -50)
        let sighting = try await scanner.sightings.nextMatching(within: .seconds(20)) { $0.address.description == "5A:11:22:33:44:55" }
        #expect(pairing.matches(sighting))
        await scanner.stop()
    }

    @Test func aPhoneIsPairedByItsIRKWhichIsNeverShown() throws {
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let key = "ec0234a357c8ad05341010a60a397d9b"
        try (key + "\n").write(toFile: work.file("irk"), atomically: true, encoding: .utf8)
        chmod(work.file("irk"), 0o600)
        let data = ["--data-dir", work.file("data")]
        let paired = try WaymarkBinary.run(["pair", "--irk-file", work.file("irk"), "--role", "vehicle", "--label", "phone"] + data, in: work)
        #expect(paired.status == 0 && paired.output.contains("irk:") && !paired.output.contains(key), "\(paired.output)")
        let listed = try WaymarkBinary.run(["beacons"] + data, in: work)
        #expect(listed.output.contains("IRK set") && !listed.output.contains(key), "\(listed.output)")
        let json = try WaymarkBinary.run(["beacons", "--json"] + data, in: work)
        #expect(json.output.contains(#""has_irk":true"#) && !json.output.contains(key), "\(json.output)")

        #expect(try WaymarkBinary.run(["pair", "--irk", "not-a-key"] + data, in: work).status == 65)
        let both = try WaymarkBinary.run(["pair", "--irk", key, "--bindkey", key] + data, in: work)
        #expect(both.status == 64 && !both.output.contains(key), "\(both.output)")
    }

    @Test func aBondedDeviceIsPairedByItsIdentityAddress() async throws {
        let rig = try await BlueZTestRig()
        defer { rig.stop() }
        try await rig.addAdapter()
        try await rig.addDevice("D4:61:9D:00:00:01")
        try await rig.addDevice("C0:FF:EE:00:00:02")
        try await rig.mock.control(rig.connection, "PairDevice", [.string("hci0"), .string("D4:61:9D:00:00:01"), .int32(0x5A020C)])
        let work = try TemporaryDirectory()
        defer { work.remove() }
        func pair(_ address: String) throws -> (status: Int32, output: String) {
            let pair = try ChildProcess(try WaymarkBinary.path, ["pair", "--bonded", "--address", address, "--label", "phone", "--data-dir", work.file("data")],
                                        aptPackage: "(built by swift build)", environment: rig.bus.environment, logPath: work.file("pair-\(address).log"))
            return (try pair.wait(timeout: 30), pair.output)
        }
        let bonded = try pair("d4:61:9d:00:00:01")
        #expect(bonded.status == 0 && bonded.output.contains("address:D4:61:9D:00:00:01"), "\(bonded.output)")
        let stranger = try pair("C0:FF:EE:00:00:02")
        #expect(stranger.status == 69 && stranger.output.contains("is not bonded"), "\(stranger.output)")
    }

    private func ibeacon(major: UInt16 = 100) -> DBusDictEntry {
        var bytes = Advertisement.parseHex(Self.ibeaconHex)!
        bytes[18] = UInt8(major >> 8)
        bytes[19] = UInt8(major & 0xFF)
        return DBusDictEntry(.uint16(0x004C), .variant(.bytes(bytes)))
    }
}
