import BlueZ
import Radio

extension ScannerOptions {
    /// `[Bluetooth]`'s documented defaults, spelled out so these tests do not
    /// depend on the gateway's configuration.
    static var documented: ScannerOptions { ScannerOptions(mode: .auto, watchdog: .seconds(60), deviceExpiry: .seconds(300)) }
}
