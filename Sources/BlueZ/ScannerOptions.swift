public import BluetoothKernel
public import Radio

/// Tunables of `BlueZScanner`. The ones a user sets (`[Bluetooth]` in the
/// config file) have no defaults here; the gateway's configuration gives them.
public struct ScannerOptions: Sendable {
    /// `hci0` or an adapter address; nil for the first adapter.
    public var adapter: String?
    public var mode: ScanMode
    /// Discovery is stopped and started again this often, so the controller
    /// forgets which advertisers it already reported. The daemon uses a
    /// quarter of its `BeaconInterval`.
    public var cycle: Duration = .seconds(5)
    /// What a passive scan watches for; nil for everything (`scan`, `pair`).
    /// Unused by discovery, which always hears everything.
    public var monitorPatterns: [MonitorPattern]?
    /// In mgmt mode where bluetoothd offers no advertisement monitors, the
    /// scanner adds its own to the kernel through these; nil (a process
    /// without `CAP_NET_ADMIN`, a replayed channel) leaves discovery cycled.
    public var kernelMonitors: KernelMonitors?
    /// Opens the management channel (replaced by a replay in benchmarks).
    public var managementChannel: @Sendable () throws(ManagementSocketError) -> ManagementSocket = {
        () throws(ManagementSocketError) in try ManagementSocket.openControlChannel()
    }
    /// With discovery on and no advert for this long, take the next step of
    /// the watchdog's recovery ladder (restart, power cycles, rfkill).
    public var watchdog: Duration
    /// With no adapter named: how good an adapter is (`hci0` → lower is
    /// better), after being powered. The gateway ranks USB before UART.
    public var adapterRank: @Sendable (_ name: AdapterName) -> Int = { _ in 0 }
    /// With no adapter named: how long a powered-off adapter gets to come
    /// back before scanning moves to another.
    public var failoverDelay: Duration = .milliseconds(500)
    /// The watchdog's third step: lifts soft rfkill blocks on Bluetooth
    /// radios where allowed; returns how many it lifted.
    public var unblockRadio: @Sendable () -> Int = { Rfkill.unblockSoft() }
    /// The watchdog's fourth step, below bluetoothd: powers controller `hciN`
    /// off and on through the kernel's management channel. Nil, and the step
    /// skipped, where the process lacks `CAP_NET_ADMIN`.
    public var kernelPowerCycle: (@Sendable (_ index: UInt16) async throws(ManagementSocketError) -> Void)? =
        ProcessCapabilities.effective(contains: ProcessCapabilities.netAdmin)
            ? { @Sendable index async throws(ManagementSocketError) in try await ManagementSocket.powerCycle(controller: index) } : nil
    /// Once the ladder is exhausted, the watchdog keeps probing, its period
    /// doubling up to this many times the configured one.
    public var probeBackoffCap = 16
    /// Unpaired devices unseen this long are removed from BlueZ.
    public var deviceExpiry: Duration
    /// Told of each advert of a stranger shed while the reader was behind
    /// (see `BlueZScanner.init`); on the connection's loop, so it must be quick.
    public var onShed: @Sendable () -> Void = {}
    /// Devices tracked at most; beyond it the longest-unseen are dropped.
    public var maxDevices = 4096
    /// Attempts to start discovery when BlueZ refuses (InProgress, NotReady,
    /// UnknownObject while an adapter settles); AccessDenied is not retried.
    public var discoveryAttempts = 5
    /// Wait before retry n is n times this.
    public var retryDelay: Duration = .milliseconds(200)
    /// How long bluetoothd gets to answer for its objects. One that lets
    /// the call time out is asked again after `unansweredRetry`, doubling to
    /// at most 32 times that: no signal would say it has caught up.
    public var answerTimeout: Duration = .seconds(10)
    public var unansweredRetry: Duration = .seconds(1)

    public init(adapter: String? = nil, mode: ScanMode, watchdog: Duration, deviceExpiry: Duration) {
        self.adapter = adapter
        self.mode = mode
        self.watchdog = watchdog
        self.deviceExpiry = deviceExpiry
    }
}
