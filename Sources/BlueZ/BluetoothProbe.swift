package import DBus
import Radio
package import Vocabulary

/// Checks what the Bluetooth side of recording needs, through BlueZ.
package struct BluetoothProbe {
    package var adapter: String?

    package init(adapter: String?) { self.adapter = adapter }

    package func missing(on connection: DBusConnection?) async -> [Requirement] {
        Requirement.missing(for: await BlueZScanner<ContinuousClock>.probe(connection, adapter: adapter))
    }
}
