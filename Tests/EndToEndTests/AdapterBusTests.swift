@testable import BlueZ
@testable import BluetoothKernel
import Foundation
import PeerHarness
import Testing

/// The doctor's UART warning, from a sysfs laid out as a Raspberry Pi's
/// (the built-in adapter is a serdev child of the UART, bound to
/// hci_uart_bcm) next to a USB dongle bound to btusb.
struct AdapterBusTests {
    @Test func thePisBuiltInAdapterIsOnAUARTAndAUSBDongleIsNot() throws {
        let sysfs = try TemporaryDirectory("waymark-sysfs")
        defer { sysfs.remove() }
        let files = FileManager.default
        func link(_ path: String, to target: String) throws {
            try files.createDirectory(atPath: (sysfs.file(path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try files.createSymbolicLink(atPath: sysfs.file(path), withDestinationPath: target)
        }
        let uart = "devices/platform/soc/fe201000.serial/serial0/serial0-0"
        let usb = "devices/platform/scb/fd500000.pcie/pci0000:00/0000:01:00.0/usb1/1-1/1-1.3/1-1.3:1.0"
        for (device, driver, adapter) in [(uart, "serial/drivers/hci_uart_bcm", "hci0"), (usb, "usb/drivers/btusb", "hci1")] {
            try files.createDirectory(atPath: sysfs.file("\(device)/bluetooth/\(adapter)"), withIntermediateDirectories: true)
            try files.createDirectory(atPath: sysfs.file("bus/\(driver)"), withIntermediateDirectories: true)
            try link("\(device)/driver", to: sysfs.file("bus/\(driver)"))
            try link("\(device)/bluetooth/\(adapter)/device", to: sysfs.file(device))
            try link("class/bluetooth/\(adapter)", to: sysfs.file("\(device)/bluetooth/\(adapter)"))
        }

        #expect(AdapterBus.find("", sysfs: sysfs.path) == AdapterBus(adapter: "hci0", driver: "hci_uart_bcm", onUART: true))
        #expect(AdapterBus.find("hci1", sysfs: sysfs.path) == AdapterBus(adapter: "hci1", driver: "btusb", onUART: false))
        #expect(AdapterBus.find("hci2", sysfs: sysfs.path) == nil)
    }
}

/// The doctor asks bluetoothd itself for its version.
struct BluetoothServiceTests {
    @Test func bluetoothdReportsItsVersion() throws {
        let program = "/usr/libexec/bluetooth/bluetoothd"
        _ = try ChildProcess.locate(program, aptPackage: "bluez")
        let version = try #require(BluetoothService.version(of: program))
        #expect(version.split(separator: ".").count == 2, "\(version)")
        #expect(BluetoothService(program: program, pid: 1, version: version).isSupported)
        #expect(!BluetoothService(program: program, pid: 1, version: "5.49").isSupported)
    }
}
