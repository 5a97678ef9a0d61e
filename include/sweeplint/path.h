/*
 * path: file-name helpers on '/'-separated paths, and the containment rule
 * for every file sweeplint reads on a project's behalf (docs/reliability.md
 * "Containment"). Results are strings in the arena passed in.
 */
#ifndef SWEEPLINT_PATH_H
#define SWEEPLINT_PATH_H

#include <stdbool.h>

struct sl_arena;

/* The directory part of path ("." when none, "/" for a file at the root), in a. */
const char *sl_path_dir(struct sl_arena *a, const char *path);

/* path with "dir/.." and "./" removed lexically, for the names shown (in a). */
const char *sl_path_tidy(struct sl_arena *a, const char *path);

/*
 * Containment. A file a sweep, a program, a config or .sweeplint.yaml names
 * (a program, its modules, the configs it loads, Hydra groups, a model
 * folder, .sweeplint.yaml program:/config_dir:/models:) is read only when its
 * realpath lies inside the project root of the file that names it; otherwise
 * it is refused with a note that names the path and never its content. The
 * files given on the command line (the sweep, -c, --config-file) and the
 * Hugging Face cache are the only files read from outside a project.
 *
 * The project root of a folder DIR (sl_project_root): the realpath of the
 * nearest folder at or above DIR holding .git (a folder or a file: the
 * repository), else the nearest holding .sweeplint.yaml, else DIR itself. A
 * marker counts only when you or root own it (as git's safe.directory), and
 * only in a folder below $HOME when DIR is under $HOME, never in /, and in a
 * top-level folder only as a repository (/workspace/.git in a container): a
 * repository at $HOME (dotfiles) or a .sweeplint.yaml in /tmp never makes
 * your home or /tmp the project.
 * NULL when DIR cannot be resolved.
 */
const char *sl_project_root(struct sl_arena *a, const char *dir);

enum sl_contain {
	SL_CONTAIN_INSIDE,          /* exists; its realpath is inside root: read *real, not path */
	SL_CONTAIN_OUTSIDE,         /* resolves outside root (whether or not it exists): never read it */
	SL_CONTAIN_MISSING,         /* would be inside root but does not exist (or cannot be resolved) */
};

/*
 * Where path (relative to the working folder, or absolute) resolves with
 * realpath(3), judged against root (a path sl_project_root returned; NULL:
 * no containment, for the command line's own files; "": nothing is inside). A path that does not
 * exist is judged by its deepest existing folder, so an outside path is
 * OUTSIDE whether or not the file is there (no answer tells whether a file
 * outside the project exists). *real (may be NULL) gets the realpath when
 * INSIDE, else NULL. The judgement holds for the tree as it is: a link
 * swapped in between the check and the read by someone writing into the
 * project while it is linted is not guarded against.
 */
enum sl_contain sl_path_contain(struct sl_arena *a, const char *root, const char *path, const char **real);

/* Is the realpath `real` root itself or below it? (root NULL: yes, no bound; "": no, no project) */
bool sl_path_inside(const char *root, const char *real);

/* The note for a refused path: "PATH is outside the project (ROOT): not read". */
const char *sl_path_refusal(struct sl_arena *a, const char *path, const char *root);

#endif
