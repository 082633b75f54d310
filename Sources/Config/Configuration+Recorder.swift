import Basics
public import Recording

extension Configuration.Recording {
    /// The trip detector's options from `[Recording]`, in seconds.
    public var tripOptions: TripDetector.Options {
        TripDetector.Options(startSightings: tripStartSightings, startWindow: tripStartWindow.seconds, lostTimeout: beaconLostTimeout.seconds,
                             reopenWindow: reopenWindow.seconds, maxDuration: maxTripDuration.seconds)
    }

    /// The sample policy's options from `[Recording]`, in seconds.
    public var sampleOptions: SamplePolicy.Options {
        SamplePolicy.Options(fixInterval: fixInterval.seconds, beaconInterval: beaconInterval.seconds, sensorInterval: sensorInterval.seconds)
    }

    /// How often discovery is cycled while recording. Each cycle brings one
    /// report per advertiser; one lost (a collision in busy air) costs the
    /// whole cycle. Four cycles per beacon sample interval give each sample
    /// four chances.
    package var scanCycle: Duration { max(beaconInterval / 4, .milliseconds(500)) }
}
