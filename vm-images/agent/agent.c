/* agent.c: the deterministic guest workload (boot nonce, memory chain, tool process, log.txt) and its heartbeats on the console. */
#define _GNU_SOURCE
#include "effects.h"
#include "sha256.h"
#include "tool.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int con = -1;            /* console fd: heartbeats out, full-heartbeat requests ('F') in */
static int con_out = -1;        /* where heartbeats go: con, or stdout when the console is "-" (stdin/stdout) */
static FILE *tool_in, *tool_out; /* pipes to / from the tool process */
static char nonce[17], mem[65], logpath[512];
static unsigned long step;
static int logfd = -1, drop_caches;

static void die(const char *what) {
  dprintf(con_out >= 0 ? con_out : 2, "AGENT-ERROR %s: %s\n", what, strerror(errno));
  exit(1);
}

static void con_write(const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(con_out, s, n);
    if (w < 0) { if (errno == EINTR || errno == EAGAIN) continue; die("console write"); }
    s += w; n -= (size_t)w;
  }
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void start_tool(void) {
  int down[2], up[2];
  if (pipe(down) || pipe(up)) die("pipe");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    close(down[1]); close(up[0]);
    _exit(tool_main(fdopen(down[0], "r"), fdopen(up[1], "w")));
  }
  close(down[0]); close(up[1]);
  tool_in = fdopen(down[1], "w");
  tool_out = fdopen(up[0], "r");
  if (!tool_in || !tool_out) die("fdopen");
}

static void tool_call(const char *cmd, char *reply, size_t n) {
  if (fputs(cmd, tool_in) < 0 || fflush(tool_in)) die("tool write");
  if (!fgets(reply, (int)n, tool_out)) die("tool read");
}

/* The dirty-rate knob (SOAK_DIRTY_KIB, from soak.dirty_kib=): every step writes that many KiB of pseudo-random bytes
   into the next pages of a ring in RAM (32 MiB, or the step's size if larger), so the guest dirties a set amount of
   memory per step that no dedup or compression takes back. Not part of the checked state: load on the checkpoint. */
static unsigned char *dirty_ring;
static size_t dirty_len, dirty_at, dirty_per_step;
static unsigned long long dirty_x = 0x9e3779b97f4a7c15ULL;

static void dirty_setup(void) {
  const char *v = getenv("SOAK_DIRTY_KIB");
  unsigned long kib = v ? strtoul(v, NULL, 10) : 0;
  if (kib == 0) return;
  if (kib > 65536) kib = 65536;
  dirty_per_step = (size_t)kib * 1024;
  dirty_len = dirty_per_step > ((size_t)32 << 20) ? dirty_per_step : (size_t)32 << 20;
  if (!(dirty_ring = malloc(dirty_len))) die("dirty ring");
}

static void dirty_step(void) {
  for (size_t left = dirty_per_step; left > 0;) {
    size_t n = dirty_len - dirty_at < left ? dirty_len - dirty_at : left;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      dirty_x ^= dirty_x << 13;
      dirty_x ^= dirty_x >> 7;
      dirty_x ^= dirty_x << 17;
      memcpy(dirty_ring + dirty_at + i, &dirty_x, 8);
    }
    dirty_at = (dirty_at + n) % dirty_len;
    left -= n;
  }
}

/* One step: memory chain, tool command + ack, durable append to log.txt. */
static void do_step(void) {
  char buf[128], line[64], reply[128];
  step++;
  if (dirty_ring) dirty_step();
  int len = snprintf(buf, sizeof buf, "%s:%lu", mem, step);
  sha256_hex(buf, (size_t)len, mem);
  snprintf(buf, sizeof buf, "S %lu\n", step);
  tool_call(buf, reply, sizeof reply);
  if (reply[0] != 'A') { errno = EPROTO; die("tool ack"); }
  len = snprintf(line, sizeof line, "step %lu %.16s\n", step, mem);
  if (write(logfd, line, (size_t)len) != len) die("log write");
  if (fdatasync(logfd)) die("fdatasync");
}

/* Read log.txt back from the disk (not the page cache) and digest it. */
static void fs_state(unsigned long *lines, char digest[65]) {
  char buf[4096];
  sha256_ctx c;
  sync();
  if (drop_caches) {
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd >= 0) { if (write(fd, "3\n", 2) < 0) { /* best effort */ } close(fd); }
  }
  sha256_init(&c);
  *lines = 0;
  int fd = open(logpath, O_RDONLY);
  if (fd < 0) die("open log for reading");
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0) { if (errno == EINTR) continue; die("log read"); }
    if (r == 0) break;
    for (ssize_t i = 0; i < r; i++) if (buf[i] == '\n') (*lines)++;
    sha256_update(&c, buf, (size_t)r);
  }
  close(fd);
  sha256_final_hex(&c, digest);
}

/* The coding workload's status (SOAK_WORK names its file; vm-images/work/work.sh writes it by rename) as the full
   heartbeat's ` W <iteration> <failures> <served> <last failure>` suffix; ` W 0 0 0 -` until its first write. */
static void work_claim(char *out, size_t n) {
  const char *file = getenv("SOAK_WORK");
  unsigned long iter = 0, fails = 0, served = 0;
  char last[16] = "-", buf[96];
  out[0] = 0;
  if (!file || !*file) return;
  int fd = open(file, O_RDONLY);
  if (fd >= 0) {
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[r > 0 ? r : 0] = 0;
    if (sscanf(buf, "%lu %lu %lu %15[a-z-]", &iter, &fails, &served, last) != 4) {
      iter = served = 0; /* written by rename: a status that does not parse is damaged state, a failure */
      fails = 1;
      strcpy(last, "unreadable");
    }
  }
  snprintf(out, n, " W %lu %lu %lu %s", iter, fails, served, last);
}

static void heartbeat(int full) {
  char out[720], reply[128], fsd[65], toold[65], claim[96], work[80];
  int len;
  if (!full) {
    len = snprintf(out, sizeof out, "HB %lu %s\n", step, nonce);
  } else {
    unsigned long fs_lines, tool_step;
    fs_state(&fs_lines, fsd);
    tool_call("Q\n", reply, sizeof reply);
    if (sscanf(reply, "T %lu %64s", &tool_step, toold) != 2) { errno = EPROTO; die("tool query"); }
    effects_claim(claim, sizeof claim);
    work_claim(work, sizeof work);
    len = snprintf(out, sizeof out, "HBF %lu %s %lu %s %lu %s %lu %s%s%s\n", step, nonce, fs_lines, fsd, step, mem,
                   tool_step, toold, claim, work);
  }
  con_write(out, (size_t)len);
}

/* Template mode: say "READY <template nonce>", then wait for the session identity line from the host:
   "I <nonce: 16 hex> <entropy: hex>" (every clone of a template snapshot has the same kernel CRNG state, so the nonce
   and fresh entropy come from the host; the entropy is mixed into /dev/urandom), or "I" alone: keep the template's. */
static void await_identity(void) {
  char line[256], out[64];
  size_t n = 0;
  int len = snprintf(out, sizeof out, "READY %s\n", nonce);
  con_write(out, (size_t)len);
  for (;;) {
    char c;
    ssize_t r = read(con, &c, 1);
    if (r < 0) { if (errno == EINTR || errno == EAGAIN) continue; die("console read"); }
    if (r == 0) { errno = EPIPE; die("console closed before the session identity"); }
    if (c == '\n') {
      line[n] = 0;
      if (n >= 1 && line[0] == 'I') break;
      n = 0; /* anything else before the identity (e.g. a full-heartbeat request) is dropped */
      continue;
    }
    if (n < sizeof line - 1) line[n++] = c;
  }
  char id[17] = {0}, ent[129] = {0};
  if (sscanf(line, "I %16[0-9a-f] %128[0-9a-f]", id, ent) >= 1 && strlen(id) == 16) memcpy(nonce, id, 17);
  if (ent[0]) {
    int fd = open("/dev/urandom", O_WRONLY);
    if (fd >= 0) { if (write(fd, ent, strlen(ent)) < 0) { /* best effort: mixes in, credits nothing */ } close(fd); }
  }
}

/* A console command that arrived while the agent waited for an effect's acknowledgement: a full heartbeat is served at
   once (it claims only effect steps wholly acknowledged: after a restore it ends the downtime); a hold or a release
   waits until the step's effects are done, so a hold still falls between two steps. */
static char deferred[16];
static size_t ndeferred;
static void during_effect(char c) {
  if (c == 'F') heartbeat(1);
  if (ndeferred < sizeof deferred) deferred[ndeferred++] = c;
}

/* The workspace's step log, created empty and made durable (step 0 has no lines). */
static void open_log(void) {
  if ((logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644)) < 0) die("open log");
  if (fsync(logfd)) die("fsync");
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: agent WORKSPACE STEP_MS CONSOLE|- [drop-caches]\n"); return 2; }
  long step_ms = atol(argv[2]);
  drop_caches = argc > 4 && strcmp(argv[4], "drop-caches") == 0;
  snprintf(logpath, sizeof logpath, "%s/log.txt", argv[1]);
  if (strcmp(argv[3], "-") == 0) { con = 0; con_out = 1; } /* a sandbox's stdio (gVisor adapter) */
  else if ((con = open(argv[3], O_RDWR | O_NOCTTY)) < 0) die("open console");
  else con_out = con;
  struct termios t;
  if (tcgetattr(con, &t) == 0) { cfmakeraw(&t); tcsetattr(con, TCSANOW, &t); }

  unsigned char rnd[8];
  int ufd = open("/dev/urandom", O_RDONLY);
  if (ufd < 0 || read(ufd, rnd, sizeof rnd) != (ssize_t)sizeof rnd) die("urandom");
  close(ufd);
  for (int i = 0; i < 8; i++) snprintf(nonce + 2 * i, 3, "%02x", rnd[i]);
  sha256_hex("mem:0", 5, mem);
  const char *tpl = getenv("SOAK_TEMPLATE");
  if (tpl && strcmp(tpl, "1") == 0) {
    start_tool();
    open_log(); /* the empty log is durable in the template: a session from it starts with no disk flush */
    await_identity(); /* template: booted, tool ready, no session yet; the host snapshots here */
  }
  if (logfd < 0) open_log();
  if (!tool_in) start_tool();
  effects_init(getenv("SOAK_EFFECTS"), argv[1]);
  dirty_setup();
  const effects_io eio = {.in = con, .write = con_write, .command = during_effect};

  /* Console input, one byte each: 'F' full heartbeat (also ends a hold); 'H' hold: finish no new step until 'R', 'F'
     or HOLD_MS of guest time, acknowledged with "HOLD <step>" (the host then freezes a quiescent guest); 'R' release. */
  const long long HOLD_MS = 1000;
  long long hold_until = 0;
  heartbeat(1);
  long long next = now_ms() + step_ms;
  for (;;) {
    long long now = now_ms();
    long long until = hold_until > now ? hold_until : next;
    struct pollfd p = {.fd = con, .events = POLLIN};
    int r = poll(&p, 1, until > now ? (int)(until - now) : 0);
    /* a stdio console whose last writer closed it: nobody is listening any more (poll would return at once, forever) */
    if (r > 0 && con == 0 && (p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLIN)) exit(0);
    int pending = 0;
    /* Requests go before the next step, even when the step is due. */
    if (ndeferred > 0 || (r > 0 && (p.revents & POLLIN)) || (ioctl(con, FIONREAD, &pending) == 0 && pending > 0)) {
      char in[64], ack[64];
      ssize_t n;
      if (ndeferred > 0) { /* commands read during an effect's wait; a full heartbeat among them was served then */
        n = 0;
        for (size_t i = 0; i < ndeferred; i++) in[n++] = deferred[i] == 'F' ? 'R' : deferred[i]; /* F: ends a hold */
        ndeferred = 0;
      } else n = read(con, in, sizeof in);
      if (n == 0 && con == 0) exit(0); /* stdio console closed: nobody is listening any more */
      int want_full = 0;
      for (ssize_t i = 0; i < n; i++) {
        if (in[i] == 'F') { want_full = 1; hold_until = 0; }
        else if (in[i] == 'R') hold_until = 0;
        else if (in[i] == 'H') {
          hold_until = now_ms() + HOLD_MS;
          int len = snprintf(ack, sizeof ack, "HOLD %lu\n", step);
          con_write(ack, (size_t)len);
        }
      }
      if (want_full) heartbeat(1);
      continue;
    }
    now = now_ms();
    if (hold_until > now || now < next) continue;
    /* A hold that ran out unreleased: the guest may have been frozen and restored elsewhere (a micro-VM or a sandbox
       restored from a checkpoint taken in this hold) whose host's 'F' has not reached us yet. The restored state's
       full heartbeat goes before any new step, so the first one the host reads describes the state it restored. */
    if (hold_until != 0) heartbeat(1);
    hold_until = 0;
    do_step();
    effects_at_step(step, nonce, &eio);
    heartbeat(0);
    next += step_ms;
    now = now_ms();
    if (next < now) next = now; /* late (e.g. after a hold): no burst of catch-up steps */
  }
}
