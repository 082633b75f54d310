package import Basics

/// When telemetry was last collected, as both clocks read it, so that the
/// next start can tell how long collection stopped even if the wall clock
/// jumped (a Pi without an RTC) or the system rebooted meanwhile.
package struct Heartbeat: Sendable, Equatable {
    package var wall: Double
    package var boot: Double
    package var bootID: String
    /// Whether `wall` was a trusted time (synchronized, or from GNSS).
    package var trusted: Bool

    /// `wall` is the time base's wall time for `boot`, trusted unless unsynced.
    package init(wall: Double, source: TimeSource, boot: Double, bootID: String) {
        self.wall = wall
        self.boot = boot
        self.bootID = bootID
        trusted = source != .unsynced
    }

    /// `wall boot boot_id trusted`; a bare number is a heartbeat from
    /// before boot times were kept (wall only, taken as trusted, as it was).
    package init?(stored text: String) {
        let parts = text.split(separator: " ")
        if parts.count == 1, let wall = Double(parts[0]), wall.isFinite {
            (self.wall, boot, bootID, trusted) = (wall, 0, "", true)
            return
        }
        guard parts.count == 4, let wall = Double(parts[0]), let boot = Double(parts[1]), wall.isFinite, boot.isFinite else { return nil }
        (self.wall, self.boot, bootID, trusted) = (wall, boot, String(parts[2]), parts[3] == "1")
    }

    package var stored: String { "\(wall) \(boot) \(bootID) \(trusted ? 1 : 0)" }

    /// This heartbeat on the current boot's clock: exact within the same
    /// boot; across a reboot, by the wall clocks if both are trusted, else
    /// "at boot", the latest it can have been.
    package func onBootClock(_ now: ClockReading) -> Double {
        if bootID == now.bootID { return min(boot, now.boot) }
        if trusted, now.synchronized { return min(now.boot - (now.wall - wall), now.boot) }
        return 0
    }
}
