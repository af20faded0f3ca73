// subreaper PROGRAM [ARG...]: run an exec target's adapter so that every process it starts stays its descendant.
// This process marks itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a process the adapter detaches
// (`runsc run -detach` re-parents its sandbox and gofer away from the adapter) is adopted here instead of by init: the
// session host can then prove, by walking parent ids up to this process, that a PID the adapter declares is its own.
// It forks the adapter as its child (dying with it: PR_SET_PDEATHSIG) and stays as the parent that reaps every adopted
// orphan (Node never waits for children it did not spawn: they would pile up as zombies, two per gVisor checkpoint).
// It forwards SIGTERM, SIGINT and SIGHUP to the adapter and exits as the adapter did (same code, or same signal).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t adapter = 0;

static void forward(int sig) {
  if (adapter > 0) kill(adapter, sig);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: subreaper PROGRAM [ARG...]\n");
    return 127;
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    fprintf(stderr, "subreaper: prctl(PR_SET_CHILD_SUBREAPER): %s\n", strerror(errno));
    return 127;
  }
  pid_t self = getpid();
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "subreaper: fork: %s\n", strerror(errno));
    return 127;
  }
  if (child == 0) {
    // A SIGKILL of this launcher alone takes the adapter with it; a launcher gone before this line: exit at once.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self) _exit(127);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "subreaper: cannot run %s: %s\n", argv[1], strerror(errno));
    _exit(127);
  }
  adapter = child;
  // The adapter alone speaks on stdin/stdout: drop this process's copies (its stdout must reach EOF with the adapter).
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    if (null > 1) close(null);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  for (;;) {
    int status = 0;
    pid_t p = waitpid(-1, &status, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      return 127; // no child left: cannot happen before the adapter's own exit was seen
    }
    if (p != child) continue; // an adopted orphan, reaped
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
}
