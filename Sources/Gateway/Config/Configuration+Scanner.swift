import BlueZ

extension Configuration.Bluetooth {
    /// The scanner's options from `[Bluetooth]`, with discovery cycled every `cycle`.
    func scannerOptions(cycle: Duration) -> ScannerOptions {
        var options = ScannerOptions(adapter: adapter)
        options.mode = scanMode
        options.cycle = cycle
        options.watchdog = scanWatchdog
        options.deviceExpiry = deviceExpiry
        return options
    }
}
