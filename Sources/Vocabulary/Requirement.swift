/// Something the OS can take away that recording needs.
public enum Requirement: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// The system D-Bus is not reachable.
    case systemBus = "system-bus"
    /// bluetoothd does not own `org.bluez`, or does not answer on it.
    case bluetoothService = "bluetooth-service"
    /// D-Bus policy denies this user access to `org.bluez`.
    case bluetoothAccess = "bluetooth-access"
    /// No Bluetooth adapter (or not the configured one).
    case bluetoothAdapter = "bluetooth-adapter"
    /// The adapter is powered off or rfkill-blocked.
    case adapterPowered = "adapter-powered"
    /// gpsd (or the NMEA device) cannot be reached.
    case location = "location"
    /// The store cannot take more samples (the disk is full).
    case storage = "storage"

    /// What to do about it, for logs and `status`.
    public var hint: String {
        switch self {
        case .systemBus: "the system D-Bus is not running (systemctl start dbus)"
        case .bluetoothService: "bluetoothd is not running or does not answer (apt install bluez; systemctl restart bluetooth)"
        case .bluetoothAccess: "D-Bus policy denies access to org.bluez (install the waymark D-Bus policy, or add the user to the bluetooth group)"
        case .bluetoothAdapter: "no Bluetooth adapter found (check [Bluetooth] Adapter, lsusb, dmesg)"
        case .adapterPowered: "the adapter is off (bluetoothctl power on; rfkill unblock bluetooth)"
        case .location: "the location source is unreachable (systemctl start gpsd, or check [Location] Source)"
        case .storage: "the store cannot be written: free disk space under the data directory, then reload (systemctl reload waymark)"
        }
    }

    public static func < (lhs: Requirement, rhs: Requirement) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
