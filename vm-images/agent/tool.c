/* tool.c: the long-running tool process; keeps its own digest chain t_N = sha256(t_{N-1} ":" N), one command per step. */
#include "tool.h"
#include "sha256.h"
#include <stdio.h>
#include <string.h>

/* Protocol, one line each way: "S <n>" -> advance to step n, reply "A <n>"; "Q" -> reply "T <step> <digest>". */
int tool_main(FILE *in, FILE *out) {
  char digest[65], buf[128], line[256];
  unsigned long step = 0;
  sha256_hex("tool:0", 6, digest);
  while (fgets(line, sizeof line, in) != NULL) {
    unsigned long n;
    if (sscanf(line, "S %lu", &n) == 1) {
      if (n != step + 1) { fprintf(out, "E expected %lu got %lu\n", step + 1, n); fflush(out); continue; }
      int len = snprintf(buf, sizeof buf, "%s:%lu", digest, n);
      sha256_hex(buf, (size_t)len, digest);
      step = n;
      fprintf(out, "A %lu\n", step);
    } else if (line[0] == 'Q') {
      fprintf(out, "T %lu %s\n", step, digest);
    } else {
      fprintf(out, "E bad command\n");
    }
    fflush(out);
  }
  return 0;
}
