public import Bluetooth

/// Tunables of `BlueZScanner`; the config file's `[Bluetooth]` section.
public struct ScannerOptions: Sendable {
    /// `hci0` or an adapter address; nil for the first adapter.
    public var adapter: String?
    public var mode: ScanMode = .auto
    /// Discovery is stopped and started again this often, so the controller
    /// forgets which advertisers it already reported. The daemon uses a
    /// quarter of its `BeaconInterval`.
    public var cycle: Duration = .seconds(5)
    /// Opens the management channel (replaced by a replay in benchmarks).
    public var managementChannel: @Sendable () throws(ManagementSocketError) -> ManagementSocket = {
        () throws(ManagementSocketError) in try ManagementSocket.openControlChannel()
    }
    /// With discovery on and no advert for this long, restart discovery; if
    /// that brings nothing, power-cycle the adapter.
    public var watchdog: Duration = .seconds(60)
    /// Unpaired devices unseen this long are removed from BlueZ.
    public var deviceExpiry: Duration = .seconds(300)
    /// Devices tracked at most; beyond it the longest-unseen are dropped.
    public var maxDevices = 4096
    /// Attempts to start discovery when BlueZ refuses (InProgress, NotReady,
    /// UnknownObject while an adapter settles); AccessDenied is not retried.
    public var discoveryAttempts = 5
    /// Wait before retry n is n times this.
    public var retryDelay: Duration = .milliseconds(200)

    public init(adapter: String? = nil) { self.adapter = adapter }
}
