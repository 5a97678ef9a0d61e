/*
 * child: run the user's python3 on an embedded script once, with the bounds of program.h — the
 * script and a request on its stdin, its answer read from its stdout within a wall-clock timeout and
 * an output cap, RLIMIT_AS and RLIMIT_CPU inside it, run from "/" with -I -S -B so that nothing of
 * the current folder, PYTHONPATH or site-packages is imported.
 */
#ifndef SWEEPLINT_PYSWEEP_CHILD_H
#define SWEEPLINT_PYSWEEP_CHILD_H

#include <stddef.h>

struct sl_arena;

/*
 * Run python (NULL: "python3") on script (NUL-terminated) with request sent after it on stdin.
 * Returns its standard output (NUL-terminated, in a; *len bytes), or NULL with *why.
 */
char *sl_pychild_run(struct sl_arena *a, const char *python, const char *script, const char *request,
		     size_t request_len, size_t *len, const char **why);

#endif
