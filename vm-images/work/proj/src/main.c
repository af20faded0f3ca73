/* main.c: `proj test <iter>` runs the tests and prints `ok <iter> <digest>` (the build must be of iteration <iter>);
   `proj serve` answers each line on stdin with how many lines it has read (a long-running process with state). */
#include "proj.h"
#include "version.h"

static table t;
static u64 nums[4000];

static int fail(const char *what) {
  out(1, "FAIL ");
  out(1, what);
  out(1, "\n");
  return 1;
}

static int test(u64 iter) {
  char buf[64];
  u64 seed = 0x9e3779b97f4a7c15UL ^ iter, digest = 0, v;
  if (ITER != iter) return fail("version: the build is not of this iteration");
  table_init(&t);
  for (u64 i = 1; i <= 1500; i++)
    if (table_put(&t, mix(i + iter), i) != 1) return fail("table put");
  for (u64 i = 1; i <= 1500; i++) {
    if (!table_get(&t, mix(i + iter), &v) || v != i) return fail("table get");
    digest = fnv1a(&v, sizeof v, digest);
  }
  if (table_get(&t, mix(1501 + iter), &v)) return fail("table: a key never put was found");
  for (u64 i = 0; i < 4000; i++) nums[i] = rng_next(&seed) % 100000;
  sort_u64(nums, 4000);
  if (!sorted(nums, 4000)) return fail("sort");
  digest = fnv1a(nums, sizeof nums, digest);
  if (atou("12345") != 12345 || !seq("abc", "abc") || seq("abc", "abd")) return fail("str");
  out(1, "ok ");
  utoa(iter, buf);
  out(1, buf);
  out(1, " ");
  hex64(digest, buf);
  out(1, buf);
  out(1, "\n");
  return 0;
}

static int serve(void) {
  char c, buf[32];
  u64 lines = 0;
  for (;;) {
    long r = sys_read(0, &c, 1);
    if (r <= 0) return 0;
    if (c == 'q') return 0;
    if (c != '\n') continue;
    lines++;
    int n = utoa(lines, buf);
    buf[n++] = '\n';
    sys_write(1, buf, (u64)n);
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && seq(argv[1], "test")) return test(atou(argv[2]));
  if (argc == 2 && seq(argv[1], "serve")) return serve();
  out(2, "usage: proj test <iter> | proj serve\n");
  return 2;
}
