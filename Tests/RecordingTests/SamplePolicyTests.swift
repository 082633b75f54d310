import Advertisements
import Recording
import Telemetry
import Testing
import Vocabulary

struct SamplePolicyTests {
    @Test func fixesAreCappedAtOnePerInterval() {
        var policy = SamplePolicy()
        let kept = stride(from: 0.0, to: 5, by: 0.2).compactMap { policy.sample(.fix(Fix(), at: $0), tripID: "t") }
        #expect(kept.count == 5 && kept.first?.time == 0)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $1.time - $0.time >= 1 })
        #expect(kept.allSatisfy { $0.kind == .fix && $0.tripID == "t" })
    }

    @Test func theBeaconIsRateLimitedAndSensorsRecordOnChangeOrAfterTheInterval() {
        var policy = SamplePolicy()
        #expect(policy.sample(.vehicle(rssi: -60, at: 0), tripID: "t")?.fields == #""rssi":-60"#)
        #expect(policy.sample(.vehicle(rssi: -61, at: 5), tripID: "t") == nil)
        #expect(policy.sample(.vehicle(rssi: -62, at: 10), tripID: "t") != nil)

        // A tag's reading as an unknown manufacturer's payload: 0x0215 then 0x0216.
        let (first, second) = (Self.reading(0x15), Self.reading(0x16))
        #expect(policy.sample(.sensor(id: "tag-1", advert: first, at: 0), tripID: "t")?.fields
            == #""sensor":"tag-1","company_id":65535,"data":"0215","format":"unknown""#)
        #expect(policy.sample(.sensor(id: "tag-1", advert: first, at: 30), tripID: "t") == nil)
        #expect(policy.sample(.sensor(id: "tag-1", advert: second, at: 31), tripID: "t") != nil, "a change")
        #expect(policy.sample(.sensor(id: "tag-1", advert: second, at: 91), tripID: "t") != nil, "the interval")
    }

    static func reading(_ value: UInt8) -> Advertisement {
        .unknown(.manufacturer(companyID: 0xFFFF, data: [0x02, value]))
    }
}
