import Synchronization

/// A Boolean that an actor sets and another queue reads.
final class SharedFlag: Sendable {
    private let state: Mutex<Bool>

    init(_ value: Bool) { state = Mutex(value) }

    var value: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
