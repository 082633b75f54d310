import Basics
import Lifecycle

/// Every `interval`, the recorder records a `radio_health` sample: all the
/// time the daemon runs, so a gateway parked for a week still reports. One
/// wake-up per interval. An interval of zero records none.
package struct RadioHealthService: Service {
    package let name = "radio health"
    let interval: Duration
    let recorder: RecorderService

    package init(interval: Duration, recorder: RecorderService) { (self.interval, self.recorder) = (interval, recorder) }

    package func run() async {
        guard interval > .zero else { return await waitUntilCancelled() }
        let clock = ContinuousClock()
        var last = clock.now
        while await clock.pause(for: interval) {
            let now = clock.now
            let elapsed = (last.duration(to: now)).components
            await recorder.recordHealth(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            last = now
        }
    }
}
