import Logging
package import Vocabulary

extension GatewayStore {
    /// Adds `event` to the log; one the store cannot take is in the journal instead.
    package func note(_ event: Event) {
        BestEffort.write("record the \(event.kind.rawValue) event") { try record(event) }
    }
}
