import BlueZ
import DBus

/// Checks what the Bluetooth side of recording needs, through BlueZ.
struct BluetoothProbe {
    var adapter: String?

    func missing(on connection: DBusConnection?) async -> [Requirement] {
        Requirement.missing(for: await BlueZScanner<ContinuousClock>.probe(connection, adapter: adapter))
    }
}

extension Requirement {
    /// The requirements a scanner state says are missing.
    static func missing(for state: BluetoothState) -> [Requirement] {
        switch state {
        case .scanning, .starting: []
        case .serviceAbsent: [.bluetoothService]
        case .accessDenied: [.bluetoothAccess]
        case .noAdapter: [.bluetoothAdapter]
        case .poweredOff: [.adapterPowered]
        case .busUnavailable: [.systemBus]
        }
    }
}
