/// What a capture file starts with: enough to replay it with the settings
/// and pairings of the drive. Secrets are never in it: the config's secret
/// file names are dropped, and pairings come without bindkeys or IRKs.
public struct CaptureHeader: Sendable, Equatable {
    /// The format this waymark writes; a reader refuses a newer one.
    /// Format 2 records where the location reader closed an epoch without
    /// a line (`CaptureState.epochClosed`); replay of format 1 works those
    /// out from the settle time.
    public static let currentFormat: UInt16 = 2

    public var format: UInt16
    public var waymarkVersion: String
    /// The wall clock when the file was begun.
    public var started: Double
    /// `/proc/sys/kernel/random/boot_id`: boot-clock times compare only within one boot.
    public var bootID: String
    /// The config file's text.
    public var config: String
    /// The pairings as `waymark beacons --json` prints them.
    public var pairings: String

    public init(format: UInt16 = currentFormat, waymarkVersion: String, started: Double, bootID: String, config: String, pairings: String) {
        (self.format, self.waymarkVersion, self.started, self.bootID, self.config, self.pairings) =
            (format, waymarkVersion, started, bootID, config, pairings)
    }
}
