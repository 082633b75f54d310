import MQTT
import PeerHarness
import Synchronization

/// The brokers a publisher said it connected to, in order, read from its
/// events; `next` waits for one after those already taken.
final class ConnectionLog: Sendable {
    private let list = Mutex<[BrokerAddress]>([])
    private let taken = Mutex(0)
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(_ events: AsyncStream<MQTTPublisher<ContinuousClock>.Event>) {
        let task = Task { [weak self] in
            for await case .connected(let broker) in events { self?.list.withLock { $0.append(broker) } }
        }
        reader.withLock { $0 = task }
    }

    deinit { reader.withLock { $0?.cancel() } }

    /// How many connections were made so far.
    var count: Int { list.withLock { $0.count } }

    /// The next broker connected to, within `timeout`.
    func next(_ what: String, within timeout: Duration = .seconds(30)) async throws -> BrokerAddress {
        let index = taken.withLock { $0 }
        let broker = try await withDeadline(timeout, what) {
            while true {
                if let broker = self.list.withLock({ $0.dropFirst(index).first }) { return broker }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        taken.withLock { $0 = index + 1 }
        return broker
    }
}
