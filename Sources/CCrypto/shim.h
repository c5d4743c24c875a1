#ifndef GALLERY_CCRYPTO_SHIM_H
#define GALLERY_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/// SHA-256 of a buffer into `digest` (32 bytes); 1 on success. OpenSSL's implementation uses
/// the CPU's SHA extensions where present: hashing a 5 MB photo costs milliseconds.
/// Wrapper around EVP_Digest(..., EVP_sha256(), NULL).
static inline int CCrypto_sha256(const void *data, size_t length, unsigned char *digest) {
  unsigned int size = 0;
  return EVP_Digest(data, length, digest, &size, EVP_sha256(), NULL) == 1 && size == 32;
}
#endif
