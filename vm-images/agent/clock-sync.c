/* clock-sync: the guest's wall clock set from the host's. Each line `<host epoch ms>` on stdin (the guest's ttyS2, which
 * the micro-VM target writes after a restore: a restored guest's clock otherwise lags by the downtime) sets
 * CLOCK_REALTIME to it and is answered `set <ms>` (or `error <reason>`) on stdout. Static, no library but libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(void) {
    char line[64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        char *end = NULL;
        long long ms = strtoll(line, &end, 10);
        if (end == line || ms <= 0) continue; /* noise: bytes cut around a restore */
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        if (clock_settime(CLOCK_REALTIME, &ts)) printf("error %s\n", strerror(errno));
        else printf("set %lld\n", ms);
    }
    return 0;
}
