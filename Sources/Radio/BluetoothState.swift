/// What stands between the gateway and scanning, from BlueZ's side.
public enum BluetoothState: String, Sendable, Hashable {
    /// Discovery is running on the adapter.
    case scanning
    /// Everything is present; discovery is being (re)started.
    case starting
    /// Nothing owns `org.bluez`: bluetoothd is not running.
    case serviceAbsent = "service-absent"
    /// bluetoothd owns `org.bluez` but let a call time out: busy or hung.
    case serviceNotAnswering = "service-not-answering"
    /// D-Bus policy denies access to `org.bluez`.
    case accessDenied = "access-denied"
    /// No adapter, or not the configured one.
    case noAdapter = "no-adapter"
    /// The adapter is powered off (or rfkill-blocked).
    case poweredOff = "powered-off"
    /// The system bus itself is gone.
    case busUnavailable = "bus-unavailable"
    /// The scanner was stopped: nothing it started goes on, and no late
    /// answer changes its state again.
    case stopped
}
