import BluetoothKernel
import Testing
import Vocabulary

/// The management channel's device-found events and the AD structures in them.
struct ManagementEventTests {
    /// Flags, then the iBeacon of the end-to-end tests (as btvirt's scanner receives it).
    static let ibeaconAdvert: [UInt8] = [0x02, 0x01, 0x06, 0x1a, 0xff, 0x4c, 0x00]
        + hex("0215e2c56db5dffb48d2b060d0f5a71096e000640000c5")

    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { i in
            UInt8(text.dropFirst(i).prefix(2), radix: 16)!
        }
    }

    @Test func aDeviceFoundEventDecodesToTheAdvertItCarries() throws {
        let found = DeviceFound(address: 0x00AA_0100_0000, addressType: 1, rssi: -61, flags: 4, data: Self.ibeaconAdvert)
        let (index, event) = try ManagementEvent.decode(found.encoded(index: 2))
        #expect(index == 2)
        #expect(event == .deviceFound(found))
        #expect(found.addressText == "00:AA:01:00:00:00")
        #expect(found.addressTypeText == "public")
        let data = AdvertisingData(found.data)
        #expect(data.manufacturerData == [0x004C: Self.hex("0215e2c56db5dffb48d2b060d0f5a71096e000640000c5")])
        #expect(!data.truncated)

        let monitored = try ManagementEvent.decode(found.encoded(index: 0, monitorHandle: 7))
        #expect(monitored.event == .monitorDeviceFound(handle: 7, found))
    }

    @Test func serviceDataUUIDsAreWrittenAsBlueZWritesThem() {
        // BTHome (16-bit fcd2), a 32-bit UUID, a name, and a TX power of -4 dBm.
        let data = AdvertisingData([0x07, 0x16, 0xd2, 0xfc, 0x40, 0x02, 0xca, 0x09, 0x07, 0x20, 0x78, 0x56, 0x34, 0x12, 0x01, 0x02,
                                    0x05, 0x09] + Array("tag1".utf8) + [0x02, 0x0a, 0xfc])
        #expect(data.serviceData["0000fcd2-0000-1000-8000-00805f9b34fb"] == [0x40, 0x02, 0xca, 0x09])
        #expect(data.serviceData["12345678-0000-1000-8000-00805f9b34fb"] == [0x01, 0x02])
        #expect(data.name == "tag1")
        #expect(data.txPower == -4)
    }

    @Test func anOverrunningStructureKeepsWhatCameBefore() {
        let data = AdvertisingData(Self.ibeaconAdvert + [0x09, 0xff, 0x01])
        #expect(data.truncated)
        #expect(data.manufacturerData[0x004C] != nil)
    }

    @Test func everyTruncationOfAnEventIsRefusedNotTrappedOn() throws {
        let bytes = DeviceFound(address: 1, addressType: 2, rssi: 127, flags: 0, data: Self.ibeaconAdvert).encoded(index: 0, monitorHandle: 1)
        for length in 0..<bytes.count {
            #expect(throws: ManagementEventError.self) { try ManagementEvent.decode(Array(bytes.prefix(length))) }
        }
        // A header that declares the right length, with an inner length that lies.
        var lying = bytes
        lying[lying.count - Self.ibeaconAdvert.count - 2] &+= 1
        #expect(throws: ManagementEventError.advertisingDataMismatch(declared: Self.ibeaconAdvert.count + 1, actual: Self.ibeaconAdvert.count)) {
            try ManagementEvent.decode(lying)
        }
        // Other events pass through by code.
        #expect(try ManagementEvent.decode([0x05, 0x00, 0x00, 0x00, 0x00, 0x00]).event == .other(code: 5))
    }

    @Test func aCommandReplyCarriesItsOpcodeStatusAndReturnValuesAndNeedsTheFirstTwo() throws {
        // Set Powered (0x0005) completed on hci3, with its 4-byte settings.
        let complete: [UInt8] = [0x01, 0x00, 0x03, 0x00, 0x07, 0x00, 0x05, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00]
        #expect(try ManagementEvent.decode(complete) == (3, .commandReply(opcode: 5, status: 0, returned: [0x01, 0x00, 0x00, 0x00])))
        // Refused as busy (0x0A), by a status event.
        let status: [UInt8] = [0x02, 0x00, 0x03, 0x00, 0x03, 0x00, 0x05, 0x00, 0x0A]
        #expect(try ManagementEvent.decode(status) == (3, .commandReply(opcode: 5, status: 0x0A, returned: [])))
        for cut in 0..<3 {
            let short = Array(status.prefix(6 + cut))
            var event = short
            event[4] = UInt8(cut)
            #expect(throws: ManagementEventError.truncatedParameters(code: 2, length: cut)) { try ManagementEvent.decode(event) }
        }
    }
}
