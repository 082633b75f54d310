public import Basics
import Synchronization

/// A system clock a test moves: the wall clock by years, forward and back,
/// while the boot clock only ever advances.
public final class TestSystemClock: SystemClock {
    private let state: Mutex<ClockReading>

    public init(wall: Double, boot: Double = 100, bootID: String = "boot-1", synchronized: Bool = false) {
        state = Mutex(ClockReading(wall: wall, boot: boot, bootID: bootID, synchronized: synchronized))
    }

    public func read() -> ClockReading { state.withLock { $0 } }

    /// Time passes: both clocks move on.
    public func advance(_ seconds: Double) {
        state.withLock {
            $0.wall += seconds
            $0.boot += seconds
        }
    }

    /// NTP or GPS sets the wall clock (`synchronized` says whether the kernel now calls it synchronized).
    public func setWall(_ wall: Double, synchronized: Bool) {
        state.withLock {
            $0.wall = wall
            $0.synchronized = synchronized
        }
    }

    /// A reboot: a new boot id, the boot clock from `boot`, the wall clock as the (RTC-less) system finds it.
    public func reboot(wall: Double, boot: Double = 5, bootID: String, synchronized: Bool = false) {
        state.withLock { $0 = ClockReading(wall: wall, boot: boot, bootID: bootID, synchronized: synchronized) }
    }
}
