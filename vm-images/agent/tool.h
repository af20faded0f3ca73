/* tool.h: entry point of the tool process (runs in a forked child of the agent). */
#ifndef SOAK_TOOL_H
#define SOAK_TOOL_H
#include <stdio.h>
int tool_main(FILE *in, FILE *out);
#endif
