import Testing
import Vocabulary

/// Service data keys: read from BlueZ's text, a user's short form, or an
/// advert's bytes, and always written as BlueZ writes them.
struct BluetoothUUIDTests {
    /// Text as it comes from outside (a literal would be taken as one).
    func parsed(_ text: String) -> BluetoothUUID? { BluetoothUUID(text) }

    @Test func aUUIDIsReadOnlyFromHexDigitsInItsShortAndFullForms() {
        #expect(parsed("feaa")?.short == 0xFEAA)
        #expect(parsed("FCD2")?.short == 0xFCD2)
        #expect(parsed("0xFeAa")?.short == 0xFEAA)
        #expect(parsed("0000fcd2-0000-1000-8000-00805F9B34FB")?.short == 0xFCD2)
        #expect(parsed("0000FCD2") == BluetoothUUID(short: 0xFCD2))
        // Off the base UUID, or past 16 bits: no short form.
        #expect(parsed("0000fcd2-0000-1000-8000-00805f9b34fc").map { $0.short == nil } == true)
        #expect(parsed("12345678")?.short == nil)
        for text in ["fcdg", "\u{10}\u{11}\u{12}\u{13}", "fcd", "", "0x", "0000fcd2x0000-1000-8000-00805f9b34fb", "0000fcd2-0000-1000-8000-00805f9b34f", "ｆｃｄ２"] {
            #expect(parsed(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func anAdvertsBytesAreLeastSignificantFirst() {
        #expect(BluetoothUUID(littleEndian: [0xD2, 0xFC]) == "fcd2")
        #expect(BluetoothUUID(littleEndian: [0x78, 0x56, 0x34, 0x12])?.description == "12345678-0000-1000-8000-00805f9b34fb")
        let full: [UInt8] = Array(0..<16)
        #expect(BluetoothUUID(littleEndian: full)?.description == "0f0e0d0c-0b0a-0908-0706-050403020100")
        for count in [0, 1, 3, 5, 15, 17] {
            #expect(BluetoothUUID(littleEndian: [UInt8](repeating: 1, count: count)) == nil, "\(count) bytes")
        }
    }

    @Test func theTextFormReadsBackAsTheSameUUID() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let uuid = BluetoothUUID(high: generator.next(), low: generator.next())
            #expect(BluetoothUUID(uuid.description) == uuid)
            #expect(BluetoothUUID(uuid.description.uppercased()) == uuid)
        }
        #expect(BluetoothUUID(short: 0xFEAA).description == "0000feaa-0000-1000-8000-00805f9b34fb")
    }
}
