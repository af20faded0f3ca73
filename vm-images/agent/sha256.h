/* sha256.h: minimal SHA-256 (FIPS 180-4) for the guest agent; hex digest helper. */
#ifndef SOAK_SHA256_H
#define SOAK_SHA256_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t used;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);
/* Lowercase hex digest of data into out (65 bytes incl. NUL). */
void sha256_hex(const void *data, size_t n, char out[65]);
void sha256_final_hex(sha256_ctx *c, char out[65]);

#endif
