/* The guest-state probe: `probe setup <dir>` makes one instance of each class of guest state and stays running as its
 * holder; `examine [host-epoch-ms]` on its stdin (or SIGUSR1) prints what survived as one JSON line
 * (docs/what-survives.md). `probe examine <dir>` examines the record from a new process (a restarted session);
 * `probe cleanup <dir>` removes the files setup made outside <dir>. Static, no library but libc, like the agent. */
#define _GNU_SOURCE
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
    char m[PROBE_PATH + 128];
    snprintf(m, sizeof m, "%s: %s", what, strerror(errno));
    printf("{\"probe\":1,\"event\":\"error\",\"message\":");
    json_str(m);
    printf("}\n");
    fflush(stdout);
    exit(1);
}

int64_t clock_ns(int clk) {
    struct timespec t;
    clock_gettime(clk, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

unsigned long long proc_start(pid_t pid) { return proc_stat(pid, NULL); }

unsigned long long proc_stat(pid_t pid, pid_t *ppid) {
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *s = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!s || s[2] == 'Z') return 0; /* a zombie is gone */
    unsigned long long v = 0;
    int field = 2;
    for (char *t = strtok(s + 1, " "); t; t = strtok(NULL, " ")) {
        if (++field == 4 && ppid) *ppid = (pid_t)atoi(t);
        if (field == 22) { v = strtoull(t, NULL, 10); break; }
    }
    return v;
}

int rec_write(const struct probe_rec *r) {
    char p[PROBE_PATH + 16], tmp[PROBE_PATH + 24];
    snprintf(p, sizeof p, "%s/probe.rec", r->dir);
    snprintf(tmp, sizeof tmp, "%s/probe.rec.tmp", r->dir);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "%s %d %llu %d %llu %d %llu %d %lld %lld\n%s\n%s\n%s\n%s\n%s\n%s\n", r->token, (int)r->holder,
            r->holder_start, (int)r->child, r->child_start, (int)r->grandchild, r->grandchild_start, r->port,
            (long long)r->mono_ns, (long long)r->wall_ns, r->tmp, r->shm, r->unsynced, r->map, r->lock, r->cwd);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) { fclose(f); return -1; }
    fclose(f);
    return rename(tmp, p);
}

static int read_line(FILE *f, char *out) {
    if (!fgets(out, PROBE_PATH, f)) return -1;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

int rec_read(const char *dir, struct probe_rec *r) {
    char p[PROBE_PATH + 16];
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(p, sizeof p, "%s/probe.rec", dir);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    int h, c, g;
    long long m, w;
    int ok = fscanf(f, "%32s %d %llu %d %llu %d %llu %d %lld %lld\n", r->token, &h, &r->holder_start, &c,
                    &r->child_start, &g, &r->grandchild_start, &r->port, &m, &w) == 10;
    ok = ok && !read_line(f, r->tmp) && !read_line(f, r->shm) && !read_line(f, r->unsynced) &&
         !read_line(f, r->map) && !read_line(f, r->lock) && !read_line(f, r->cwd);
    fclose(f);
    r->holder = h, r->child = c, r->grandchild = g, r->mono_ns = m, r->wall_ns = w;
    return ok ? 0 : -1;
}

/* The child: answers each byte on its request pipe with its pid; it forks the detached grandchild first. Both die
 * with their parent (PR_SET_PDEATHSIG), so a SIGKILL of the holder leaves nothing behind. */
static void child_main(pid_t holder, int req, int rep) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != holder) _exit(0);
    pid_t me = getpid(), g = fork();
    if (g == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != me) _exit(0);
        setsid();
        close(req), close(rep);
        for (;;) pause();
    }
    dprintf(rep, "%d\n", (int)g);
    char b;
    while (read(req, &b, 1) == 1) dprintf(rep, "%d\n", (int)getpid());
    _exit(0);
}

static void write_file(const char *path, const char *text, int sync) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) die(path);
    if (sync) fsync(fd);
    close(fd);
}

static void setup(struct probe_rec *r, struct probe_live *l, const char *workspace) {
    /* A setup again in the same folder (a session that restarts its processes on a resume sets up anew) keeps the
     * session's token: the workspace file it rewrites then holds the bytes every checkpoint of the session holds, so
     * a restore of a checkpoint taken before this setup is not reported as a changed file (a harness artefact). */
    struct probe_rec before;
    if (rec_read(r->dir, &before) == 0 && strlen(before.token) == 32 && strspn(before.token, "0123456789abcdef") == 32) {
        memcpy(r->token, before.token, sizeof r->token);
    } else {
        unsigned char rnd[16];
        if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) die("getrandom");
        for (int i = 0; i < 16; i++) sprintf(r->token + 2 * i, "%02x", rnd[i]);
    }
    r->holder = getpid();
    r->holder_start = proc_start(r->holder);
    int req[2], rep[2];
    if (pipe(req) || pipe(rep)) die("pipe");
    r->child = fork();
    if (r->child < 0) die("fork");
    if (r->child == 0) { close(req[1]), close(rep[0]), child_main(r->holder, req[0], rep[1]); }
    close(req[0]), close(rep[1]);
    l->child_req = req[1], l->child_rep = rep[0];
    char line[32] = {0};
    for (size_t n = 0; n < sizeof line - 1 && read(l->child_rep, line + n, 1) == 1 && line[n] != '\n'; n++) {}
    r->grandchild = atoi(line);
    r->child_start = proc_start(r->child);
    for (int i = 0; i < 200 && getsid(r->grandchild) != r->grandchild; i++) usleep(5000); /* until it detached */
    r->grandchild_start = proc_start(r->grandchild);

    char text[128];
    snprintf(text, sizeof text, "probe:%s\n", r->token);
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *shmdir = getenv("SOAK_PROBE_SHM") && *getenv("SOAK_PROBE_SHM") ? getenv("SOAK_PROBE_SHM") : "/dev/shm";
    if (strlen(tmpdir) >= PROBE_DIR || strlen(shmdir) >= PROBE_DIR) errno = ENAMETOOLONG, die("TMPDIR or SOAK_PROBE_SHM");
    snprintf(r->tmp, sizeof r->tmp, "%s/soak-probe-%s", tmpdir, r->token);
    snprintf(r->shm, sizeof r->shm, "%s/soak-probe-%s", shmdir, r->token);
    snprintf(r->unsynced, sizeof r->unsynced, "%s/probe-unsynced.txt", workspace);
    snprintf(r->map, sizeof r->map, "%s/probe.map", r->dir);
    snprintf(r->lock, sizeof r->lock, "%s/probe.lock", r->dir);
    snprintf(r->cwd, sizeof r->cwd, "%s/cwd", r->dir);
    write_file(r->tmp, text, 1);
    write_file(r->shm, text, 1);
    write_file(r->unsynced, text, 0); /* written, never fsynced */

    int mfd = open(r->map, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (mfd < 0 || ftruncate(mfd, 4096)) die(r->map);
    l->mapping = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (l->mapping == MAP_FAILED) die("mmap");
    close(mfd);
    snprintf(l->mapping, 4096, "%s", text); /* through the mapping only: the file must show it */

    int p[2];
    if (pipe(p)) die("pipe");
    l->pipe_r = p[0], l->pipe_w = p[1];
    fcntl(l->pipe_r, F_SETFL, O_NONBLOCK);
    if (write(l->pipe_w, text, strlen(text)) < 0) die("pipe write");
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, l->sock)) die("socketpair");
    fcntl(l->sock[1], F_SETFL, O_NONBLOCK);
    if (write(l->sock[0], text, strlen(text)) < 0) die("socketpair write");

    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    l->listener = socket(AF_INET, SOCK_STREAM, 0);
    if (l->listener < 0 || bind(l->listener, (struct sockaddr *)&a, al) || listen(l->listener, 8) ||
        getsockname(l->listener, (struct sockaddr *)&a, &al))
        die("tcp listener");
    r->port = ntohs(a.sin_port);

    l->peer = peer_connect();

    l->lock_fd = open(r->lock, O_RDWR | O_CREAT, 0644);
    if (l->lock_fd < 0 || flock(l->lock_fd, LOCK_EX | LOCK_NB)) die("flock");
    l->timer = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec every = {.it_interval = {0, 100000000}, .it_value = {0, 100000000}};
    if (l->timer < 0 || timerfd_settime(l->timer, 0, &every, NULL)) die("timerfd");

    setenv(PROBE_ENV, r->token, 1);
    if ((mkdir(r->cwd, 0755) && errno != EEXIST) || chdir(r->cwd)) die(r->cwd);
    umask(PROBE_UMASK);
    r->mono_ns = clock_ns(CLOCK_MONOTONIC);
    r->wall_ns = clock_ns(CLOCK_REALTIME);
    if (rec_write(r)) die("probe.rec");
}

int peer_connect(void) {
    const char *peer = getenv(PROBE_PEER_ENV);
    if (!peer || !*peer) return -1;
    char host[64];
    int port = 0;
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (sscanf(peer, "%63[0-9.]:%d", host, &port) != 2 || port < 1 || port > 65535 || inet_pton(AF_INET, host, &a.sin_addr) != 1)
        errno = EINVAL, die(PROBE_PEER_ENV " (expected <ipv4>:<port>)");
    a.sin_port = htons(port);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a)) die(PROBE_PEER_ENV ": connect");
    return c;
}

static volatile sig_atomic_t asked;
static void on_usr1(int s) { (void)s, asked = 1; }

/* SIGUSR1 asks for an examination: blocked but while ppoll waits, so one sent at any moment is seen (none is lost
 * between a check of `asked` and the wait). Installed before `ready` is printed: a signal then cannot kill it. */
static sigset_t unblocked;
static void catch_usr1(void) {
    struct sigaction sa = {.sa_handler = on_usr1};
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &unblocked);
    sigdelset(&unblocked, SIGUSR1);
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static void holder_loop(const struct probe_rec *r, const struct probe_live *l) {
    char buf[256];
    size_t have = 0;
    for (;;) {
        struct pollfd in = {.fd = 0, .events = POLLIN};
        int n = ppoll(&in, 1, NULL, &unblocked);
        if (asked) asked = 0, probe_examine(r, l, -1);
        if (n <= 0) continue;
        ssize_t got = read(0, buf + have, sizeof buf - 1 - have);
        if (got <= 0) exit(0); /* stdin closed: the session is over */
        have += (size_t)got;
        buf[have] = 0;
        for (char *nl; (nl = strchr(buf, '\n'));) {
            *nl = 0;
            long long host_ms = -1;
            if (!strncmp(buf, "examine", 7)) {
                if (sscanf(buf + 7, "%lld", &host_ms) != 1) host_ms = -1;
                probe_examine(r, l, host_ms);
            }
            int after = 0;
            if (!strncmp(buf, "clock ", 6) && sscanf(buf + 6, "%lld %d", &host_ms, &after) == 2 && after > 0)
                probe_clock(r, host_ms, after);
            have -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, have + 1);
        }
        if (have == sizeof buf - 1) have = 0; /* an over-long line: dropped */
    }
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) {
        fprintf(stderr, "usage: probe setup <dir> [--workspace <dir>] | examine <dir> [--host-ms N] | clock <dir> --host-ms N --after S | cleanup <dir>\n");
        return 3;
    }
    struct probe_rec r;
    const char *cmd = argv[1], *dir = argv[2];
    for (int i = 2; i < argc; i++)
        if (strlen(argv[i]) >= PROBE_DIR) errno = ENAMETOOLONG, die("argument");
    if (!strcmp(cmd, "setup")) {
        struct probe_live l;
        memset(&r, 0, sizeof r);
        snprintf(r.dir, sizeof r.dir, "%s", dir);
        if (mkdir(dir, 0755) && errno != EEXIST) die(dir);
        setup(&r, &l, argc >= 5 && !strcmp(argv[3], "--workspace") ? argv[4] : dir);
        catch_usr1();
        printf("{\"probe\":1,\"event\":\"ready\",\"holder\":%d,\"token\":\"%s\"}\n", (int)r.holder, r.token);
        holder_loop(&r, &l);
    }
    if (rec_read(dir, &r)) {
        errno = ENOENT, die("no probe record (probe.rec) in the folder");
    }
    if (!strcmp(cmd, "examine")) {
        long long host_ms = argc >= 5 && !strcmp(argv[3], "--host-ms") ? atoll(argv[4]) : -1;
        probe_examine(&r, NULL, host_ms);
        return 0;
    }
    if (!strcmp(cmd, "clock")) { /* probe clock <dir> --host-ms N --after S: a later reading from a new process */
        long long host_ms = argc >= 5 && !strcmp(argv[3], "--host-ms") ? atoll(argv[4]) : -1;
        int after = argc >= 7 && !strcmp(argv[5], "--after") ? atoi(argv[6]) : 0;
        if (host_ms <= 0 || after <= 0) errno = EINVAL, die("clock: --host-ms N --after S");
        probe_clock(&r, host_ms, after);
        return 0;
    }
    if (!strcmp(cmd, "cleanup")) {
        unlink(r.tmp), unlink(r.shm);
        return 0;
    }
    fprintf(stderr, "probe: unknown command %s\n", cmd);
    return 3;
}
