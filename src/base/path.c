/* path: file-name helpers (the directory of a path), in the arena. */
#include "sweeplint/path.h"

#include <string.h>

#include "sweeplint/arena.h"

const char *sl_path_dir(struct sl_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return sl_arena_strndup(a, path, (size_t)(slash - path));
}
