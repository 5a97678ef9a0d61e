/*
 * path: file-name helpers on '/'-separated paths, without touching the file
 * system. Results are strings in the arena passed in.
 */
#ifndef SWEEPLINT_PATH_H
#define SWEEPLINT_PATH_H

struct sl_arena;

/* The directory part of path ("." when none, "/" for a file at the root), in a. */
const char *sl_path_dir(struct sl_arena *a, const char *path);

#endif
