public import Vocabulary

extension Requirement {
    /// The requirements a scanner state says are missing.
    public static func missing(for state: BluetoothState) -> [Requirement] {
        switch state {
        case .scanning, .starting: []
        case .serviceAbsent, .serviceNotAnswering: [.bluetoothService]
        case .accessDenied: [.bluetoothAccess]
        case .noAdapter: [.bluetoothAdapter]
        case .poweredOff: [.adapterPowered]
        case .busUnavailable: [.systemBus]
        case .stopped: []
        }
    }
}
