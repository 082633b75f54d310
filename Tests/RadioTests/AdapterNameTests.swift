import Radio
import Testing

/// An adapter named from its BlueZ object path, and the controller index
/// the management channel knows it by.
struct AdapterNameTests {
    @Test func anAdapterIsNamedAfterTheLastPartOfItsPath() {
        #expect(AdapterName(path: "/org/bluez/hci0") == "hci0")
        #expect(AdapterName(path: "hci1").rawValue == "hci1")
        #expect(AdapterName(path: "/org/bluez/hci12").controllerIndex == 12)
    }

    @Test func onlyAnHciNameHasAControllerIndex() {
        for name in ["hci", "hcix", "usb0", "hci-1", "hci65536", ""] {
            #expect(AdapterName(rawValue: name).controllerIndex == nil, "\(name)")
        }
        #expect(AdapterName(rawValue: "hci65535").controllerIndex == 65535)
    }

    @Test func onlyTheScannersOwnStartIsNotARestart() {
        #expect(!DiscoveryReason.start.isRestart)
        let restarts: [DiscoveryReason] = [.bluetoothdReturned, .adapterAdded, .adapterRemoved, .adapterPoweredOff("hci0"), .adapterPoweredOn("hci1"),
                                           .stoppedByBlueZ, .cycleRefused("busy"), .scanModeChanged, .monitorsFailed("released"),
                                           .watchdogSilence, .watchdogPowerCycled, .watchdogProbe]
        #expect(restarts.allSatisfy { $0.isRestart })
        #expect(DiscoveryReason.adapterPoweredOn("hci1").description == "adapter hci1 powered on")
    }
}
