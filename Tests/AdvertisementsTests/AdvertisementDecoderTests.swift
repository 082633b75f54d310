import Advertisements
import Basics
import Cipher
import Foundation
import PeerHarness
import Testing
import Vocabulary

struct AdvertisementDecoderTests {
    @Test func aMillionRandomPayloadsNeverCrashAnyDecoder() async {
        var rng = SplitMix64(seed: 0xB1E)
        let companies: [UInt16] = [0x004C, 0x0499, 0xFFFF, 0x0059]
        let services: [BluetoothUUID] = ["0000feaa-0000-1000-8000-00805f9b34fb", "0000fcd2-0000-1000-8000-00805f9b34fb", "fcd2", "feaa"]
        let key = [UInt8](repeating: 7, count: 16)
        var recognised = 0
        for round in 0..<1_000_000 {
            // Long CPU loops share the test runner's few threads with async tests.
            if round % 1000 == 0 { await Task.yield() }
            var bytes = (0..<Int.random(in: 0...31, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Steer a share of inputs past the first checks of each format.
            switch round % 5 {
            case 0 where bytes.count > 2: bytes[0] = 0x02; bytes[1] = 0x15
            case 1 where !bytes.isEmpty: bytes[0] = [0x00, 0x10, 0x20, 0x30][round % 4]
            case 2 where !bytes.isEmpty: bytes[0] = [0x40, 0x41, 0x42, 0x43][round % 4]
            case 3 where !bytes.isEmpty: bytes[0] = 5
            default: break
            }
            let advertisement = round % 2 == 0
                ? AdvertisementDecoder.decode(companyID: companies[round % companies.count], bytes)
                : AdvertisementDecoder.decode(serviceUUID: services[round % services.count], bytes, bindkey: round % 3 == 0 ? key : nil, address: [1, 2, 3, 4, 5, 6])
            if case .unknown = advertisement {} else { recognised += 1 }
            _ = advertisement.identity
        }
        // The steering must actually reach the decoders, or this proves little.
        #expect(recognised > 100_000)
    }

    @Test func unknownFormatsComeBackRawNotAsErrors() {
        #expect(AdvertisementDecoder.decode(companyID: 0x1234, [1, 2, 3]) == .unknown(.manufacturer(companyID: 0x1234, data: [1, 2, 3])))
        let uuid: BluetoothUUID = "0000180f-0000-1000-8000-00805f9b34fb"
        #expect(AdvertisementDecoder.decode(serviceUUID: uuid, [99]) == .unknown(.service(uuid: uuid, data: [99])))
        // A recognised company with a payload of the wrong shape is unknown too.
        #expect(AdvertisementDecoder.decode(companyID: 0x004C, [0x10, 0x05, 0x01]) == .unknown(.manufacturer(companyID: 0x004C, data: [0x10, 0x05, 0x01])))
    }

    @Test func encryptedBTHomeDecryptsWithTheBindkeyOnly() throws {
        let key = try #require(Advertisement.parseHex("231d39c1d7cc1ab1aee224cd096db932"))
        let address: [UInt8] = [0x54, 0x48, 0xE6, 0x8F, 0x80, 0xA5]
        let packet = packetFor(counter: 0x3322_1100, key: key, address: address)

        let opened = AdvertisementDecoder.decode(serviceUUID: "fcd2", packet, bindkey: key, address: address)
        guard case .btHome(let reading) = opened else { Issue.record("not BTHome: \(opened)"); return }
        #expect(reading.problem == nil)
        #expect(reading.number("temperature") == 25.06)
        #expect(reading.number("humidity") == 50.55)

        let wrongKey = AdvertisementDecoder.decode(serviceUUID: "fcd2", packet, bindkey: [UInt8](repeating: 0, count: 16), address: address)
        #expect(wrongKey.btHomeProblem == .authenticationFailed)
        #expect(AdvertisementDecoder.decode(serviceUUID: "fcd2", packet, address: address).btHomeProblem == .missingBindkey)

        var tampered = packet
        tampered[2] ^= 0x01
        #expect(AdvertisementDecoder.decode(serviceUUID: "fcd2", tampered, bindkey: key, address: address).btHomeProblem == .authenticationFailed)
    }

    @Test func theReplayGuardRefusesCountersThatDoNotGrow() {
        var guardian = BTHomeReplayGuard(capacity: 2)
        let results = [
            guardian.accept(10, from: "A"), guardian.accept(10, from: "A"), guardian.accept(9, from: "A"),
            guardian.accept(11, from: "A"), guardian.accept(1, from: "B"),
            // A third device pushes out the oldest, so the table stays bounded.
            guardian.accept(1, from: "C"), guardian.accept(5, from: "A"),
        ]
        #expect(results == [true, false, false, true, true, true, true])
    }

    @Test func identitiesDoNotDependOnTheBluetoothAddress() throws {
        let ibeacon = AdvertisementDecoder.decode(companyID: 0x004C, try #require(Advertisement.parseHex("0215e2c56db5dffb48d2b060d0f5a71096e000640000c5")))
        #expect(ibeacon.identity?.description == "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0")
        let uid = AdvertisementDecoder.decode(serviceUUID: "feaa", try #require(Advertisement.parseHex("00939e5d61e66621da7ca6300ed145673a890000")))
        #expect(uid.identity?.description == "eddystone:9E5D61E66621DA7CA630:0ED145673A89")
    }

    /// A BTHome v2 button event (object 0x3A), unencrypted: every event BTHome's decoder names.
    @Test(arguments: [(UInt8(0x01), "press"), (0x04, "long_press"), (0x06, "long_triple_press"), (0x80, "hold_press"), (0xFE, "hold_press"),
                      (0x00, "none"), (0x7F, "unknown_127")])
    func aButtonEventDecodesAsBTHomesOwnDecoderNamesIt(code: UInt8, name: String) throws {
        guard case .btHome(let packet) = AdvertisementDecoder.decode(serviceUUID: "fcd2", [0x40, 0x3A, code]) else {
            Issue.record("not decoded as BTHome")
            return
        }
        #expect(packet.objects.first?.value == .event(name))
    }

    @Test func jsonUsesDocumentedFieldNames() throws {
        let tlm = AdvertisementDecoder.decode(serviceUUID: "feaa", try #require(Advertisement.parseHex("20000b1813000000146700002ac4")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(tlm), as: UTF8.self)
        #expect(json == #"{"advertisement_count":5223,"battery_mv":2840,"format":"eddystone-tlm","temperature_c":19,"uptime_s":1094.8,"version":0}"#)
    }

    /// Builds an encrypted BTHome v2 packet the way a sensor does.
    private func packetFor(counter: UInt32, key: [UInt8], address: [UInt8]) -> [UInt8] {
        let info: UInt8 = 0x41
        let counterBytes = withUnsafeBytes(of: counter.littleEndian, Array.init)
        let nonce = address + [0xD2, 0xFC, info] + counterBytes
        let sealed = AESCCM.seal([0x02, 0xCA, 0x09, 0x03, 0xBF, 0x13], key: key, nonce: nonce)!
        return [info] + sealed.ciphertext + counterBytes + sealed.tag
    }
}

extension Advertisement {
    var btHomeProblem: BTHomePacket.Problem? {
        if case .btHome(let packet) = self { return packet.problem }
        return nil
    }
}
