import Recording
import Testing

struct SamplePolicyTests {
    @Test func fixesAreCappedAtOnePerInterval() {
        var policy = SamplePolicy()
        let kept = stride(from: 0.0, to: 5, by: 0.2).compactMap { policy.sample(.fix(fields: #""lat":1"#, at: $0), tripID: "t") }
        #expect(kept.count == 5 && kept.first?.time == 0)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $1.time - $0.time >= 1 })
        #expect(kept.allSatisfy { $0.kind == .fix && $0.tripID == "t" })
    }

    @Test func theBeaconIsRateLimitedAndSensorsRecordOnChangeOrAfterTheInterval() {
        var policy = SamplePolicy()
        #expect(policy.sample(.vehicle(rssi: -60, at: 0), tripID: "t")?.fields == #""rssi":-60"#)
        #expect(policy.sample(.vehicle(rssi: -61, at: 5), tripID: "t") == nil)
        #expect(policy.sample(.vehicle(rssi: -62, at: 10), tripID: "t") != nil)

        #expect(policy.sample(.sensor(id: "tag-1", fields: #""temperature":21.5"#, at: 0), tripID: "t")?.fields
            == #""sensor":"tag-1","temperature":21.5"#)
        #expect(policy.sample(.sensor(id: "tag-1", fields: #""temperature":21.5"#, at: 30), tripID: "t") == nil)
        #expect(policy.sample(.sensor(id: "tag-1", fields: #""temperature":21.6"#, at: 31), tripID: "t") != nil, "a change")
        #expect(policy.sample(.sensor(id: "tag-1", fields: #""temperature":21.6"#, at: 91), tripID: "t") != nil, "the interval")
    }
}
