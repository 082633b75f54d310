import BlueZ
import DBus
import PeerHarness
import Radio

extension BlueZScanner {
    /// Starts the scanner and runs its loops, as a service would, until `stop()`.
    func startRunning() async throws(DBusError) {
        try await start()
        Task { await self.run() }
    }
}

extension BlueZTestRig {
    /// The BlueZ mock with hci0, a test clock, and the documented options in
    /// active mode: what the timed scanner tests start from. The caller stops the rig.
    static func activeOnTestClock() async throws -> (rig: BlueZTestRig, clock: TestClock, options: ScannerOptions) {
        let rig = try await BlueZTestRig()
        try await rig.addAdapter()
        var options = ScannerOptions.documented
        options.mode = .active
        return (rig, TestClock(), options)
    }
}
