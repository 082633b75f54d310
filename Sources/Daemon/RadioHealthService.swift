import Basics
import Lifecycle

/// Every `interval`, the recorder records a `radio_health` sample: all the
/// time the daemon runs, so a gateway parked for a week still reports. One
/// wake-up per interval. An interval of zero records none.
struct RadioHealthService: Service {
    let name = "radio health"
    let interval: Duration
    let recorder: RecorderService

    func run() async {
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
