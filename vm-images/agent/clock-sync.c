/* clock-sync: the guest's wall clock set from the host's. Each line `<host epoch ms>` on stdin (the guest's ttyS2, which
 * the micro-VM target writes after a restore: a restored guest's clock otherwise lags by the downtime) sets
 * CLOCK_REALTIME to it and is answered `set <ms>` (or `error <reason>`) on stdout; a `seed` line reseeds the kernel RNG
 * (seed_line); the TEST-ONLY `drop-listeners` destroys the TCP listeners (drop_listeners). Static, no library but libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/random.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* `seed <64 letters a-p>` (32 bytes, a nibble per letter: no digit, so a line cut around a restore is never read as a
 * time): a fresh seed from the host for a restored guest, whose kernel RNG otherwise continues from the snapshot's state
 * in every session restored from it. Mixed in and credited (RNDADDENTROPY), then the CRNG rekeyed (RNDRESEEDCRNG). */
static int seed_line(const char *line) {
    struct { struct rand_pool_info info; unsigned char b[32]; } s = {.info = {.entropy_count = 256, .buf_size = 32}};
    if (strncmp(line, "seed ", 5)) return 0;
    for (int i = 0; i < 64; i++) {
        char c = line[5 + i];
        if (c < 'a' || c > 'p') return 1; /* cut or garbled: ignored, the host writes it again */
        s.b[i / 2] = (unsigned char)(s.b[i / 2] << 4 | (c - 'a'));
    }
    if (line[69] != '\n' && line[69] != 0) return 1;
    int fd = open("/dev/urandom", O_WRONLY);
    if (fd < 0 || ioctl(fd, RNDADDENTROPY, &s.info) || ioctl(fd, RNDRESEEDCRNG)) printf("seed-error %s\n", strerror(errno));
    else printf("seeded %.8s\n", line + 5); /* names the seed: an answer to a stale line is told apart */
    if (fd >= 0) close(fd);
    return 1;
}

/* One netlink sock_diag request for TCP over IPv4: a dump of the listeners, or the destruction of one socket. */
static int diag_send(int nl, int type, int flags, const struct inet_diag_sockid *id) {
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } m = {.h = {.nlmsg_len = sizeof m, .nlmsg_type = type, .nlmsg_flags = NLM_F_REQUEST | flags},
           .r = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP, .idiag_states = 1 << 10 /* TCP_LISTEN */}};
    if (id) m.r.id = *id, m.r.idiag_states = ~0U;
    return send(nl, &m, sizeof m, 0) == sizeof m ? 0 : -1;
}

/* TEST-ONLY (`drop-listeners`, SOAK_TEST_RESYNC_DROPS_LISTENERS on the host: negative control (d) of issue 33): the
 * kernel destroys every TCP listener from outside its process (SOCK_DESTROY, what `ss -K` does), as a runtime that
 * restores a guest without its listening sockets would. Loads inet_diag and tcp_diag first. Answers `dropped <n>`. */
static void drop_listeners(void) {
    static const char *const mods[] = {"/lib/modules/inet_diag.ko", "/lib/modules/tcp_diag.ko"};
    for (size_t i = 0; i < 2; i++) {
        int fd = open(mods[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)) {
            printf("drop-error %s: %s\n", mods[i], strerror(errno));
            if (fd >= 0) close(fd);
            return;
        }
        close(fd);
    }
    struct inet_diag_sockid ids[16];
    int n = 0, dropped = 0, nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0 || diag_send(nl, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, NULL)) {
        printf("drop-error sock_diag: %s\n", strerror(errno));
        if (nl >= 0) close(nl);
        return;
    }
    char buf[8192];
    for (int done = 0; !done;) {
        ssize_t len = recv(nl, buf, sizeof buf, 0);
        if (len <= 0) break;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) { done = 1; break; }
            if (n < 16) ids[n++] = ((struct inet_diag_msg *)NLMSG_DATA(h))->id;
        }
    }
    for (int i = 0; i < n; i++) {
        if (diag_send(nl, SOCK_DESTROY, NLM_F_ACK, &ids[i])) continue;
        ssize_t len = recv(nl, buf, sizeof buf, 0);
        struct nlmsghdr *h = (struct nlmsghdr *)buf;
        if (len > 0 && h->nlmsg_type == NLMSG_ERROR && ((struct nlmsgerr *)NLMSG_DATA(h))->error == 0) dropped++;
    }
    close(nl);
    printf("dropped %d of %d\n", dropped, n);
}

int main(void) {
    char line[96];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (seed_line(line)) continue;
        if (!strncmp(line, "drop-listeners", 14)) { drop_listeners(); continue; }
        char *end = NULL;
        long long ms = strtoll(line, &end, 10);
        if (end == line || ms <= 0) continue; /* noise: bytes cut around a restore */
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        if (clock_settime(CLOCK_REALTIME, &ts)) printf("error %s\n", strerror(errno));
        else printf("set %lld\n", ms);
    }
    return 0;
}
