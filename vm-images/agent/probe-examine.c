/* The probe's examination: each class of guest state checked against the record setup left, one JSON line out:
 * {"probe":1,"event":"examined","mode":"holder"|"restarted",...,"observations":[{"class","status","detail"[,"value"]}]}
 * status: survives | lost | changed | not-applicable (the vocabulary of harness/check/survival.ts). */
#define _GNU_SOURCE
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 2000 /* how long a timer, a child or a connection may take to answer */

static int first;

/* One JSON string, escaped (paths may hold anything). */
void json_str(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

/* One observation; `value` is printed when not NAN-like (has_value). */
static void obs(const char *cls, const char *status, int has_value, double value, const char *fmt, ...) {
    char detail[PROBE_PATH * 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("%s{\"class\":\"%s\",\"status\":\"%s\",\"detail\":", first ? "" : ",", cls, status);
    json_str(detail);
    if (has_value) printf(",\"value\":%.3f", value);
    putchar('}');
    first = 0;
}

/* A file setup wrote: it must still hold "probe:<token>\n". */
static void file_class(const char *cls, const char *path, const char *want) {
    char buf[128] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) return obs(cls, "lost", 0, 0, "%s: %s", path, strerror(errno));
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n)) return obs(cls, "survives", 0, 0, "%s", path);
    obs(cls, "changed", 0, 0, "%s: %zd bytes, not the %zu setup wrote", path, n, strlen(want));
}

/* Pending bytes in a pipe or socket: read back (then put back for the next examination). */
static void pending_class(const char *cls, int rfd, int wfd, const char *want) {
    char buf[128] = {0};
    struct pollfd p = {.fd = rfd, .events = POLLIN};
    ssize_t n = poll(&p, 1, WAIT_MS) == 1 ? read(rfd, buf, sizeof buf - 1) : -1;
    if (n < 0) return obs(cls, "lost", 0, 0, "no pending bytes within %d ms: %s", WAIT_MS, strerror(errno));
    if (n == 0) return obs(cls, "lost", 0, 0, "end of file: the other end is closed");
    if (write(wfd, buf, (size_t)n) != n) return obs(cls, "changed", 0, 0, "read back, but cannot write: %s", strerror(errno));
    if (n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n)) return obs(cls, "survives", 0, 0, "%zd bytes read back", n);
    obs(cls, "changed", 0, 0, "%zd bytes read back, not the ones written", n);
}

/* A process of the record: alive with the same start time, under the same parent. One whose parent died is dying
 * (PR_SET_PDEATHSIG): given WAIT_MS to go, so a quick examination after a kill does not count it as kept. */
static void process_class(const char *cls, pid_t pid, unsigned long long start, pid_t parent, int detached) {
    pid_t ppid = 0;
    unsigned long long now = proc_stat(pid, &ppid);
    if (now == 0) return obs(cls, "lost", 1, pid, "pid %d is gone", (int)pid);
    if (now != start) return obs(cls, "changed", 1, pid, "pid %d is another process (start %llu, was %llu)", (int)pid, now, start);
    if (ppid != parent) {
        for (int i = 0; i < WAIT_MS / 10 && proc_start(pid) == start; i++) usleep(10000);
        if (proc_start(pid) != start) return obs(cls, "lost", 1, pid, "pid %d died with its parent %d", (int)pid, (int)parent);
        return obs(cls, "changed", 1, pid, "pid %d alive, but its parent %d is gone (now %d)", (int)pid, (int)parent, (int)ppid);
    }
    if (detached && getsid(pid) != pid) return obs(cls, "changed", 1, pid, "pid %d is no longer detached", (int)pid);
    obs(cls, "survives", 1, pid, "pid %d alive, same start time and parent", (int)pid);
}

/* The child answers with its own pid over the holder's pipes. */
static void child_class(const struct probe_rec *r, const struct probe_live *l) {
    char line[32] = {0};
    if (write(l->child_req, "p", 1) != 1) return obs("child-process", "lost", 1, r->child, "pid %d: its pipe is closed", (int)r->child);
    struct pollfd p = {.fd = l->child_rep, .events = POLLIN};
    for (size_t n = 0; n < sizeof line - 1 && poll(&p, 1, WAIT_MS) == 1 && read(l->child_rep, line + n, 1) == 1 && line[n] != '\n'; n++) {}
    if (!line[0]) return obs("child-process", "lost", 1, r->child, "pid %d did not answer within %d ms", (int)r->child, WAIT_MS);
    if (atoi(line) != r->child) return obs("child-process", "changed", 1, atoi(line), "answered as pid %d, was %d", atoi(line), (int)r->child);
    obs("child-process", "survives", 1, r->child, "pid %d answered", (int)r->child);
}

static void tcp_class(const struct probe_rec *r, const struct probe_live *l) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(r->port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), err = 0;
    socklen_t el = sizeof err;
    struct pollfd p = {.fd = c, .events = POLLOUT};
    if (connect(c, (struct sockaddr *)&a, sizeof a) && errno != EINPROGRESS) err = errno;
    else if (poll(&p, 1, WAIT_MS) != 1) err = ETIMEDOUT;
    else getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err) {
        close(c);
        return obs("tcp-listener", "lost", 1, r->port, "connect 127.0.0.1:%d: %s", r->port, strerror(err));
    }
    if (!l) {
        close(c);
        return obs("tcp-listener", "changed", 1, r->port, "127.0.0.1:%d accepts, but its holder is gone: another listener", r->port);
    }
    struct pollfd q = {.fd = l->listener, .events = POLLIN};
    int s = poll(&q, 1, WAIT_MS) == 1 ? accept(l->listener, NULL, NULL) : -1;
    close(c);
    if (s < 0) return obs("tcp-listener", "lost", 1, r->port, "127.0.0.1:%d: connected, never accepted", r->port);
    close(s);
    obs("tcp-listener", "survives", 1, r->port, "127.0.0.1:%d connected and accepted", r->port);
}

static void lock_class(const struct probe_rec *r) {
    int fd = open(r->lock, O_RDWR); /* a new open file description: conflicts with the held lock */
    if (fd < 0) return obs("flock", "lost", 0, 0, "%s: %s", r->lock, strerror(errno));
    int got = flock(fd, LOCK_EX | LOCK_NB);
    close(fd);
    if (got == 0) return obs("flock", "lost", 0, 0, "%s: no longer locked (a new open took the lock)", r->lock);
    obs("flock", errno == EWOULDBLOCK ? "survives" : "changed", 0, 0, "%s: %s", r->lock, errno == EWOULDBLOCK ? "still held" : strerror(errno));
}

static void timer_class(const struct probe_live *l) {
    unsigned long long fired = 0;
    struct pollfd p = {.fd = l->timer, .events = POLLIN};
    if (poll(&p, 1, WAIT_MS) == 1 && read(l->timer, &fired, sizeof fired) == sizeof fired && fired > 0)
        return obs("timer", "survives", 1, (double)fired, "timerfd (100 ms period) fired %llu times since last read", fired);
    obs("timer", "lost", 0, 0, "timerfd (100 ms period) did not fire within %d ms", WAIT_MS);
}

static void holder_only(const struct probe_rec *r, const struct probe_live *l, const char *want) {
    char cwd[PROBE_PATH] = {0};
    const char *env = getenv(PROBE_ENV);
    mode_t m = umask(PROBE_UMASK);
    umask(m);
    if (l->mapping && !strncmp(l->mapping, "probe:", 6) && !strncmp(l->mapping + 6, r->token, 32)) {
        char buf[64] = {0};
        int fd = open(r->map, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, 38);
        if (fd >= 0) close(fd);
        if (n == 38 && !memcmp(buf, l->mapping, 38)) obs("shared-mapping", "survives", 0, 0, "%s: mapping and file agree", r->map);
        else obs("shared-mapping", "changed", 0, 0, "%s: the file no longer shows the mapping's bytes", r->map);
    } else obs("shared-mapping", "lost", 0, 0, "%s: the mapping no longer holds the bytes", r->map);
    child_class(r, l);
    pending_class("pipe", l->pipe_r, l->pipe_w, want);
    pending_class("unix-socketpair", l->sock[1], l->sock[0], want);
    timer_class(l);
    if (env && !strcmp(env, r->token)) obs("env", "survives", 0, 0, "%s set", PROBE_ENV);
    else obs("env", env ? "changed" : "lost", 0, 0, "%s %s", PROBE_ENV, env ? "has another value" : "unset");
    if (getcwd(cwd, sizeof cwd) && !strcmp(cwd, r->cwd)) obs("cwd", "survives", 0, 0, "%s", cwd);
    else obs("cwd", "changed", 0, 0, "now %s, was %s", cwd[0] ? cwd : "(unreadable)", r->cwd);
    if (m == PROBE_UMASK) obs("umask", "survives", 1, m, "%03o", (unsigned)m);
    else obs("umask", "changed", 1, m, "%03o, was %03o", (unsigned)m, PROBE_UMASK);
}

/* 64-bit FNV-1a: a fingerprint of what was read, so the line carries no RNG output (equality is all that is compared). */
static unsigned long long fnv64(const unsigned char *b, size_t n) {
    unsigned long long h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* clone-entropy: 32 bytes of /dev/urandom, 32 of getrandom and a UUIDv4 of the kernel's, read now, as fingerprints. One
 * session cannot judge it: the harness compares two sessions restored from one checkpoint (check/clone-entropy.ts). */
static void entropy_class(void) {
    unsigned char u[32], g[32], id[64] = {0};
    int fd = open("/dev/urandom", O_RDONLY);
    ssize_t nu = fd < 0 ? -1 : read(fd, u, sizeof u);
    if (fd >= 0) close(fd);
    ssize_t ng = getrandom(g, sizeof g, GRND_NONBLOCK);
    fd = open("/proc/sys/kernel/random/uuid", O_RDONLY);
    ssize_t ni = fd < 0 ? -1 : read(fd, id, sizeof id - 1);
    if (fd >= 0) close(fd);
    const char *made = "the kernel's";
    if (ni < 36) { /* no such file (gVisor): a UUIDv4 made as a library would, from 16 getrandom bytes */
        unsigned char b[16];
        if (getrandom(b, sizeof b, GRND_NONBLOCK) != sizeof b) ng = -1;
        b[6] = (unsigned char)((b[6] & 0x0f) | 0x40), b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
        for (int i = 0, o = 0; i < 16; i++) o += sprintf((char *)id + o, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
        made = "made from getrandom (no /proc/sys/kernel/random/uuid)";
    }
    if (nu != sizeof u || ng != sizeof g)
        return obs("clone-entropy", "not-applicable", 0, 0, "cannot read %s", nu != sizeof u ? "/dev/urandom" : "getrandom");
    obs("clone-entropy", "not-applicable", 0, 0, "urandom %016llx getrandom %016llx uuid %016llx: one session (uuid: %s), compared with a clone by the harness",
        fnv64(u, sizeof u), fnv64(g, sizeof g), fnv64(id, 36), made);
}

/* The connection to the harness's echo outside the sandbox: bytes sent on it must come back within the bound. */
static void peer_class(const struct probe_rec *r, const struct probe_live *l, const char *want) {
    const char *peer = getenv(PROBE_PEER_ENV);
    if (!peer || !*peer)
        return obs("tcp-peer", "not-applicable", 0, 0, "no peer outside the sandbox to reach (%s unset: no path to the harness's echo)", PROBE_PEER_ENV);
    if (!l) return obs("tcp-peer", "lost", 0, 0, "%s: its holder, pid %d, is gone: the connection closed with it", peer, (int)r->holder);
    if (l->peer < 0) return obs("tcp-peer", "lost", 0, 0, "%s: no connection", peer);
    size_t n = strlen(want);
    if (send(l->peer, want, n, MSG_NOSIGNAL) != (ssize_t)n)
        return obs("tcp-peer", "lost", 0, 0, "%s: send: %s", peer,
                   errno == EPIPE ? "EPIPE (the connection is closed)" : errno == ECONNRESET ? "reset (ECONNRESET)" : strerror(errno));
    char buf[128];
    size_t got = 0;
    struct pollfd p = {.fd = l->peer, .events = POLLIN};
    while (got < n && poll(&p, 1, PROBE_PEER_WAIT_MS) == 1) {
        ssize_t k = recv(l->peer, buf + got, sizeof buf - got, 0);
        if (k < 0) return obs("tcp-peer", "lost", 0, 0, "%s: recv: %s", peer, errno == ECONNRESET ? "reset (ECONNRESET)" : strerror(errno));
        if (k == 0) return obs("tcp-peer", "lost", 0, 0, "%s: closed by the peer (end of file)", peer);
        got += (size_t)k;
    }
    if (got < n) return obs("tcp-peer", "lost", 0, 0, "%s: hang: no echo within %d ms", peer, PROBE_PEER_WAIT_MS);
    if (memcmp(buf, want, n)) return obs("tcp-peer", "changed", 0, 0, "%s: %zu bytes echoed, not the ones sent", peer, got);
    obs("tcp-peer", "survives", 0, 0, "%s: %zu bytes echoed on the connection made at setup", peer, got);
}

void probe_examine(const struct probe_rec *r, const struct probe_live *l, int64_t host_ms) {
    char want[64];
    snprintf(want, sizeof want, "probe:%s\n", r->token);
    int64_t mono = clock_ns(CLOCK_MONOTONIC), wall = clock_ns(CLOCK_REALTIME);
    int holder_alive = proc_start(r->holder) == r->holder_start && r->holder_start != 0;
    printf("{\"probe\":1,\"event\":\"examined\",\"mode\":\"%s\",\"holder\":%d,\"token\":\"%s\",\"observations\":[",
           l ? "holder" : "restarted", (int)r->holder, r->token);
    first = 1;
    file_class("workspace-unsynced", r->unsynced, want);
    file_class("tmp-file", r->tmp, want);
    file_class("shm-file", r->shm, want);
    process_class("grandchild-process", r->grandchild, r->grandchild_start, r->child, 1);
    tcp_class(r, l);
    lock_class(r);
    if (l) holder_only(r, l, want);
    else {
        static const char *const bound[] = {"shared-mapping", "pipe", "unix-socketpair", "timer", "env", "cwd", "umask"};
        process_class("child-process", r->child, r->child_start, r->holder, 0);
        for (size_t i = 0; i < sizeof bound / sizeof *bound; i++)
            obs(bound[i], "lost", 0, 0, holder_alive ? "examined outside its holder (pid %d still runs)" : "its holder, pid %d, is gone: the session restarted its processes", (int)r->holder);
    }
    double since = (double)(mono - r->mono_ns) / 1e9;
    obs("clock-monotonic", since >= 0 ? "survives" : "changed", 1, since, since >= 0 ? "%.3f s since setup" : "went back %.3f s", since < 0 ? -since : since);
    if (host_ms < 0) obs("clock-wall", "not-applicable", 0, 0, "no host reading given to compare with");
    else {
        double off = (double)(wall / 1000000 - host_ms) / 1e3;
        obs("clock-wall", off > -1 && off < 1 ? "survives" : "changed", 1, off, "%+.3f s from the host's clock", off);
    }
    entropy_class();
    peer_class(r, l, want);
    printf("]}\n");
    fflush(stdout);
}

/* A later wall-clock reading, asked `clock <host ms> <after>` `after` s after the resume: its own line, one class. */
void probe_clock(const struct probe_rec *r, int64_t host_ms, int after) {
    int64_t wall = clock_ns(CLOCK_REALTIME);
    char cls[32];
    snprintf(cls, sizeof cls, "clock-wall-%ds", after);
    printf("{\"probe\":1,\"event\":\"clock\",\"holder\":%d,\"token\":\"%s\",\"after\":%d,\"observations\":[",
           (int)r->holder, r->token, after);
    first = 1;
    double off = (double)(wall / 1000000 - host_ms) / 1e3;
    obs(cls, off > -1 && off < 1 ? "survives" : "changed", 1, off, "%+.3f s from the host's clock %d s after the resume", off, after);
    printf("]}\n");
    fflush(stdout);
}
