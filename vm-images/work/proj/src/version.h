/* version.h: the build's iteration, edited by the workload before every build. */
#define ITER 0
