/*
 * pyread: a Python program's literal settings, read by the user's python3
 * running the embedded pyread.py (ast.parse only: the program is never
 * imported or executed) in a child process with bounds — the file's size
 * before it starts, RLIMIT_AS and RLIMIT_CPU inside it, a wall-clock
 * timeout and an output cap outside it. Its JSON is read with jansson and
 * each setting becomes a config entry whose node spans the literal in the
 * program's own source.
 *
 * Why a python3 subprocess rather than libtree-sitter: Debian ships the
 * tree-sitter runtime (libtree-sitter-dev 0.20) but no Python grammar, so
 * the grammar's generated parser (about 3 MB of C) would have to be vendored
 * and kept in step with the language; python3's own ast is the exact
 * grammar of the interpreter that runs the program, costs no dependency at
 * build time, and is there wherever a sweep's program runs. Without it the
 * program is not read and a note says so (docs/program.md).
 */
#include "sweeplint/program.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/source.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child: bounds, no stdin, stdout to the pipe, then python3 -I -S -B -c SCRIPT PATH MAX. */
static void child(int out_fd, const char *python, const char *script, const char *path)
{
	struct rlimit as = {SL_PROGRAM_MAX_AS, SL_PROGRAM_MAX_AS};
	struct rlimit cpu = {SL_PROGRAM_TIMEOUT_MS / 1000, SL_PROGRAM_TIMEOUT_MS / 1000 + 1};
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_CORE, &core);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	dup2(out_fd, 1);
	char max[32];
	snprintf(max, sizeof max, "%zu", SL_PROGRAM_MAX_BYTES);
	char *argv[] = {(char *)python, "-I", "-S", "-B", "-c", (char *)script, (char *)path, max, NULL};
	execvp(python, argv);
	_exit(127);
}

/*
 * Run the parser over path; returns its stdout (NUL-terminated, in a) or NULL
 * with *why set.
 */
static char *run_parser(struct sl_arena *a, const char *python, const char *path, size_t *len, const char **why)
{
	const struct sl_blob *script = sl_data_get("pyread.py");
	if (!script) {
		*why = "the embedded parser script is missing";
		return NULL;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	/* an absolute path for the child, which runs from "/" */
	char *abs = realpath(path, NULL);
	if (!abs) {
		close(fds[0]);
		close(fds[1]);
		*why = sl_arena_printf(a, "cannot read: %s", strerror(errno));
		return NULL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir("/") != 0)
			_exit(126);
		child(fds[1], python, script->bytes, abs);
	}
	free(abs);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	struct sl_buf out;
	sl_buf_init(&out, a);
	long long deadline = now_ms() + SL_PROGRAM_TIMEOUT_MS;
	bool timed_out = false, too_big = false;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		char chunk[65536];
		ssize_t n = read(fds[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out.len + (size_t)n > SL_PROGRAM_MAX_OUTPUT) {
			too_big = true;
			break;
		}
		sl_buf_add(&out, chunk, (size_t)n);
	}
	close(fds[0]);
	if (timed_out || too_big)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		*why = sl_arena_printf(a, "%s did not parse it within %d s", python, SL_PROGRAM_TIMEOUT_MS / 1000);
		return NULL;
	}
	if (too_big) {
		*why = "the parser's output passed its bound";
		return NULL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		*why = sl_arena_printf(a, "%s was not found: the program's settings are not read "
					  "(install python3 or pass --no-follow)", python);
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = WIFSIGNALED(status)
			       ? sl_arena_printf(a, "%s stopped (signal %d: past its memory or CPU bound)", python,
						 WTERMSIG(status))
			       : sl_arena_printf(a, "%s failed (exit %d)", python, WEXITSTATUS(status));
		return NULL;
	}
	sl_buf_addc(&out, '\0');
	*len = out.len - 1;
	return out.buf;
}

/* A node for one JSON literal, spanning [start, end) of src. */
static struct sl_node *make_node(struct sl_arena *a, const struct sl_source *src, const json_t *j, size_t start,
				 size_t end, unsigned depth)
{
	struct sl_node *n = sl_arena_alloc(a, sizeof *n);
	n->span = sl_source_span(src, start, end);
	n->weight = 1;
	n->kind = SL_NODE_SCALAR;
	n->style = SL_STYLE_PLAIN;
	if (json_is_string(j)) {
		n->style = SL_STYLE_DOUBLE;
		n->text_len = json_string_length(j);
		n->text = sl_arena_strndup(a, json_string_value(j), n->text_len);
		n->value.type = SL_V_STR;
	} else if (json_is_integer(j)) {
		n->value.type = SL_V_INT;
		n->value.i = (int64_t)json_integer_value(j);
		n->value.f = (double)n->value.i;
		n->text = sl_arena_printf(a, "%lld", (long long)n->value.i);
	} else if (json_is_real(j)) {
		n->value.type = SL_V_FLOAT;
		n->value.f = json_real_value(j);
		n->text = sl_arena_printf(a, "%.17g", n->value.f);
	} else if (json_is_boolean(j)) {
		n->value.type = SL_V_BOOL;
		n->value.b = json_is_true(j);
		n->text = n->value.b ? "True" : "False";
	} else if (json_is_array(j) && depth == 0) {
		n->kind = SL_NODE_SEQ;
		n->style = SL_STYLE_FLOW;
		n->n = json_array_size(j);
		n->items = sl_arena_array(a, n->n ? n->n : 1, sizeof *n->items);
		for (size_t i = 0; i < n->n; i++) {
			n->items[i] = make_node(a, src, json_array_get(j, i), start, end, depth + 1);
			n->items[i]->parent = n;
		}
		/* shown as written: ["q_proj", "v_proj"] */
		n->text = sl_arena_strndup(a, src->bytes + start, end - start);
	} else {
		n->value.type = SL_V_NULL;
		n->text = "None";
	}
	if (n->text && !n->text_len)
		n->text_len = strlen(n->text);
	return n;
}

/* The byte offset of (line, byte column) in src, clamped to the source. */
static size_t offset_of(const struct sl_source *src, json_int_t line, json_int_t col)
{
	if (line < 1 || (size_t)line > src->nlines)
		return src->len;
	size_t off = src->line_start[line - 1];
	size_t next = (size_t)line < src->nlines ? src->line_start[line] : src->len;
	if (col > 0)
		off += (size_t)col;
	return off > next ? next : off;
}

static const char **strings_of(struct sl_arena *a, const json_t *arr, size_t *n)
{
	*n = 0;
	if (!json_is_array(arr) || json_array_size(arr) == 0)
		return NULL;
	const char **v = sl_arena_array(a, json_array_size(arr), sizeof *v);
	size_t i;
	json_t *x;
	json_array_foreach(arr, i, x)
		if (json_is_string(x))
			v[(*n)++] = sl_arena_strdup(a, json_string_value(x));
	return v;
}

static void read_json(struct sl_arena *a, struct sl_pyread *r, const struct sl_source *src, const char *out,
		      size_t len, const char *python)
{
	json_error_t err;
	json_t *j = json_loadb(out, len, 0, &err);
	if (!j || !json_is_object(j)) {
		r->error = sl_arena_printf(a, "%s printed no settings (%s)", python, j ? "not an object" : err.text);
		json_decref(j);
		return;
	}
	const json_t *e = json_object_get(j, "error");
	if (json_is_string(e)) {
		json_int_t line = json_integer_value(json_object_get(j, "line"));
		r->error = line > 0 ? sl_arena_printf(a, "%s:%lld: %s", src->display, (long long)line, json_string_value(e))
				    : sl_arena_printf(a, "%s: %s", src->display, json_string_value(e));
		json_decref(j);
		return;
	}
	const json_t *tr = json_object_get(j, "trains");
	r->trains = json_is_true(tr) ? 1 : json_is_false(tr) ? 0 : -1;
	r->imports = strings_of(a, json_object_get(j, "imports"), &r->nimports);
	r->notes = strings_of(a, json_object_get(j, "notes"), &r->nnotes);
	const json_t *cf = json_object_get(j, "configs");
	if (json_is_array(cf) && json_array_size(cf)) {
		r->configs = sl_arena_array(a, json_array_size(cf), sizeof *r->configs);
		size_t i;
		json_t *c;
		json_array_foreach(cf, i, c) {
			const char *path = json_string_value(json_object_get(c, "path"));
			const char *how = json_string_value(json_object_get(c, "how"));
			if (!path || !how)
				continue;
			const char *dest = json_string_value(json_object_get(c, "dest"));
			r->configs[r->nconfigs++] = (struct sl_pyconfig){
				.path = sl_arena_strdup(a, path),
				.line = (unsigned)json_integer_value(json_object_get(c, "line")),
				.how = sl_arena_strdup(a, how),
				.dest = dest ? sl_arena_strdup(a, dest) : NULL,
			};
		}
	}
	const json_t *rf = json_object_get(j, "refs");
	if (json_is_array(rf) && json_array_size(rf)) {
		r->refs = sl_arena_array(a, json_array_size(rf), sizeof *r->refs);
		size_t i;
		json_t *c;
		json_array_foreach(rf, i, c) {
			const char *key = json_string_value(json_object_get(c, "key"));
			const char *path = json_string_value(json_object_get(c, "path"));
			const char *how = json_string_value(json_object_get(c, "how"));
			if (!key || !path || !how)
				continue;
			r->refs[r->nrefs++] = (struct sl_pyref){
				.key = sl_arena_strdup(a, key),
				.path = sl_arena_strdup(a, path),
				.how = sl_arena_strdup(a, how),
				.line = (unsigned)json_integer_value(json_object_get(c, "line")),
			};
		}
	}
	const json_t *h = json_object_get(j, "hydra");
	if (json_is_object(h) && json_is_string(json_object_get(h, "config_name"))) {
		const char *hp = json_string_value(json_object_get(h, "config_path"));
		r->hydra_path = hp ? sl_arena_strdup(a, hp) : NULL;
		r->hydra_name = sl_arena_strdup(a, json_string_value(json_object_get(h, "config_name")));
		r->hydra_line = (unsigned)json_integer_value(json_object_get(h, "line"));
	}
	const json_t *set = json_object_get(j, "settings");
	struct sl_trainer *t = sl_arena_alloc(a, sizeof *t);
	t->path = src->path;
	t->src = src;
	t->from_program = true;
	size_t nset = json_is_array(set) ? json_array_size(set) : 0;
	t->entries = sl_arena_array(a, nset ? nset : 1, sizeof *t->entries);
	for (size_t i = 0; i < nset; i++) {
		const json_t *s = json_array_get(set, i);
		const char *key = json_string_value(json_object_get(s, "key"));
		const char *how = json_string_value(json_object_get(s, "how"));
		const json_t *v = json_object_get(s, "value");
		if (!key || !*key || !how || !v)
			continue;
		size_t start = offset_of(src, json_integer_value(json_object_get(s, "line")),
					 json_integer_value(json_object_get(s, "col")));
		size_t end = offset_of(src, json_integer_value(json_object_get(s, "end_line")),
				       json_integer_value(json_object_get(s, "end_col")));
		if (end < start)
			end = start;
		struct sl_cfg_entry *en = &t->entries[t->n++];
		en->key = sl_arena_strdup(a, key);
		en->node = make_node(a, src, v, start, end, 0);
		en->how = sl_arena_strdup(a, how);
	}
	r->settings = t;
	json_decref(j);
}

static struct sl_pyread *read_file(struct sl_arena *a, const char *path, const char *display,
				   const struct sl_program_opts *o)
{
	struct sl_pyread *r = sl_arena_alloc(a, sizeof *r);
	r->trains = -1;
	const char *python = o && o->python ? o->python : "python3";
	int err = 0;
	struct sl_source *src = sl_source_read(a, path, SL_PROGRAM_MAX_BYTES, &err);
	if (!src) {
		r->error = err == EFBIG ? sl_arena_printf(a, "%s: larger than %zu KiB: not parsed", display,
							  SL_PROGRAM_MAX_BYTES >> 10)
					: sl_arena_printf(a, "%s: cannot read: %s", display, sl_source_strerror(err));
		return r;
	}
	src->display = display;
	const char *why = NULL;
	size_t len = 0;
	char *out = run_parser(a, python, path, &len, &why);
	if (!out) {
		r->error = sl_arena_printf(a, "%s: %s", src->display, why);
		return r;
	}
	read_json(a, r, src, out, len, python);
	return r;
}

struct sl_pyread *sl_pyread_file(struct sl_arena *a, const char *path, const struct sl_program_opts *o)
{
	return read_file(a, path, path, o);
}

struct sl_pyread *sl_pyread_bytes(struct sl_arena *a, const char *display, const char *bytes, size_t len,
				  const struct sl_program_opts *o)
{
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl = sl_arena_printf(a, "%s/sweeplint-pyread-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		struct sl_pyread *r = sl_arena_alloc(a, sizeof *r);
		r->trains = -1;
		r->error = sl_arena_printf(a, "%s: cannot write a temporary file: %s", display, strerror(errno));
		return r;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, bytes + off, len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	struct sl_pyread *r = read_file(a, tmpl, display, o);
	unlink(tmpl);
	return r;
}
