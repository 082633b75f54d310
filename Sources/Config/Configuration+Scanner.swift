public import BlueZ
import BluetoothKernel
import Radio

extension Configuration.Bluetooth {
    /// The scanner's options from `[Bluetooth]`, with discovery cycled every `cycle`.
    public func scannerOptions(cycle: Duration) -> ScannerOptions {
        var options = ScannerOptions(adapter: adapter, mode: scanMode, watchdog: scanWatchdog, deviceExpiry: deviceExpiry)
        options.cycle = cycle
        // A USB adapter before the Pi's UART one, which drops adverts under load.
        options.adapterRank = { name in AdapterBus.find(name.rawValue)?.onUART == true ? 1 : 0 }
        // Removed at stop; the daemon also keeps their handles (ScannerService).
        options.kernelMonitors = KernelMonitors.ifPermitted(record: nil)
        return options
    }
}
