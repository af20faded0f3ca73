/* sort.c: shell sort (Ciura's gaps) and a check. rev 0 */
#include "proj.h"

void sort_u64(u64 *a, u64 n) {
  static const u64 gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (int g = 0; g < 8; g++) {
    u64 gap = gaps[g];
    for (u64 i = gap; i < n; i++) {
      u64 v = a[i], j = i;
      while (j >= gap && a[j - gap] > v) a[j] = a[j - gap], j -= gap;
      a[j] = v;
    }
  }
}

int sorted(const u64 *a, u64 n) {
  for (u64 i = 1; i < n; i++)
    if (a[i - 1] > a[i]) return 0;
  return 1;
}

u64 rng_next(u64 *s) {
  u64 x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}
