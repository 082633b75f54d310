import BluetoothKernel
import Testing

struct BluetoothAddressTests {
    @Test func parsesAndPrintsThroughLibbluetooth() throws {
        let address = try #require(BluetoothAddress("a4:c1:38:8d:18:b2"))
        #expect(address.description == "A4:C1:38:8D:18:B2")
        #expect(address.bytes == [0xA4, 0xC1, 0x38, 0x8D, 0x18, 0xB2])
        #expect(address.objectPathComponent == "dev_A4_C1_38_8D_18_B2")
    }

    @Test(arguments: ["", "A4:C1:38:8D:18", "A4:C1:38:8D:18:B2:00", "G4:C1:38:8D:18:B2", "A4-C1-38-8D-18-B2", "A4:C1:38:8D:18:B"])
    func refusesAnythingElse(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }
}
