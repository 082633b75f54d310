package import Config
import Logging
import Session
package import Store

extension PushedSettings {
    /// The settings last fetched from the fleet, as the store holds them:
    /// merged here, where the daemon and `status` compose their parts.
    package init(storedIn store: GatewayStore) {
        self.init(BestEffort.read("the fleet's settings", or: RemoteSettings?.none) { try SessionStore(database: store.database).settings() })
    }
}
