/* effects.h: the agent's external effects (issue 34, docs/effects.md): requests on the console, relayed by the host. */
#ifndef SOAK_EFFECTS_H
#define SOAK_EFFECTS_H
#include <stddef.h>

/* What the agent gives the effects: its console and what to do with a console command that arrives during a wait. */
typedef struct {
  int in;                                 /* console fd to read replies from */
  void (*write)(const char *s, size_t n); /* write to the console */
  void (*command)(char c);                /* a host command byte ('F', 'H', 'R') read while waiting for a reply */
} effects_io;

/* Turn effects on from SOAK_EFFECTS ("<seed>:<everySteps>"; NULL or empty: off); effects.txt goes in workspace. */
void effects_init(const char *spec, const char *workspace);
/* At step n of session nonce: if it is an effect step, one request per discipline, each acknowledged before counted. */
void effects_at_step(unsigned long n, const char *nonce, const effects_io *io);
/* The claim a full heartbeat carries (" E <through> <step-key> <random-key> <no-key>"), or "" with effects off. */
void effects_claim(char *out, size_t size);

#endif
