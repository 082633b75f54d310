import Basics
import Recording

extension Configuration.Recording {
    /// The trip detector's options from `[Recording]`, in seconds.
    var tripOptions: TripDetector.Options {
        var options = TripDetector.Options()
        options.startSightings = tripStartSightings
        options.startWindow = tripStartWindow.seconds
        options.lostTimeout = beaconLostTimeout.seconds
        options.reopenWindow = reopenWindow.seconds
        options.maxDuration = maxTripDuration.seconds
        return options
    }

    /// The sample policy's options from `[Recording]`, in seconds.
    var sampleOptions: SamplePolicy.Options {
        var options = SamplePolicy.Options()
        options.fixInterval = fixInterval.seconds
        options.beaconInterval = beaconInterval.seconds
        options.sensorInterval = sensorInterval.seconds
        return options
    }

    /// How often discovery is cycled while recording. Each cycle brings one
    /// report per advertiser; one lost (a collision in busy air) costs the
    /// whole cycle. Four cycles per beacon sample interval give each sample
    /// four chances.
    var scanCycle: Duration { max(beaconInterval / 4, .milliseconds(500)) }
}
