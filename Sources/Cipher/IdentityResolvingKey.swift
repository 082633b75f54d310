internal import CCrypto

/// A device's Identity Resolving Key: what turns its Resolvable Private
/// Addresses, which change every few minutes, back into one identity.
///
/// An RPA is `prand` (its 24 most significant bits, the top two `01`) and
/// `hash = ah(IRK, prand)` (the 24 least significant). `ah` is the Core
/// specification's (Vol 3, Part H, 2.2.2): AES-128 of `prand` padded to 128
/// bits, keeping the low 24 bits.
///
/// The key is never printed: `description` shows only a fingerprint.
public struct IdentityResolvingKey: Sendable, Equatable, CustomStringConvertible {
    /// 16 bytes, most significant first, as the specification writes keys.
    private let key: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        key = bytes
    }

    /// `ah(k, r)`; nil only if libcrypto fails.
    public func hash(_ prand: UInt32) -> UInt32? {
        var block = [UInt8](repeating: 0, count: 16)
        block[13] = UInt8(truncatingIfNeeded: prand >> 16)
        block[14] = UInt8(truncatingIfNeeded: prand >> 8)
        block[15] = UInt8(truncatingIfNeeded: prand)
        guard let out = encrypt(block) else { return nil }
        return UInt32(out[13]) << 16 | UInt32(out[14]) << 8 | UInt32(out[15])
    }

    /// Whether `address` (48 bits, most significant first) is a resolvable
    /// private address made with this key.
    public func resolves(_ address: UInt64) -> Bool {
        guard Self.isResolvable(address) else { return false }
        return hash(UInt32(truncatingIfNeeded: address >> 24) & 0xFF_FFFF) == UInt32(truncatingIfNeeded: address) & 0xFF_FFFF
    }

    /// A resolvable private address from this key and 22 random bits.
    public func address(random: UInt32) -> UInt64? {
        let prand = 0x40_0000 | random & 0x3F_FFFF
        return hash(prand).map { UInt64(prand) << 24 | UInt64($0) }
    }

    /// The two most significant bits are `01`.
    public static func isResolvable(_ address: UInt64) -> Bool { address >> 46 == 0b01 }

    /// Eight hex digits that name the key without revealing it: the start
    /// of AES-128 of a zero block under it.
    public var fingerprint: String {
        let out = encrypt([UInt8](repeating: 0, count: 16)) ?? []
        return out.prefix(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    public var description: String { "IRK \(fingerprint)" }

    private func encrypt(_ block: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 16)
        return ccrypto_aes128_block(key, block, &out) == 0 ? out : nil
    }
}
