#ifndef WAYMARK_CCRYPTO_SHIM_H
#define WAYMARK_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/* AES-CCM through OpenSSL's EVP interface. The CCM control codes are macros,
   and the call order (IV length, tag, key, total length) is fixed, so the
   sequence lives here, for both directions: `tag` is the expected tag when
   decrypting and NULL (only its length counts) when encrypting. Returns 1
   when the context is ready for the data. */
static inline int ccrypto_aes_ccm_begin(EVP_CIPHER_CTX *ctx, int encrypt, const unsigned char *key, int key_len,
                                        const unsigned char *nonce, int nonce_len, int in_len,
                                        const unsigned char *tag, int tag_len) {
    const EVP_CIPHER *cipher = key_len == 16 ? EVP_aes_128_ccm() : key_len == 32 ? EVP_aes_256_ccm() : NULL;
    if (!cipher || nonce_len < 7 || nonce_len > 13 || in_len < 0) return 0;
    int len = 0;
    return EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, encrypt) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_CCM_SET_IVLEN, nonce_len, NULL) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_CCM_SET_TAG, tag_len, (void *)tag) == 1 &&
        EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, encrypt) == 1 &&
        EVP_CipherUpdate(ctx, NULL, &len, NULL, in_len) == 1;
}

/* Returns the plaintext length, or -1 when the tag does not verify or an
   argument is out of range. */
static inline int ccrypto_aes_ccm_decrypt(const unsigned char *key, int key_len,
                                          const unsigned char *nonce, int nonce_len,
                                          const unsigned char *in, int in_len,
                                          const unsigned char *tag, int tag_len,
                                          unsigned char *out) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return -1;
    int len = 0, ok = ccrypto_aes_ccm_begin(ctx, 0, key, key_len, nonce, nonce_len, in_len, tag, tag_len) &&
        EVP_DecryptUpdate(ctx, out, &len, in, in_len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? len : -1;
}

/* The inverse, for building test packets. Writes in_len bytes to out and
   tag_len bytes to tag; returns 0 on success. */
static inline int ccrypto_aes_ccm_encrypt(const unsigned char *key, int key_len,
                                          const unsigned char *nonce, int nonce_len,
                                          const unsigned char *in, int in_len,
                                          unsigned char *out, unsigned char *tag, int tag_len) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return -1;
    int len = 0, ok = ccrypto_aes_ccm_begin(ctx, 1, key, key_len, nonce, nonce_len, in_len, NULL, tag_len) &&
        EVP_EncryptUpdate(ctx, out, &len, in, in_len) == 1 &&
        EVP_EncryptFinal_ex(ctx, out + len, &len) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_CCM_GET_TAG, tag_len, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

/* One AES-128 block, for the Core specification's security function e():
   in and out are 16 bytes, most significant first. Returns 0 on success. */
static inline int ccrypto_aes128_block(const unsigned char *key, const unsigned char *in, unsigned char *out) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return -1;
    int len = 0, ok =
        EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, key, NULL) == 1 &&
        EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
        EVP_EncryptUpdate(ctx, out, &len, in, 16) == 1 && len == 16;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}
#endif
