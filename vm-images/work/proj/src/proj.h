/* proj.h: a small freestanding C project (no libc) that the coding workload unpacks, edits, builds with tcc and tests
   inside the guest. Linux x86-64 system calls only. */
typedef unsigned long u64;
typedef unsigned int u32;

long sys_read(int fd, void *buf, u64 n);
long sys_write(int fd, const void *buf, u64 n);
void sys_exit(int code);

u64 slen(const char *s);
int seq(const char *a, const char *b);
u64 atou(const char *s);
int utoa(u64 v, char *out);
int hex64(u64 v, char *out);
void out(int fd, const char *s);

u64 fnv1a(const void *p, u64 n, u64 h);
u64 mix(u64 x);

typedef struct {
  u64 keys[2048];
  u64 vals[2048];
  u32 used;
} table;
void table_init(table *t);
int table_put(table *t, u64 key, u64 val);
int table_get(const table *t, u64 key, u64 *val);

void sort_u64(u64 *a, u64 n);
int sorted(const u64 *a, u64 n);

u64 rng_next(u64 *state);
