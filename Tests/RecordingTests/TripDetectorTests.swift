import Recording
import Testing
import Vocabulary

struct TripDetectorTests {
    static var options: TripDetector.Options {
        TripDetector.Options(startSightings: 3, startWindow: 30, lostTimeout: 120, reopenWindow: 300, maxDuration: 3600)
    }

    @Test func aTripStartsAfterNSightingsWithinTheWindowAtTheFirstOfThem() {
        var detector = TripDetector(options: Self.options)
        #expect(detector.sighted(at: 100).isEmpty)
        #expect(detector.sighted(at: 110).isEmpty)
        #expect(detector.sighted(at: 125) == [.started(at: 100)])
        #expect(detector.isActive)
    }

    @Test func sightingsSpreadWiderThanTheWindowStartNothing() {
        var detector = TripDetector(options: Self.options)
        for time in stride(from: 0.0, through: 200, by: 20) { #expect(detector.sighted(at: time).isEmpty) }
        #expect(!detector.isActive)
        #expect(detector.tick(at: 300).isEmpty)
        #expect(detector.state == .idle)
    }

    @Test func aTripEndsWhenTheBeaconWasLastSeenOnceTheReopenWindowHasPassed() {
        var detector = TripDetector(options: Self.options)
        _ = [0.0, 1, 2].map { detector.sighted(at: $0) }
        _ = detector.sighted(at: 500)
        #expect(detector.nextDeadline == 620)
        #expect(detector.tick(at: 620).isEmpty)
        #expect(detector.state == .ending(start: 0, lastSeen: 500))
        #expect(detector.nextDeadline == 800)
        #expect(detector.tick(at: 800).isEmpty)
        #expect(detector.tick(at: 800.5) == [.ended(at: 500, reason: .beaconLost)])
        #expect(detector.state == .idle && detector.nextDeadline == nil)
    }

    @Test func aBeaconBackWithinTheReopenWindowContinuesTheSameTrip() {
        var detector = TripDetector(options: Self.options)
        _ = [0.0, 1, 2].map { detector.sighted(at: $0) }
        _ = detector.tick(at: 200)
        #expect(detector.sighted(at: 250) == [.resumed(at: 250)])
        #expect(detector.state == .active(start: 0, lastSeen: 250))
    }

    @Test func aBeaconBackAfterTheReopenWindowEndsTheOldTripAndCountsTowardsANewOne() {
        var detector = TripDetector(options: Self.options)
        _ = [0.0, 1, 2].map { detector.sighted(at: $0) }
        _ = detector.tick(at: 200)
        #expect(detector.sighted(at: 400) == [.ended(at: 2, reason: .beaconLost)])
        #expect(detector.state == .starting(sightings: [400]))
    }

    @Test func aTripLongerThanTheMaximumIsSplit() {
        var detector = TripDetector(options: Self.options)
        _ = [0.0, 1, 2].map { detector.sighted(at: $0) }
        for time in stride(from: 60.0, to: 3600, by: 60) { #expect(detector.sighted(at: time).isEmpty) }
        #expect(detector.sighted(at: 3600) == [.ended(at: 3600, reason: .maxDuration), .started(at: 3600)])
        #expect(detector.state == .active(start: 3600, lastSeen: 3600))
    }
}

extension TripDetectorTests {
    @Test func aRestoredOpenTripContinuesWhenTheBeaconIsBackInTimeAndEndsWhenItIsNot() {
        var back = TripRecorder()
        back.restore(tripID: "trip-1000", start: 1000, lastSeen: 1100)
        #expect(back.observe(.vehicle(rssi: -60, at: 1150)).map(\.fields) == [#""type":"tripResumed""#, #""rssi":-60"#])
        #expect(back.tripID == "trip-1000")

        var gone = TripRecorder()
        gone.restore(tripID: "trip-1000", start: 1000, lastSeen: 1100)
        let ended = gone.tick(at: 1100 + 301)
        #expect(ended.map(\.fields) == [#""type":"tripEnded","reason":"beaconLost""#] && ended.first?.tripID == "trip-1000")
    }
}
