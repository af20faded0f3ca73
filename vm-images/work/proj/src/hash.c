/* hash.c: FNV-1a and a 64-bit finaliser. rev 0 */
#include "proj.h"

u64 fnv1a(const void *p, u64 n, u64 h) {
  const unsigned char *b = p;
  if (h == 0) h = 0xcbf29ce484222325UL;
  for (u64 i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3UL;
  return h;
}

u64 mix(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdUL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53UL;
  x ^= x >> 33;
  return x;
}
