/* table.c: an open-addressing hash table of u64 keys (0 is the empty key). rev 0 */
#include "proj.h"

#define CAP 2048

void table_init(table *t) {
  for (u32 i = 0; i < CAP; i++) t->keys[i] = 0, t->vals[i] = 0;
  t->used = 0;
}

int table_put(table *t, u64 key, u64 val) {
  if (key == 0 || t->used >= CAP - 1) return -1;
  for (u64 i = mix(key) % CAP;; i = (i + 1) % CAP) {
    if (t->keys[i] == key) {
      t->vals[i] = val;
      return 0;
    }
    if (t->keys[i] == 0) {
      t->keys[i] = key;
      t->vals[i] = val;
      t->used++;
      return 1;
    }
  }
}

int table_get(const table *t, u64 key, u64 *val) {
  if (key == 0) return 0;
  for (u64 i = mix(key) % CAP;; i = (i + 1) % CAP) {
    if (t->keys[i] == key) {
      *val = t->vals[i];
      return 1;
    }
    if (t->keys[i] == 0) return 0;
  }
}
