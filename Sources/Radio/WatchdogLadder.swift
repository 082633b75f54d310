/// The scan watchdog's recovery ladder as a pure decision: what the
/// scanner does when another watchdog period passed with no advert, and
/// when adverts come back. No clock and no bus: the scanner feeds it and
/// carries out what it says (`BlueZScanner.watchdogLoop`).
///
/// One step per silent period: restart discovery; power-cycle the adapter;
/// lift soft rfkill blocks and power-cycle again (passed over when nothing
/// was blocked); power-cycle it through the kernel (passed over without the
/// capability). Then the radio needs a real power cycle: that is reported
/// once, and discovery is restarted at a period doubling up to `backoffCap`
/// times. Under an advertisement monitor silence is normal, and the only
/// step is to start scanning again. An advert resets the ladder.
package struct WatchdogLadder: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        /// Under a monitor: register it (or discovery) again; the adapter is left alone.
        case restartScan
        case restartDiscovery
        case powerCycle
        /// Lift soft rfkill blocks; the scanner says how many it lifted (`unblocked`).
        case unblockRadio
        /// Blocks were lifted: power-cycle after them.
        case powerCycleUnblocked
        /// Power-cycle below bluetoothd, on the kernel's management channel.
        case kernelPowerCycle
        /// The ladder is over: report that the radio needs a real power cycle, and restart discovery.
        case reportNeedsPowerCycle
        /// Already reported: restart discovery, the period doubled.
        case probe

        /// The step a log line or an event names.
        package var step: ScannerEvent.WatchdogStep? {
            switch self {
            case .restartScan, .restartDiscovery: .restartDiscovery
            case .powerCycle: .powerCycle
            case .powerCycleUnblocked: .rfkillUnblock
            case .kernelPowerCycle: .mgmtPowerCycle
            case .reportNeedsPowerCycle: .needsPowerCycle
            case .unblockRadio, .probe: nil
            }
        }
    }

    /// Silent periods since the last advert.
    package private(set) var strikes = 0
    /// The watchdog period's multiplier while probing a radio that needs a power cycle.
    package private(set) var backoff = 1
    /// The ladder ended and no advert came since.
    package private(set) var radioNeedsPowerCycle = false
    let backoffCap: Int
    let kernelPowerCycle: Bool

    package init(backoffCap: Int, kernelPowerCycle: Bool) {
        self.backoffCap = max(backoffCap, 1)
        self.kernelPowerCycle = kernelPowerCycle
    }

    /// An advert came since the last silent period: back to the first step.
    /// True when the radio had been reported as needing a power cycle (it recovered).
    package mutating func advertHeard() -> Bool {
        let recovered = radioNeedsPowerCycle
        (strikes, backoff, radioNeedsPowerCycle) = (0, 1, false)
        return recovered
    }

    /// Another watchdog period passed with no advert.
    package mutating func silence(underMonitor: Bool) -> Action {
        if underMonitor {
            strikes = 0
            return .restartScan
        }
        strikes += 1
        return step()
    }

    /// What the rfkill step found: with nothing unblocked it is passed over.
    package mutating func unblocked(_ count: Int) -> Action {
        guard count == 0 else { return .powerCycleUnblocked }
        strikes = 4
        return step()
    }

    private mutating func step() -> Action {
        if strikes == 4, !kernelPowerCycle { strikes = 5 }
        switch strikes {
        case 1: return .restartDiscovery
        case 2: return .powerCycle
        case 3: return .unblockRadio
        case 4: return .kernelPowerCycle
        default:
            guard radioNeedsPowerCycle else {
                radioNeedsPowerCycle = true
                return .reportNeedsPowerCycle
            }
            backoff = min(backoff * 2, backoffCap)
            return .probe
        }
    }
}
