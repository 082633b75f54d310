package import Basics
import Logging
package import Recording
package import Store
package import Telemetry
package import Upload
import Vocabulary

/// Gives recorded samples, timed on the boot clock, their wall-clock time
/// and its source. The first stamp from a trusted source re-stamps this
/// boot's unsynced samples still queued, and its trips' times with them.
package struct SampleStamper {
    package let clock: any SystemClock
    package let outbox: Outbox
    /// Trips and their timelines, re-stamped with the samples.
    package let recordings: RecordingStore
    private var timeBase = TimeBase()
    /// The time source of the last samples stamped, to re-stamp once it becomes trusted.
    private var lastSource: TimeSource?
    /// The last time stamped in the open trip, below which none of its
    /// later samples goes.
    private var tripFloor: (trip: TripID, boot: Double, time: Double, source: TimeSource)?

    /// Stamps into the store's own outbox and trips.
    package init(clock: any SystemClock, store: GatewayStore) {
        self.init(clock: clock, outbox: Outbox(database: store.database), recordings: RecordingStore(database: store.database))
    }

    package init(clock: any SystemClock, outbox: Outbox, recordings: RecordingStore) {
        self.clock = clock
        self.outbox = outbox
        self.recordings = recordings
    }

    /// The receiver's time, which dates samples while the system clock is unsynced.
    package mutating func gnss(time: Double, atBoot boot: Double) { timeBase.gnss(time: time, atBoot: boot) }

    /// The wall time of a boot-clock time, and how far to trust it.
    package func stamp(_ boot: Double) -> (time: Double, source: TimeSource, reading: ClockReading) {
        let reading = clock.read()
        let (time, source) = timeBase.wall(at: boot, reading)
        return (time, source, reading)
    }

    package func wall(_ boot: Double) -> Double { stamp(boot).time }

    /// A recorded sample as queued.
    package mutating func sample(_ recorded: RecordedSample) -> Sample {
        let stamped = stamp(recorded.time)
        if stamped.source != .unsynced, lastSource != stamped.source {
            let offset = stamped.time - recorded.time
            let (boot, source, recordings) = (stamped.reading.bootID, stamped.source, recordings)
            do {
                let count = try outbox.restamp(bootID: boot, offset: offset, source: source, alongside: {
                    try recordings.restamp(bootID: boot, offset: offset, source: source, on: $0)
                })
                if count > 0 { Log.notice("recording: the clock is trusted now (\(stamped.source.rawValue)); re-stamped \(count) unsynced samples") }
                // The trip's floor moves with its re-stamped samples.
                if let floor = tripFloor, floor.source == .unsynced { tripFloor = (floor.trip, floor.boot, floor.boot + offset, stamped.source) }
            } catch {
                // The source stays as it was, so the next sample tries again.
                Log.error("recording: cannot re-stamp this boot's unsynced samples and trips with the trusted clock (\(error)); trying again with the next sample")
                return sample(recorded, stamped)
            }
        }
        lastSource = stamped.source
        return sample(recorded, stamped)
    }

    private mutating func sample(_ recorded: RecordedSample, _ stamped: (time: Double, source: TimeSource, reading: ClockReading)) -> Sample {
        let time = recorded.tripID.map { monotonic(stamped.time, at: recorded.time, source: stamped.source, in: $0) } ?? stamped.time
        return Sample(time: time, tripID: recorded.tripID, payload: recorded.payload, timeSource: stamped.source,
                      boot: (stamped.reading.bootID, recorded.time))
    }

    /// A time in `trip` no earlier than the one stamped in it before: when
    /// the source steps back (a receiver's clock, gpsfake looping its log,
    /// a clock set back), the trip's times run on from its last one at the
    /// boot clock's rate until the source catches up. So a trip's samples
    /// never go back in time in the order they are queued, and it never
    /// ends before it starts.
    private mutating func monotonic(_ time: Double, at boot: Double, source: TimeSource, in trip: TripID) -> Double {
        guard let floor = tripFloor, floor.trip == trip else {
            tripFloor = (trip, boot, time, source)
            return time
        }
        let lowest = floor.time + max(0, boot - floor.boot)
        let result = max(time, lowest)
        tripFloor = (trip, max(boot, floor.boot), result, result == time ? source : floor.source)
        return result
    }
}
