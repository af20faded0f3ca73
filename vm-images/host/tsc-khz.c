/* tsc-khz.c: host helper; prints the host TSC frequency in kHz (median of 5 x 100 ms against CLOCK_MONOTONIC_RAW).
 * Under TCG the guest's TSC is the host's, and a loaded host makes the guest's own PIT calibration fail or hang,
 * so the target passes this value to the guest kernel as tsc_early_khz=. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  double khz[5];
  for (int i = 0; i < 5; i++) {
    struct timespec a, b, d = {0, 100 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    uint64_t t0 = __rdtsc();
    nanosleep(&d, NULL);
    uint64_t t1 = __rdtsc();
    clock_gettime(CLOCK_MONOTONIC_RAW, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    khz[i] = (double)(t1 - t0) / ns * 1e6;
  }
  qsort(khz, 5, sizeof khz[0], cmp);
  printf("%.0f\n", khz[2]);
  return 0;
}
