package import BlueZ
package import DBus
package import Vocabulary

/// Checks what the Bluetooth side of recording needs, through BlueZ.
package struct BluetoothProbe {
    package var adapter: String?

    package init(adapter: String?) { self.adapter = adapter }

    package func missing(on connection: DBusConnection?) async -> [Requirement] {
        Requirement.missing(for: await BlueZScanner<ContinuousClock>.probe(connection, adapter: adapter))
    }
}

extension Requirement {
    /// The requirements a scanner state says are missing.
    package static func missing(for state: BluetoothState) -> [Requirement] {
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
