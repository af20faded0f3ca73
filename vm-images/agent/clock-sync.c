/* clock-sync: the guest's wall clock set from the host's. Each line `<host epoch ms>` on stdin (the guest's ttyS2, which
 * the micro-VM target writes after a restore: a restored guest's clock otherwise lags by the downtime) sets
 * CLOCK_REALTIME to it and is answered `set <ms>` (or `error <reason>`) on stdout; a `seed` line reseeds the kernel RNG
 * (seed_line). Static, no library but libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

int main(void) {
    char line[96];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (seed_line(line)) continue;
        char *end = NULL;
        long long ms = strtoll(line, &end, 10);
        if (end == line || ms <= 0) continue; /* noise: bytes cut around a restore */
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        if (clock_settime(CLOCK_REALTIME, &ts)) printf("error %s\n", strerror(errno));
        else printf("set %lld\n", ms);
    }
    return 0;
}
