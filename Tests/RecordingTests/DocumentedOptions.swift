import Recording

// The documented defaults of `[Recording]`, spelled out: these tests prove
// the state machines' behaviour at those values without depending on the
// gateway's configuration.

extension TripDetector.Options {
    static let documented = TripDetector.Options(startSightings: 3, startWindow: 30, lostTimeout: 120, reopenWindow: 300, maxDuration: 12 * 3600)
}

extension SamplePolicy.Options {
    static let documented = SamplePolicy.Options(fixInterval: 1, beaconInterval: 10, sensorInterval: 60)
}

extension TripRecorder {
    init() { self.init(trips: .documented, samples: .documented) }
}

extension SamplePolicy {
    init() { self.init(options: .documented) }
}
