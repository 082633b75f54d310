import Testing
import Vocabulary

struct BluetoothAddressTests {
    @Test func parsesAndPrintsThroughLibbluetoothInUpperCase() throws {
        // From a variable: a literal would be taken as one, not parsed.
        let text = "a4:c1:38:8d:18:b2"
        let address = try #require(BluetoothAddress(text))
        #expect(address.description == "A4:C1:38:8D:18:B2")
        #expect(address.bytes == [0xA4, 0xC1, 0x38, 0x8D, 0x18, 0xB2])
        #expect(address.value == 0xA4C1_388D_18B2)
        #expect(address.objectPathComponent == "dev_A4_C1_38_8D_18_B2")
        #expect(BluetoothAddress(value: 0x1_0000_0000_0001).description == "00:00:00:00:00:01")
    }

    @Test(arguments: ["", "A4:C1:38:8D:18", "A4:C1:38:8D:18:B2:00", "G4:C1:38:8D:18:B2", "A4-C1-38-8D-18-B2", "A4:C1:38:8D:18:B"])
    func refusesAnythingElse(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func theTypeTellsARandomAddressKindFromItsTopBits() {
        #expect(BluetoothAddress("C0:00:00:00:00:01", kind: .random)?.randomKind == .static)
        #expect(BluetoothAddress("5A:00:00:00:00:01", kind: .random)?.randomKind == .resolvable)
        #expect(BluetoothAddress("3A:00:00:00:00:01", kind: .random)?.randomKind == .nonResolvable)
        #expect(BluetoothAddress("80:00:00:00:00:01", kind: .random)?.randomKind == nil)
        #expect(BluetoothAddress("5A:00:00:00:00:01", kind: .public)?.randomKind == nil)
        #expect(BluetoothAddress(value: 0x5A00_0000_0001).randomKind == nil)
    }

    @Test func addressesOfAnotherTypeAreTheSameDeviceButNotEqual() {
        let random = BluetoothAddress(value: 0xC0FF_EE00_0001, kind: .random)
        let untyped: BluetoothAddress = "C0:FF:EE:00:00:01"
        #expect(random != untyped)
        #expect(random.sameDevice(as: untyped))
    }

    /// Every prefix of a valid address, and each with one character replaced
    /// or added, parses to something that prints back the same (in upper
    /// case), or does not parse.
    @Test func truncatedAndMutatedTextsParseToThemselvesOrNotAtAll() {
        let text = "c0:ff:ee:00:0a:01"
        var variants = (0...text.count).map { String(text.prefix($0)) } + [text + ":", ":" + text, text + "0"]
        for index in text.indices {
            for replacement in [":", "x", "9", "-", " ", "é", "F", "+"] {
                var mutated = text
                mutated.replaceSubrange(index...index, with: replacement)
                variants += [mutated, String(text[..<index]) + replacement + String(text[index...])]
            }
        }
        for variant in variants {
            guard let address = BluetoothAddress(variant) else { continue }
            #expect(address.description == variant.uppercased(), "\(variant)")
        }
    }
}
