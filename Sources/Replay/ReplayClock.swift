import Basics
import Synchronization

/// The system clock as a capture recorded it: replay sets it to each
/// record's time before handing the record on.
final class ReplayClock: SystemClock {
    private let reading: Mutex<ClockReading>

    init(bootID: String) {
        reading = Mutex(ClockReading(wall: 0, boot: 0, bootID: bootID, synchronized: false))
    }

    func read() -> ClockReading { reading.withLock { $0 } }

    func set(boot: Double, wall: Double, synchronized: Bool) {
        reading.withLock { ($0.boot, $0.wall, $0.synchronized) = (boot, wall, synchronized) }
    }
}
