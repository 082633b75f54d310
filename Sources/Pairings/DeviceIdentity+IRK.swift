import Cipher
package import Vocabulary

extension DeviceIdentity {
    /// The identity of a device that resolves its private addresses with
    /// the 16-byte `key` (its IRK), named by the key's fingerprint; nil for
    /// a key of any other length.
    package static func resolving(with key: [UInt8]) -> DeviceIdentity? {
        IdentityResolvingKey(key).map { .irk(fingerprint: $0.fingerprint) }
    }
}
