internal import CCrypto

/// AES-CCM authenticated encryption from OpenSSL's libcrypto
/// (`EVP_aes_128_ccm`), with no associated data.
public enum AESCCM {
    /// Decrypts and verifies; nil when the tag does not match (wrong key,
    /// tampered or truncated packet).
    public static func open(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        guard [4, 6, 8, 10, 12, 14, 16].contains(tag.count) else { return nil }
        var plaintext = [UInt8](repeating: 0, count: max(ciphertext.count, 1))
        let count = ccrypto_aes_ccm_decrypt(
            key, Int32(key.count), nonce, Int32(nonce.count),
            ciphertext, Int32(ciphertext.count), tag, Int32(tag.count), &plaintext)
        guard count == ciphertext.count else { return nil }
        return Array(plaintext.prefix(Int(count)))
    }

    /// Encrypts; returns the ciphertext and a tag of `tagLength` bytes.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], tagLength: Int = 4) -> (ciphertext: [UInt8], tag: [UInt8])? {
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard ccrypto_aes_ccm_encrypt(
            key, Int32(key.count), nonce, Int32(nonce.count),
            plaintext, Int32(plaintext.count), &ciphertext, &tag, Int32(tagLength)) == 0 else { return nil }
        return (Array(ciphertext.prefix(plaintext.count)), tag)
    }
}
