import Testing
import Vocabulary

struct DeviceIdentityTests {
    static let texts = [
        "ibeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:100:0",
        "altbeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0:65535:1",
        "eddystone:9E5D61E66621DA7CA630:0ED145673A89",
        "ruuvi:C2:3D:8F:1A:22:01",
        "bthome:A4:C1:38:00:00:01",
        "address:C0:FF:EE:00:00:01",
        "irk:3f2a9c01",
    ]

    @Test func everyKindPrintsAsItWasParsed() {
        for text in Self.texts {
            #expect(DeviceIdentity(text)?.description == text, "\(text)")
        }
    }

    @Test func anAddressIsKeptInUpperCaseSoThatItMatchesWhateverCaseItCameIn() {
        #expect(DeviceIdentity("address:c0:ff:ee:00:00:01") == .address("C0:FF:EE:00:00:01"))
        #expect(DeviceIdentity("bthome:a4:c1:38:00:00:01")?.advertiserAddress == "A4:C1:38:00:00:01")
        #expect(DeviceIdentity("ibeacon:e2c56db5:1:2")?.advertiserAddress == nil)
    }

    /// Every prefix of each valid text, and each with one character replaced
    /// or added, either parses to something that prints back the same, or
    /// does not parse: nothing in between.
    @Test func truncatedAndMutatedTextsParseToThemselvesOrNotAtAll() {
        for text in Self.texts {
            var variants = (0..<text.count).map { String(text.prefix($0)) }
            for index in text.indices {
                for replacement in [":", "x", "9", "-", " ", "é"] {
                    var mutated = text
                    mutated.replaceSubrange(index...index, with: replacement)
                    variants += [mutated, String(text[..<index]) + replacement + String(text[index...])]
                }
            }
            for variant in variants {
                guard let identity = DeviceIdentity(variant) else { continue }
                #expect(DeviceIdentity(identity.description) == identity, "\(variant)")
            }
        }
        for bad in ["", ":", "ibeacon", "ibeacon:", "ibeacon:u:70000:1", "ibeacon:u:1", "address:C0:FF:EE:00:00", "address:GG:FF:EE:00:00:01", "irk:", "irk:a:b", "phone:1"] {
            #expect(DeviceIdentity(bad) == nil, "\(bad)")
        }
    }
}
