import BluetoothKernel
package import Cipher
import Synchronization
package import Vocabulary

/// Resolves private addresses to the paired identities whose IRKs made
/// them. Each address is checked once: the answer, found or not, is kept,
/// so a stranger's RPA in busy air costs one AES block per IRK, once.
package final class PrivateAddressResolver: Sendable {
    private let keys: [(identity: DeviceIdentity, key: IdentityResolvingKey)]
    private let cache = Mutex<[String: DeviceIdentity?]>([:])
    private let blocks = Atomic<Int>(0)
    /// Answers kept at most; the cache starts over when full.
    static let capacity = 4096

    package init(_ keys: [(identity: DeviceIdentity, key: IdentityResolvingKey)]) {
        self.keys = keys
    }

    /// The identity of the paired key that made `address`
    /// (`AA:BB:CC:DD:EE:FF`), or nil.
    package func identity(of address: String) -> DeviceIdentity? {
        // Resolvable private addresses start with 4 to 7 (top bits 01).
        guard !keys.isEmpty, let first = address.utf8.first, (UInt8(ascii: "4")...UInt8(ascii: "7")).contains(first) else { return nil }
        if let known = cache.withLock({ $0[address] }) { return known }
        var found: DeviceIdentity?
        if let parsed = BluetoothAddress(address) {
            for (identity, key) in keys {
                blocks.add(1, ordering: .relaxed)
                if key.resolves(parsed.value) { found = identity; break }
            }
        }
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[address] = .some(found)
        }
        return found
    }

    /// AES blocks computed so far: what resolving has cost.
    package var blocksComputed: Int { blocks.load(ordering: .relaxed) }
}
