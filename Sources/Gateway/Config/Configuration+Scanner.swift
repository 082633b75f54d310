public import BlueZ

extension Configuration.Bluetooth {
    /// The scanner's options from `[Bluetooth]`, with discovery cycled every `cycle`.
    public func scannerOptions(cycle: Duration) -> ScannerOptions {
        var options = ScannerOptions(adapter: adapter, mode: scanMode, watchdog: scanWatchdog, deviceExpiry: deviceExpiry)
        options.cycle = cycle
        return options
    }
}
