/// Why the scanner (re)started scanning on an adapter.
public enum DiscoveryReason: Sendable, Equatable, CustomStringConvertible {
    /// The scanner itself started: the first scan, not a restart.
    case start
    case bluetoothdReturned
    /// bluetoothd answered again after letting a call time out.
    case bluetoothdAnswered
    case adapterAdded
    case adapterRemoved
    case adapterPoweredOff(AdapterName)
    case adapterPoweredOn(AdapterName)
    /// BlueZ stopped the discovery (another client's, or its own timeout).
    case stoppedByBlueZ
    /// Restarting a discovery cycle was refused; started again.
    case cycleRefused(String)
    case scanModeChanged
    /// Advertisement monitors stopped working: discovery instead.
    case monitorsFailed(String)
    /// The watchdog's first step: no adverts for its period.
    case watchdogSilence
    /// After the ladder's power cycles.
    case watchdogPowerCycled
    /// The ladder is over: discovery is probed at a growing period.
    case watchdogProbe

    /// Every reason but `start` restarts a scan that was running or meant to.
    public var isRestart: Bool { self != .start }

    public var description: String {
        switch self {
        case .start: "start"
        case .bluetoothdReturned: "bluetoothd returned"
        case .bluetoothdAnswered: "bluetoothd answered again"
        case .adapterAdded: "adapter added"
        case .adapterRemoved: "adapter removed"
        case .adapterPoweredOff(let adapter): "adapter \(adapter) powered off"
        case .adapterPoweredOn(let adapter): "adapter \(adapter) powered on"
        case .stoppedByBlueZ: "discovery stopped by BlueZ"
        case .cycleRefused(let error): "discovery cycle refused: \(error)"
        case .scanModeChanged: "scan mode changed"
        case .monitorsFailed(let why): why
        case .watchdogSilence: "watchdog: no adverts"
        case .watchdogPowerCycled: "watchdog: after power cycle"
        case .watchdogProbe: "watchdog: probing after the ladder"
        }
    }
}
