import Recording
import Telemetry
import Testing
import Vocabulary

struct TripRecorderTests {
    /// A drive: the beacon appears, fixes flow at 5 Hz, the beacon leaves.
    @Test func aDriveGivesAStartEventRateLimitedSamplesAndAnEndEvent() {
        var recorder = TripRecorder()
        var samples: [RecordedSample] = []
        // Fixes before the trip are not recorded.
        samples += recorder.observe(.fix(Fix(), at: 999))
        for second in 0..<60 {
            let t = 1_000.0 + Double(second)
            samples += recorder.observe(.vehicle(rssi: -60, at: t))
            for step in 0..<5 { samples += recorder.observe(.fix(Fix(), at: t + Double(step) * 0.2)) }
        }
        samples += recorder.tick(at: 1_059 + 121)
        samples += recorder.tick(at: 1_059 + 301)
        let events = samples.filter { $0.kind == .event }.map(\.fields)
        #expect(events == [#""type":"tripStarted""#, #""type":"tripEnded","reason":"beaconLost""#])
        // The detector's decisions travel with the event samples, for the gateway to act on.
        #expect(samples.compactMap(\.tripAction) == [.started(at: 1_000), .ended(at: 1_059, reason: .beaconLost)])
        #expect(samples.filter { $0.kind != .event }.allSatisfy { $0.tripAction == nil })
        #expect(samples.first?.time == 1_000 && samples.last?.time == 1_059)
        let trip: TripID = "trip-1000000"
        #expect(samples.allSatisfy { $0.tripID == trip })
        // Recording starts with the third sighting (t = 1002): 58 fixes, one per second, and 6 beacon samples.
        #expect(samples.filter { $0.kind == .fix }.count == 58)
        #expect(samples.filter { $0.kind == .beacon }.count == 6)
        #expect(recorder.tripID == nil && recorder.nextDeadline == nil)
    }
}
