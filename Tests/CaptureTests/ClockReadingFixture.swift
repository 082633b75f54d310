import Basics

/// Clock readings for writers under test.
enum ClockReadingFixture {
    static func at(_ boot: Double) -> ClockReading {
        ClockReading(wall: 1_764_000_000 + boot - 100, boot: boot, bootID: "boot-1", synchronized: true)
    }
}
