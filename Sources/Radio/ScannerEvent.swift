/// Things the scanner reports besides sightings, for logs and counters.
public enum ScannerEvent: Sendable, Equatable {
    case state(BluetoothState)
    /// Scanning (discovery, or a monitor's registration) was (re)started on
    /// the adapter; `reason` says why.
    case discoveryStarted(adapter: AdapterName, reason: DiscoveryReason)
    /// No advert for the watchdog period while discovery should run: the
    /// recovery step taken.
    case watchdogFired(step: WatchdogStep)
    /// A recovery step could not be carried out (`reason`); the ladder
    /// goes on to the next.
    case recoveryFailed(step: WatchdogStep, reason: String)
    /// Adverts came back after the ladder ended in `needsPowerCycle`.
    case radioRecovered
    /// Devices removed from BlueZ's cache because they were not seen for long.
    case devicesExpired(count: Int)
    /// The scan mode chosen at start, or changed while running (`previous`
    /// set): a mode that stops working falls back, and scanning goes on.
    case reception(ScanReception, previous: ScanMode?)
    /// Scanning moved to another adapter (`hci1`) because the one in use was
    /// removed or powered off and did not come back.
    case adapterFailover(from: AdapterName, to: AdapterName)
    /// Scanning did not start (`reason`), `failures` times in a row; it is
    /// tried again after `retryIn`.
    case startFailed(reason: String, failures: Int, retryIn: Duration)
    /// Scanning started after `failures` failed starts.
    case startRecovered(failures: Int)

    public enum WatchdogStep: String, Sendable, Equatable {
        case restartDiscovery = "restart-discovery"
        case powerCycle = "power-cycle"
        /// Soft rfkill blocks lifted, then the adapter power-cycled.
        case rfkillUnblock = "rfkill-unblock"
        /// The controller powered off and on through the kernel's management
        /// channel, below bluetoothd (needs `CAP_NET_ADMIN`).
        case mgmtPowerCycle = "mgmt-power-cycle"
        /// Nothing brought adverts back: the radio needs a real power cycle
        /// (in a car, an ignition cycle). Discovery keeps being retried.
        case needsPowerCycle = "needs-power-cycle"
    }
}
