package import Cipher
import Synchronization
package import Vocabulary

/// Resolves private addresses to the paired identities whose IRKs made
/// them. Each address is checked once: the answer, found or not, is kept,
/// so a stranger's RPA in busy air costs one AES block per IRK, once.
package final class PrivateAddressResolver: Sendable {
    private let keys: [(identity: DeviceIdentity, key: IdentityResolvingKey)]
    private let cache = Mutex<[UInt64: DeviceIdentity?]>([:])
    private let blocks = Atomic<Int>(0)
    /// Answers kept at most; the cache starts over when full.
    static let capacity = 4096

    package init(_ keys: [(identity: DeviceIdentity, key: IdentityResolvingKey)]) {
        self.keys = keys
    }

    /// The identity of the paired key that made `address`, or nil. An
    /// address of unknown type is tried too, if its top bits are 01.
    package func identity(of address: BluetoothAddress) -> DeviceIdentity? {
        let candidate = BluetoothAddress(value: address.value, kind: .random)
        guard !keys.isEmpty, address.kind != .public, candidate.randomKind == .resolvable else { return nil }
        if let known = cache.withLock({ $0[address.value] }) { return known }
        var found: DeviceIdentity?
        for (identity, key) in keys {
            blocks.add(1, ordering: .relaxed)
            if key.resolves(address.value) { found = identity; break }
        }
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[address.value] = .some(found)
        }
        return found
    }

    /// AES blocks computed so far: what resolving has cost.
    package var blocksComputed: Int { blocks.load(ordering: .relaxed) }
}
