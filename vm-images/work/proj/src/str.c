/* str.c: string helpers. rev 0 */
#include "proj.h"

u64 slen(const char *s) {
  u64 n = 0;
  while (s[n]) n++;
  return n;
}

int seq(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

u64 atou(const char *s) {
  u64 v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + (u64)(*s++ - '0');
  return v;
}

int utoa(u64 v, char *out) {
  char tmp[24];
  int n = 0, i = 0;
  do tmp[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  while (n) out[i++] = tmp[--n];
  out[i] = 0;
  return i;
}

int hex64(u64 v, char *out) {
  const char *d = "0123456789abcdef";
  for (int i = 15; i >= 0; i--) out[15 - i] = d[(v >> (i * 4)) & 15];
  out[16] = 0;
  return 16;
}

void out(int fd, const char *s) { sys_write(fd, s, slen(s)); }
