/* sys.c: system calls and the entry point (no libc, no crt files). */
#include "proj.h"

static long sys3(long n, long a, long b, long c) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return r;
}

long sys_read(int fd, void *buf, u64 n) { return sys3(0, fd, (long)buf, (long)n); }
long sys_write(int fd, const void *buf, u64 n) { return sys3(1, fd, (long)buf, (long)n); }
void sys_exit(int code) {
  sys3(60, code, 0, 0);
  for (;;) {
  }
}

int main(int argc, char **argv);

void start_c(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1);
  sys_exit(main(argc, argv));
}

__asm__(".global _start\n"
        "_start:\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call start_c\n"
        "  hlt\n");
