package import FoundationEssentials
import Logging
package import Vocabulary

extension GatewayStore {
    /// Adds `event` to the log, at `time` (now unless given); one the store
    /// cannot take is in the journal instead.
    package func note(_ event: Event, at time: Date = Date(), unsynced: (id: String, time: Double)? = nil) {
        BestEffort.write("record the \(event.kind.rawValue) event") { try record(event, at: time, unsynced: unsynced) }
    }
}
