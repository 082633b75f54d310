package import BlueZ
package import Recording

/// The settings the recorder runs with, taken from the configuration in
/// force (the local file with the fleet's pushed settings over it).
package struct RecorderSettings: Sendable {
    /// A silence longer than this is reported as a telemetry gap, in seconds.
    package var gapThreshold: Double
    package var trips: TripDetector.Options
    package var samples: SamplePolicy.Options
    /// How the scanner scans while running; the pairings' monitor patterns are added at each start.
    package var scanner: ScannerOptions

    package init(gapThreshold: Double, trips: TripDetector.Options, samples: SamplePolicy.Options, scanner: ScannerOptions) {
        (self.gapThreshold, self.trips, self.samples, self.scanner) = (gapThreshold, trips, samples, scanner)
    }
}
