/* The guest-state probe (docs/what-survives.md): the record `probe setup` leaves in its folder, and the examination. */
#ifndef SOAK_PROBE_H
#define SOAK_PROBE_H

#include <stdint.h>
#include <sys/types.h>

#define PROBE_ENV "SOAK_PROBE_TOKEN"
#define PROBE_UMASK 027
#define PROBE_PATH 512
#define PROBE_DIR 400 /* the longest folder accepted (dir, workspace, TMPDIR, SOAK_PROBE_SHM): paths under it fit */

/* What setup made, written to <dir>/probe.rec so a later process (a restarted session) can examine it too. */
struct probe_rec {
    char token[33];
    pid_t holder, child, grandchild;
    unsigned long long holder_start, child_start, grandchild_start; /* /proc/<pid>/stat field 22 */
    int port;                                                      /* loopback TCP listener */
    int64_t mono_ns, wall_ns;                                      /* CLOCK_MONOTONIC, CLOCK_REALTIME at setup */
    char dir[PROBE_DIR], tmp[PROBE_PATH], shm[PROBE_PATH], unsynced[PROBE_PATH];
    char map[PROBE_PATH], lock[PROBE_PATH], cwd[PROBE_PATH];
};

/* The holder's process-bound state (-1 / NULL when examined from another process). */
struct probe_live {
    int child_req, child_rep; /* pipes to and from the child */
    int pipe_r, pipe_w;       /* a pipe holding pending bytes */
    int sock[2];              /* a UNIX socket pair holding pending bytes */
    int listener, lock_fd, timer;
    char *mapping;
    int peer; /* a TCP connection to the harness's echo outside the sandbox ($SOAK_PROBE_PEER), or -1 */
};

#define PROBE_PEER_ENV "SOAK_PROBE_PEER" /* <ipv4>:<port> of the harness's TCP echo; unset: no peer to reach */
#define PROBE_PEER_WAIT_MS 2000          /* how long the echo may take to answer before the connection counts as hung */

int rec_write(const struct probe_rec *r);
int rec_read(const char *dir, struct probe_rec *r);
unsigned long long proc_start(pid_t pid);
unsigned long long proc_stat(pid_t pid, pid_t *ppid); /* start time (0: gone or a zombie) and parent */
int64_t clock_ns(int clk);
void json_str(const char *s); /* one JSON string to stdout, escaped */

/* Print one `examined` JSON line to stdout: every class. live == NULL: examined by a process other than the holder. */
void probe_examine(const struct probe_rec *r, const struct probe_live *live, int64_t host_ms);

/* Print one `clock` JSON line: the wall clock's offset from host_ms, as class clock-wall-<after>s (a later reading,
 * `after` s after the resume: does the guest's clock resync?). */
void probe_clock(const struct probe_rec *r, int64_t host_ms, int after);

/* The connection to $SOAK_PROBE_PEER, made at setup (-1 when unset; exits with an error line when it cannot be made). */
int peer_connect(void);

#endif
