import CLI
import Capture
import Config
import Control
import Daemon
import Host
import Lifecycle
import Location
import Recorder

/// The location reader, watched all the time: its state is a requirement
/// (each change wakes the controller), its fixes feed the recorder as their
/// epochs close; it keeps them only while running.
struct LocationService: Service {
    let name = "location"
    let reader: LocationReader<ContinuousClock>
    let state: DaemonState
    let recorder: RecorderService
    let wake: AsyncStream<DaemonWake>.Continuation

    init(_ configuration: Configuration.Location, state: DaemonState, recorder: RecorderService, wake: AsyncStream<DaemonWake>.Continuation) {
        reader = LocationReader(source: configuration.source, options: configuration.readerOptions, clock: ContinuousClock(),
                                onTrace: { trace in
                                    switch trace {
                                    case .line(let line, let gpsd, let closed): recorder.locationLine(line, gpsd: gpsd, closed: closed)
                                    case .closed(let fix, let afterLastLine): recorder.epochClosed(fix, afterLastLine: afterLastLine)
                                    }
                                })
        (self.state, self.recorder, self.wake) = (state, recorder, wake)
    }

    func run() async {
        await reader.reading { events in
            for await event in events {
                switch event {
                case .state(let current):
                    await state.update(location: current)
                    wake.yield(.locationChanged)
                case .fix:
                    // Already with the recorder, through the reader's hook.
                    break
                }
            }
        }
    }
}
