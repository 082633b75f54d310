import FoundationEssentials
import Glibc

/// How an adapter is attached, from sysfs. The Raspberry Pi's built-in
/// adapter sits on a UART (driver hci_uart_bcm) shared with Wi-Fi
/// coexistence; under a heavy BLE scan load it drops adverts, which a USB
/// adapter does not.
package struct AdapterBus: Sendable, Equatable {
    package var adapter: String
    package var driver: String?
    package var onUART: Bool

    /// `adapter` is a name such as hci0, or empty for the first adapter.
    package static func find(_ adapter: String, sysfs: String = "/sys") -> AdapterBus? {
        let base = sysfs + "/class/bluetooth"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).filter { $0.hasPrefix("hci") && !$0.contains(":") }.sorted()
        guard let name = adapter.hasPrefix("hci") ? names.first(where: { $0 == adapter }) : names.first else { return nil }
        let device = resolved(base + "/" + name + "/device") ?? ""
        let driver = resolved(base + "/" + name + "/device/driver").map { String($0.split(separator: "/").last ?? "") }
        let onUART = driver?.hasPrefix("hci_uart") == true || device.contains("/serial")
        return AdapterBus(adapter: name, driver: driver, onUART: onUART)
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
