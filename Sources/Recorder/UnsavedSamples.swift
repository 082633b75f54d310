package import Telemetry

/// Stamped samples, with the trip rows they carry, that a commit could not
/// store for a reason a retry can outlive (a locked store, an I/O error):
/// kept in memory, in order, and committed ahead of the next samples. At
/// most `limit` are kept; past it the oldest are dropped and counted.
package struct UnsavedSamples: Sendable {
    package private(set) var samples: [Sample] = []
    package private(set) var trips: [SampleStamper.TripChange] = []
    /// Samples dropped since the last successful commit.
    package private(set) var dropped = 0
    /// Commits failed since the last that succeeded.
    package private(set) var failures = 0
    package let limit: Int

    /// About 10 minutes of a busy trip at one fix a second with a sensor or two.
    package init(limit: Int = 2_000) { self.limit = max(1, limit) }

    package var isEmpty: Bool { samples.isEmpty }

    /// Keeps what a commit failed to store: the earlier unsaved samples and
    /// the new ones, since a commit tries them together. A trip row of a
    /// dropped sample is kept: it is small, and a trip is worth its row.
    package mutating func hold(_ samples: [Sample], trips: [SampleStamper.TripChange]) {
        let over = max(0, samples.count - limit)
        self.samples = Array(samples.dropFirst(over))
        self.trips = trips
        dropped += over
        failures += 1
    }

    /// Whether the failure just held is worth a line in the journal: the
    /// first of a run, then one in 60 (a minute of fixes), not every one.
    package var isWorthLogging: Bool { failures % 60 == 1 }

    /// All were stored.
    package mutating func clear() {
        samples = []
        trips = []
        dropped = 0
        failures = 0
    }
}
