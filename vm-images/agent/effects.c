/* effects.c: the guest agent's external effects (issue 34, docs/effects.md). The guest has no network: at the seeded
   steps it writes one request line per key discipline on its console ("EFX <session> <effect> <discipline> <key|-> <step>")
   and blocks until the host's relay writes back "efa <effect> <seq> <0|1>" (applied or deduplicated by its key), or
   "efr <effect>" (the ledger refused it: a bug, the agent stops). Restored mid-request (the host's full-heartbeat
   request says so), or no reply within RETRY_MS of guest time: the request again (the world may then hold it twice:
   what the accounting counts). Only then is the effect counted; a full heartbeat claims only effect steps all of whose
   effects were acknowledged, so a checkpoint taken mid-request claims what it held before that step. */
#define _GNU_SOURCE
#include "effects.h"
#include "sha256.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define RETRY_MS 1000

static const char *const DISC[3] = {"step-key", "random-key", "no-key"};
static int on;
static char seed[24], file[512];
static unsigned long every;
/* What a checkpoint carries: every effect acknowledged through step `through`, counted by discipline. */
static unsigned long through, acked[3];

static void fail(const char *what, const effects_io *io) {
  char out[160];
  int len = snprintf(out, sizeof out, "AGENT-ERROR effects: %s\n", what);
  io->write(out, (size_t)len);
  exit(1);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void effects_init(const char *spec, const char *workspace) {
  const char *colon = spec ? strchr(spec, ':') : NULL;
  size_t n = colon ? (size_t)(colon - spec) : 0;
  if (!spec || !*spec) return;
  every = colon ? strtoul(colon + 1, NULL, 10) : 0;
  if (n == 0 || n >= sizeof seed || strspn(spec, "-0123456789") != n || every == 0) {
    fprintf(stderr, "AGENT-ERROR effects: SOAK_EFFECTS=%.40s is not <seed>:<everySteps>\n", spec);
    exit(2);
  }
  memcpy(seed, spec, n);
  seed[n] = 0;
  snprintf(file, sizeof file, "%s/effects.txt", workspace);
  on = 1;
}

/* The seeded-step rule of harness/effects/plan.ts: the first 4 bytes of sha256("effects:<seed>:<n>") % every == 0. */
static int is_effect_step(unsigned long n) {
  char buf[64], hex[65], first[9];
  if (n < 1) return 0;
  int len = snprintf(buf, sizeof buf, "effects:%s:%lu", seed, n);
  sha256_hex(buf, (size_t)len, hex);
  memcpy(first, hex, 8);
  first[8] = 0;
  return strtoul(first, NULL, 16) % every == 0;
}

static void key_of(int d, unsigned long n, const char *nonce, char key[33], const effects_io *io) {
  char buf[96], hex[65];
  unsigned char rnd[16];
  if (d == 0) { /* step-key: sha256("effect:<nonce>:<n>:step-key"), first 32 hex characters */
    int len = snprintf(buf, sizeof buf, "effect:%s:%lu:step-key", nonce, n);
    sha256_hex(buf, (size_t)len, hex);
    memcpy(key, hex, 32);
    key[32] = 0;
  } else if (d == 1) { /* random-key: 16 bytes from the kernel, drawn when the call is made */
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) fail("getrandom", io);
    for (int i = 0; i < 16; i++) snprintf(key + 2 * i, 3, "%02x", rnd[i]);
  } else {
    strcpy(key, "-");
  }
}

/* Send request d of step n until the relay answers it: its seq and whether the world applied it. A full-heartbeat
   request ('F') meanwhile is also what the host writes after a restore, when the reply may be gone with the old
   guest: the request is sent again at once (the relay answers a repeat it already acknowledged from its memory). Other
   command bytes go to io->command; reply lines are lower case, so no command byte is ever part of one. */
static int emit(int d, unsigned long n, const char *nonce, const char *effect, unsigned long long *seq,
                const effects_io *io) {
  char line[128], key[33], req[192];
  size_t ln = 0;
  for (;;) {
    key_of(d, n, nonce, key, io); /* random-key: a new key for every request, as the discipline says */
    int len = snprintf(req, sizeof req, "EFX %s %s %s %s %lu\n", nonce, effect, DISC[d], key, n);
    io->write(req, (size_t)len);
    long long deadline = now_ms() + RETRY_MS;
    while (deadline > now_ms()) {
      struct pollfd p = {.fd = io->in, .events = POLLIN};
      int r = poll(&p, 1, (int)(deadline - now_ms()));
      if (r < 0 && errno != EINTR) fail("console poll", io);
      if (r <= 0) continue;
      char in[64];
      ssize_t got = read(io->in, in, sizeof in);
      if (got < 0) { if (errno == EINTR || errno == EAGAIN) continue; fail("console read", io); }
      if (got == 0) exit(0); /* the console closed: nobody is listening any more */
      for (ssize_t i = 0; i < got; i++) {
        char c = in[i];
        if (c == 'F' || c == 'H' || c == 'R') {
          io->command(c);
          if (c == 'F') deadline = 0; /* send again once the bytes read so far are handled */
          continue;
        }
        if (c != '\n') { if (ln < sizeof line - 1) line[ln++] = c; continue; }
        line[ln] = 0;
        ln = 0;
        char eff[48];
        int applied;
        if (sscanf(line, "efa %47s %llu %d", eff, seq, &applied) == 3 && strcmp(eff, effect) == 0) return applied;
        if (sscanf(line, "efr %47s", eff) == 1 && strcmp(eff, effect) == 0) fail("the ledger refused a request", io);
        /* anything else (a stale reply to an earlier send, noise) is dropped */
      }
    }
  }
}

void effects_at_step(unsigned long n, const char *nonce, const effects_io *io) {
  if (!on || !is_effect_step(n)) return;
  unsigned long done[3] = {0, 0, 0};
  for (int d = 0; d < 3; d++) {
    char effect[48], rec[96];
    snprintf(effect, sizeof effect, "%s:%lu", DISC[d], n);
    unsigned long long seq = 0;
    int applied = emit(d, n, nonce, effect, &seq, io);
    done[d] = 1;
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      int rl = snprintf(rec, sizeof rec, "%s seq %llu %s\n", effect, seq, applied ? "applied" : "deduplicated");
      if (write(fd, rec, (size_t)rl) < 0) { /* the record is for people: the count below is the state */ }
      close(fd);
    }
  }
  for (int d = 0; d < 3; d++) acked[d] += done[d];
  through = n;
}

void effects_claim(char *out, size_t size) {
  if (!on) { out[0] = 0; return; }
  snprintf(out, size, " E %lu %lu %lu %lu", through, acked[0], acked[1], acked[2]);
}
