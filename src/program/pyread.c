/*
 * pyread: a Python program's settings, read by the user's python3 running
 * the embedded evaluator (pyvalues.py, pyeval.py, pysources.py, pysinks.py,
 * pyread.py, concatenated: ast.parse and an abstract evaluation, the program
 * is never imported or executed) in a child process with bounds — the file's
 * size before it starts, RLIMIT_AS and RLIMIT_CPU inside it, a wall-clock
 * timeout and an output cap outside it. The child talks JSON lines: a
 * request on its stdin, needs for config files on its stdout that the
 * caller answers (follow.c reads them, each value with its file:line:col),
 * then its answer, read with jansson: each setting becomes a config entry
 * whose node spans the value in its own source (the program, a module, a
 * config the program loads, the sweep's command).
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
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/path.h"
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

/* The evaluator's files, concatenated in this order into the one script python3 -c runs. */
static const char *const SCRIPTS[] = {"pyvalues.py", "pyeval.py", "pysources.py", "pysinks.py", "pymodules.py", "pylaunch.py",
				       "pyread.py"};

static const char *script_text(struct sl_arena *a)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < sizeof SCRIPTS / sizeof SCRIPTS[0]; i++) {
		const struct sl_blob *blob = sl_data_get(SCRIPTS[i]);
		if (!blob)
			return NULL;
		sl_buf_add(&b, blob->bytes, blob->len);
		sl_buf_addc(&b, '\n');
	}
	sl_buf_addc(&b, '\0');
	return b.buf;
}

/*
 * What python3 -c runs: it reads the evaluator from stdin (its length on the first line, the script
 * after it: the evaluator is past the 128 KiB one argument may hold) and runs it; the request and the
 * answers follow on the same stdin, read through the same buffer.
 */
static const char BOOT[] = "import sys;b=sys.stdin.buffer;n=int(b.readline());"
			   "exec(compile(b.read(n),'sweeplint-evaluator','exec'))";

/* The child: bounds, stdin from the socket, stdout to the pipe, then python3 -I -S -B -c BOOT PATH MAX. */
static void child(int in_fd, int out_fd, const char *python, const char *path)
{
	struct rlimit as = {SL_PROGRAM_MAX_AS, SL_PROGRAM_MAX_AS};
	struct rlimit cpu = {SL_PROGRAM_TIMEOUT_MS / 1000, SL_PROGRAM_TIMEOUT_MS / 1000 + 1};
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_CORE, &core);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0)
		dup2(devnull, 2);
	dup2(in_fd, 0);
	dup2(out_fd, 1);
	char max[32];
	snprintf(max, sizeof max, "%zu", SL_PROGRAM_MAX_BYTES);
	char *argv[] = {(char *)python, "-I", "-S", "-B", "-c", (char *)BOOT, (char *)path, max, NULL};
	execvp(python, argv);
	_exit(127);
}

/* Send all of buf on fd (a socket: a child that died is an error, never SIGPIPE) before deadline. */
static bool send_all(int fd, const char *buf, size_t len, long long deadline)
{
	size_t off = 0;
	while (off < len) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return false;
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n <= 0)
			return false;
		off += (size_t)n;
	}
	return true;
}

/* The reply to one {"need": KIND, "request": {...}} line (its text, without the newline, in a). */
static const char *reply_to(struct sl_arena *a, struct sl_pyeval_io *io, const char *line, size_t len)
{
	json_error_t err;
	json_t *j = json_loadb(line, len, 0, &err);
	json_t *reply = NULL;
	const char *kind = j ? json_string_value(json_object_get(j, "need")) : NULL;
	if (kind && io && io->answer)
		reply = io->answer(io->ctx, kind, json_object_get(j, "request"));
	if (!reply)
		reply = json_pack("{s:s}", "error", "not read");
	char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
	json_decref(reply);
	json_decref(j);
	if (!text)
		return NULL;
	const char *out = sl_arena_strdup(a, text);
	free(text);
	return out;
}

/* Answer one need line of the child on fd; the need and its reply go to dialog (for the cache). */
static bool answer_need(struct sl_arena *a, struct sl_pyeval_io *io, const char *line, size_t len, int fd,
			long long deadline, struct sl_buf *dialog)
{
	const char *reply = reply_to(a, io, line, len);
	if (!reply)
		return false;
	sl_buf_add(dialog, line, len);
	sl_buf_addc(dialog, '\n');
	sl_buf_adds(dialog, reply);
	sl_buf_addc(dialog, '\n');
	const char *out = sl_arena_printf(a, "%s\n", reply);
	return send_all(fd, out, strlen(out), deadline);
}

/*
 * Run the evaluator over path for at most limit_ms of wall time: send the request, answer its needs
 * (recorded in dialog), and return what it printed past them (NUL-terminated, in a), or NULL with *why
 * set (*cut: stopped at the limit).
 */
static char *run_parser(struct sl_arena *a, const char *python, const char *path, struct sl_pyeval_io *io,
			long long limit_ms, size_t *len, const char **why, bool *cut, struct sl_buf *dialog)
{
	*cut = false;
	const char *script = script_text(a);
	if (!script) {
		*why = "the embedded evaluator script is missing";
		return NULL;
	}
	int fds[2], in[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	/* an absolute path for the child, which runs from "/" */
	char *abs = realpath(path, NULL);
	if (!abs) {
		close(fds[0]);
		close(fds[1]);
		close(in[0]);
		close(in[1]);
		*why = sl_arena_printf(a, "cannot read: %s", strerror(errno));
		return NULL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir("/") != 0)
			_exit(126);
		child(in[1], fds[1], python, abs);
	}
	free(abs);
	close(fds[1]);
	close(in[1]);
	if (pid < 0) {
		close(fds[0]);
		close(in[0]);
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	long long deadline = now_ms() + limit_ms;
	const char *request = io && io->request ? io->request : "{}";
	bool timed_out = false, too_big = false;
	const char *head = sl_arena_printf(a, "%zu\n", strlen(script));
	if (!send_all(in[0], head, strlen(head), deadline) || !send_all(in[0], script, strlen(script), deadline) ||
	    !send_all(in[0], request, strlen(request), deadline) || !send_all(in[0], "\n", 1, deadline))
		timed_out = now_ms() >= deadline; /* else the child has gone: its exit status says why */
	struct sl_buf out;
	sl_buf_init(&out, a);
	size_t total = 0, line_start = 0;
	while (!timed_out) {
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
		total += (size_t)n;
		if (total > SL_PROGRAM_MAX_OUTPUT) {
			too_big = true;
			break;
		}
		sl_buf_add(&out, chunk, (size_t)n);
		/* complete lines: a need is answered and dropped; the last line is the answer */
		for (;;) {
			char *nl = memchr(out.buf + line_start, '\n', out.len - line_start);
			if (!nl)
				break;
			size_t ll = (size_t)(nl - (out.buf + line_start));
			if (ll > 8 && memcmp(out.buf + line_start, "{\"need\"", 7) == 0) {
				if (!answer_need(a, io, out.buf + line_start, ll, in[0], deadline, dialog)) {
					timed_out = now_ms() >= deadline;
					break;
				}
				memmove(out.buf + line_start, nl + 1, out.len - (line_start + ll + 1));
				out.len -= ll + 1;
				continue;
			}
			line_start += ll + 1;
		}
	}
	close(fds[0]);
	close(in[0]);
	if (timed_out || too_big)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		*cut = true;
		*why = limit_ms < SL_PROGRAM_TIMEOUT_MS
			       ? sl_arena_printf(a, "python3 did not read it within the %.1f s left of the %.1f s this run "
						    "gives to reading programs",
						 (double)limit_ms / 1000, (double)SL_PROGRAM_BUDGET_MS / 1000)
			       : sl_arena_printf(a, "python3 did not read it within %d s", SL_PROGRAM_TIMEOUT_MS / 1000);
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

/* Is the realpath real inside root? */
static bool inside_root(const char *root, const char *real)
{
	char *rr = realpath(root, NULL);
	if (!rr)
		return false;
	size_t n = strlen(rr);
	bool in = strncmp(real, rr, n) == 0 && (real[n] == '/' || real[n] == '\0' || (n == 1 && rr[0] == '/'));
	free(rr);
	return in;
}

/*
 * A node for one JSON literal, spanning [start, end) of src. pyread.py's wire() writes what JSON cannot
 * hold as {"$int": "DIGITS"} (past 64 bits: typed as YAML types the digits, a big int) and
 * {"$float": "inf"|"-inf"|"nan"}; a string keeps its NULs (text_len past strlen, as the YAML loader).
 */
static struct sl_node *make_node(struct sl_arena *a, const struct sl_source *src, const json_t *j, size_t start,
				 size_t end, unsigned depth)
{
	struct sl_node *n = sl_arena_alloc(a, sizeof *n);
	n->span = sl_source_span(src, start, end);
	n->weight = 1;
	n->kind = SL_NODE_SCALAR;
	n->style = SL_STYLE_PLAIN;
	const char *big = json_is_object(j) ? json_string_value(json_object_get(j, "$int")) : NULL;
	const char *odd = json_is_object(j) ? json_string_value(json_object_get(j, "$float")) : NULL;
	if (big) {
		/* the digits as a YAML int: a big int, its text the digits */
		struct sl_scalar_resolver *res = sl_scalar_resolver_new(a);
		n->text = sl_arena_strdup(a, big);
		n->text_len = strlen(n->text);
		n->value = sl_scalar_resolve(res, n->text, n->text_len, true, NULL, NULL);
	} else if (odd) {
		n->value.type = SL_V_FLOAT;
		n->value.f = strcmp(odd, "inf") == 0 ? INFINITY : strcmp(odd, "-inf") == 0 ? -INFINITY : NAN;
		n->text = strcmp(odd, "inf") == 0 ? "inf" : strcmp(odd, "-inf") == 0 ? "-inf" : "nan";
	} else if (json_is_string(j)) {
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

/* What one evaluation's answer is read against: its files' sources, the configs served, the command. */
struct reading {
	struct sl_arena *a;
	struct sl_pyread *r;
	const struct sl_source *main;
	struct sl_pyeval_io *io;
	const char *executable;      /* the interpreter's own path (sys.executable), when it says */
	const char **files;          /* absolute paths, index = the evaluator's file id */
	const struct sl_source **srcs;
	size_t nfiles;
};

/* A file's path as shown: relative to the working folder when it is below it. */
static const char *display_of(struct sl_arena *a, const char *real)
{
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd)) {
		char *rc = realpath(cwd, NULL);
		if (rc) {
			size_t n = strlen(rc);
			bool below = strncmp(real, rc, n) == 0 && real[n] == '/';
			free(rc);
			if (below)
				return sl_arena_strdup(a, real + n + 1);
		}
	}
	return sl_arena_strdup(a, real);
}

/* The source of file id fid (read on first use), or NULL. */
static const struct sl_source *source_of(struct reading *R, json_int_t fid)
{
	if (fid < 0 || (size_t)fid >= R->nfiles)
		return NULL;
	if (fid == 0)
		return R->main;
	if (!R->srcs[fid]) {
		int err = 0;
		struct sl_source *src = sl_source_read(R->a, R->files[fid], SL_PROGRAM_MAX_BYTES, &err);
		if (src)
			src->display = display_of(R->a, R->files[fid]);
		R->srcs[fid] = src;
	}
	return R->srcs[fid];
}

static const char *display_file(struct reading *R, const json_t *fid)
{
	if (!json_is_integer(fid))
		return NULL;
	const struct sl_source *src = source_of(R, json_integer_value(fid));
	return src ? src->display : NULL;
}

/*
 * Where a value the evaluator read is written: a node in a program file (made over its span), in a
 * config the C side served (its own entry), or a literal option of the command. NULL when unknown.
 */
static const struct sl_node *value_node(struct reading *R, const json_t *s, const json_t *v,
					const struct sl_source **src)
{
	const json_t *cfg = json_object_get(s, "config");
	if (json_is_integer(cfg)) {
		json_int_t id = json_integer_value(cfg);
		const char *key = json_string_value(json_object_get(s, "config_key"));
		if (!R->io || id < 0 || (size_t)id >= R->io->nserved || !key)
			return NULL;
		const struct sl_cfg_entry *e = sl_trainer_get(R->io->served[id], key);
		if (!e)
			return NULL;
		*src = R->io->served[id]->src;
		return e->node;
	}
	const json_t *cmd = json_object_get(s, "cmd");
	if (json_is_integer(cmd)) {
		json_int_t at = json_integer_value(cmd);
		if (!R->io || at < 0 || (size_t)at >= R->io->nargv || !R->io->argv_node[at])
			return NULL;
		/* the value as the program reads it, at the option's place ("--lr=1e-4" holds the key too) */
		*src = R->io->argv_src[at];
		const struct sl_node *opt = R->io->argv_node[at];
		return make_node(R->a, *src, v, opt->span.start, opt->span.end, 0);
	}
	const struct sl_source *fs = source_of(R, json_integer_value(json_object_get(s, "file")));
	if (!fs || !json_is_integer(json_object_get(s, "line")))
		return NULL;
	size_t start = offset_of(fs, json_integer_value(json_object_get(s, "line")),
				 json_integer_value(json_object_get(s, "col")));
	size_t end = offset_of(fs, json_integer_value(json_object_get(s, "end_line")),
			       json_integer_value(json_object_get(s, "end_col")));
	if (end < start)
		end = start;
	*src = fs;
	return make_node(R->a, fs, v, start, end, 0);
}

/* "step, step, step" of a value's provenance (JSON "chain"), or NULL. */
static const char *chain_text(struct sl_arena *a, const json_t *chain)
{
	if (!json_is_array(chain) || !json_array_size(chain))
		return NULL;
	struct sl_buf b;
	sl_buf_init(&b, a);
	size_t i;
	json_t *x;
	json_array_foreach(chain, i, x)
		if (json_is_string(x))
			sl_buf_addf(&b, "%s%s", b.len ? ", " : "", json_string_value(x));
	return b.len ? b.buf : NULL;
}

static struct sl_trainer *new_group(struct sl_arena *a, const struct sl_source *src, size_t cap)
{
	struct sl_trainer *t = sl_arena_alloc(a, sizeof *t);
	t->path = src->path;
	t->src = src;
	t->from_program = true;
	t->entries = sl_arena_array(a, cap ? cap : 1, sizeof *t->entries);
	return t;
}

/* The settings, in their order, as trainers: one per run of settings from the same source. */
static void read_settings(struct reading *R, const json_t *set)
{
	struct sl_arena *a = R->a;
	struct sl_pyread *r = R->r;
	size_t nset = json_is_array(set) ? json_array_size(set) : 0;
	r->settings = new_group(a, R->main, nset);
	r->groups = sl_arena_array(a, nset ? nset : 1, sizeof *r->groups);
	struct sl_trainer *cur = NULL;
	bool declaring = true;
	for (size_t i = 0; i < nset; i++) {
		const json_t *s = json_array_get(set, i);
		const char *key = json_string_value(json_object_get(s, "key"));
		const char *how = json_string_value(json_object_get(s, "how"));
		const json_t *v = json_object_get(s, "value");
		if (!key || !*key || !how || !v)
			continue;
		const struct sl_source *src = NULL;
		const struct sl_node *node = value_node(R, s, v, &src);
		if (!node)
			continue;
		struct sl_cfg_entry en = {
			.key = sl_arena_strdup(a, key),
			.node = node,
			.how = sl_arena_strdup(a, how),
			.chain = chain_text(a, json_object_get(s, "chain")),
		};
		if (src == R->main)
			r->settings->entries[r->settings->n++] = en;
		bool decl = json_integer_value(json_object_get(s, "rank")) == 0;
		if (!cur || cur->src != src || decl != declaring) {
			if (!decl && declaring)
				r->ndeclared = r->ngroups;
			declaring = decl;
			cur = new_group(a, src, nset - i);
			r->groups[r->ngroups++] = cur;
		}
		cur->entries[cur->n++] = en;
	}
	if (declaring)
		r->ndeclared = r->ngroups;
}

/* A sweep value of the evaluator's JSON as a scalar node (for matching a sweep parameter's values). */
static const struct sl_node *when_node(struct reading *R, const json_t *when)
{
	if (!json_is_string(when) && !json_is_number(when) && !json_is_boolean(when) && !json_is_null(when))
		return NULL;
	return make_node(R->a, R->main, when, 0, 0, 1);
}

static void read_roles(struct reading *R, const json_t *params, const json_t *maps)
{
	struct sl_arena *a = R->a;
	struct sl_pyread *r = R->r;
	size_t n = (json_is_array(params) ? json_array_size(params) : 0) + (json_is_array(maps) ? json_array_size(maps) : 0);
	r->roles = sl_arena_array(a, n ? n : 1, sizeof *r->roles);
	for (int pass = 0; pass < 2; pass++) {
		const json_t *arr = pass == 0 ? params : maps;
		size_t i;
		json_t *p;
		json_array_foreach(arr, i, p) {
			const char *param = json_string_value(json_object_get(p, "param"));
			const char *key = json_string_value(json_object_get(p, "key"));
			const char *how = json_string_value(json_object_get(p, "how"));
			if (!param || !key || !how)
				continue;
			const char *at = display_file(R, json_object_get(p, "file"));
			struct sl_param_role *role = &r->roles[r->nroles];
			*role = (struct sl_param_role){
				.param = sl_arena_strdup(a, param),
				.key = sl_arena_strdup(a, key),
				.how = at ? sl_arena_printf(a, "%s at %s:%lld", how, at,
							    (long long)json_integer_value(json_object_get(p, "line")))
					  : sl_arena_strdup(a, how),
				.chain = chain_text(a, json_object_get(p, "chain")),
			};
			const json_t *only = json_object_get(p, "only");
			const char *only_param = json_string_value(json_object_get(only, "param"));
			const json_t *only_vals = json_object_get(only, "values");
			if (only_param && json_is_array(only_vals) && json_array_size(only_vals)) {
				role->only_param = sl_arena_strdup(a, only_param);
				role->only_values = sl_arena_array(a, json_array_size(only_vals), sizeof *role->only_values);
				size_t k;
				json_t *w;
				json_array_foreach(only_vals, k, w) {
					const struct sl_node *wn = when_node(R, w);
					if (wn)
						role->only_values[role->nonly++] = wn;
				}
			}
			const json_t *cases = json_object_get(p, "cases");
			if (pass == 1) {
				if (!json_is_array(cases) || !json_array_size(cases))
					continue;
				struct sl_param_case *cs = sl_arena_array(a, json_array_size(cases), sizeof *cs);
				size_t k;
				json_t *c;
				json_array_foreach(cases, k, c) {
					struct sl_param_case *pc = &cs[role->ncases];
					pc->when = when_node(R, json_object_get(c, "when"));
					if (!pc->when)
						continue;
					pc->unset = json_is_true(json_object_get(c, "unset"));
					const json_t *u = json_object_get(c, "unknown");
					const json_t *v = json_object_get(c, "value");
					if (!pc->unset && v && !u) {
						pc->to = value_node(R, c, v, &pc->src);
						pc->chain = chain_text(a, json_object_get(c, "chain"));
					}
					if (!pc->unset && !pc->to)
						pc->unknown = json_is_string(u) ? sl_arena_strdup(a, json_string_value(u))
										: "not known";
					role->ncases++;
				}
				role->cases = cs;
			}
			r->nroles++;
		}
	}
}

/* Notes: [file id or null, text]: "path:text" for a file's, the text alone otherwise. */
static void read_notes(struct reading *R, const json_t *notes)
{
	struct sl_pyread *r = R->r;
	size_t n = json_is_array(notes) ? json_array_size(notes) : 0;
	r->notes = sl_arena_array(R->a, n ? n : 1, sizeof *r->notes);
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(notes, i);
		const char *text = json_string_value(json_array_get(x, 1));
		if (!text)
			continue;
		const char *file = display_file(R, json_array_get(x, 0));
		/* "LINE: ..." in a notebook's code: its cell and the line in it */
		char *end = NULL;
		unsigned long line = strtoul(text, &end, 10);
		const struct sl_source *fs = source_of(R, json_integer_value(json_array_get(x, 0)));
		if (file && fs && fs->notebook && end != text && *end == ':' && line <= UINT32_MAX)
			r->notes[r->nnotes++] = sl_arena_printf(R->a, "%s%s", sl_source_where_line(R->a, fs, (uint32_t)line), end);
		else
			r->notes[r->nnotes++] = file ? sl_arena_printf(R->a, "%s:%s", file, text) : sl_arena_strdup(R->a, text);
	}
}

/* The commands the program launches (pylaunch.py): their words kept as JSON text for follow.c. */
static void read_launches(struct reading *R, const json_t *ls)
{
	struct sl_pyread *r = R->r;
	size_t n = json_is_array(ls) ? json_array_size(ls) : 0;
	if (!n)
		return;
	r->launches = sl_arena_array(R->a, n, sizeof *r->launches);
	size_t i;
	const json_t *x;
	json_array_foreach(ls, i, x) {
		json_int_t fid = json_integer_value(json_object_get(x, "file"));
		const char *how = json_string_value(json_object_get(x, "how"));
		const char *shown = display_file(R, json_object_get(x, "file"));
		if (!how || !shown || fid < 0 || (size_t)fid >= R->nfiles || !*R->files[fid])
			continue;
		struct sl_pylaunch *l = &r->launches[r->nlaunches++];
		l->file = R->files[fid];
		l->shown = shown;
		l->line = (unsigned)json_integer_value(json_object_get(x, "line"));
		l->col = (unsigned)json_integer_value(json_object_get(x, "col"));
		l->end_line = (unsigned)json_integer_value(json_object_get(x, "end_line"));
		l->end_col = (unsigned)json_integer_value(json_object_get(x, "end_col"));
		l->how = sl_arena_strdup(R->a, how);
		l->reached = json_integer_value(json_object_get(x, "phase")) == 2;
		const json_t *w = json_object_get(x, "words");
		char *text = json_is_array(w) ? json_dumps(w, JSON_COMPACT) : NULL;
		l->words = text ? sl_arena_strdup(R->a, text) : NULL;
		free(text);
	}
}

static void read_json(struct reading *R, const char *out, size_t len, const char *python)
{
	struct sl_arena *a = R->a;
	struct sl_pyread *r = R->r;
	json_error_t err;
	json_t *j = json_loadb(out, len, JSON_ALLOW_NUL, &err); /* a NUL in a value is kept (pyread.py wire()) */
	if (!j || !json_is_object(j)) {
		r->error = sl_arena_printf(a, "%s printed no settings (%s)", python, j ? "not an object" : err.text);
		json_decref(j);
		return;
	}
	const json_t *e = json_object_get(j, "error");
	if (json_is_string(e)) {
		json_int_t line = json_integer_value(json_object_get(j, "line"));
		r->error = line > 0 ? sl_arena_printf(a, "%s:%lld: %s", R->main->display, (long long)line,
						      json_string_value(e))
				    : sl_arena_printf(a, "%s: %s", R->main->display, json_string_value(e));
		json_decref(j);
		return;
	}
	const char *exe = json_string_value(json_object_get(j, "executable"));
	R->executable = exe ? sl_arena_strdup(a, exe) : NULL;
	/* the files read: the program (id 0) and its local modules */
	const json_t *files = json_object_get(j, "files");
	R->nfiles = json_is_array(files) ? json_array_size(files) : 0;
	if (R->nfiles == 0)
		R->nfiles = 1;
	R->files = sl_arena_array(a, R->nfiles, sizeof *R->files);
	R->srcs = sl_arena_array(a, R->nfiles, sizeof *R->srcs);
	for (size_t i = 0; i < R->nfiles; i++) {
		const char *f = json_string_value(json_array_get(files, i));
		/* a module is read again only inside the root the evaluator was given */
		if (i > 0 && f && R->io && R->io->root && !inside_root(R->io->root, f))
			f = NULL;
		R->files[i] = f ? sl_arena_strdup(a, f) : "";
	}
	const json_t *tr = json_object_get(j, "trains");
	r->trains = json_is_true(tr) ? 1 : json_is_false(tr) ? 0 : -1;
	const char *qo = json_string_value(json_object_get(j, "quant_open"));
	r->quant_open = qo ? sl_arena_strdup(a, qo) : NULL;
	r->imports = strings_of(a, json_object_get(j, "imports"), &r->nimports);
	read_notes(R, json_object_get(j, "notes"));
	const json_t *mods = json_object_get(j, "modules");
	r->modules = sl_arena_array(a, json_is_array(mods) && json_array_size(mods) ? json_array_size(mods) : 1,
				    sizeof *r->modules);
	size_t i;
	json_t *c;
	json_array_foreach(mods, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *file = display_file(R, json_object_get(c, "file"));
		if (name && file)
			r->modules[r->nmodules++] = sl_arena_printf(a, "%s (%s)", name, file);
	}
	const json_t *cf = json_object_get(j, "configs");
	if (json_is_array(cf) && json_array_size(cf)) {
		r->configs = sl_arena_array(a, json_array_size(cf), sizeof *r->configs);
		json_array_foreach(cf, i, c) {
			const char *path = json_string_value(json_object_get(c, "path"));
			const char *how = json_string_value(json_object_get(c, "how"));
			if (!path || !how)
				continue;
			const char *dest = json_string_value(json_object_get(c, "dest"));
			const char *from = display_file(R, json_object_get(c, "file"));
			struct sl_pyconfig *pc = &r->configs[r->nconfigs++];
			*pc = (struct sl_pyconfig){
				.path = sl_arena_strdup(a, path),
				.line = (unsigned)json_integer_value(json_object_get(c, "line")),
				.how = sl_arena_strdup(a, how),
				.dest = dest ? sl_arena_strdup(a, dest) : NULL,
				.from = from ? from : R->main->display,
			};
			const json_t *rd = json_object_get(c, "reads");
			size_t k;
			const json_t *x;
			if (json_is_array(rd) && json_array_size(rd)) {
				pc->reads = sl_arena_array(a, json_array_size(rd), sizeof *pc->reads);
				json_array_foreach(rd, k, x) {
					if (!json_is_string(x)) { /* not what the evaluator writes: all of it */
						pc->reads = NULL;
						pc->nreads = 0;
						break;
					}
					pc->reads[pc->nreads++] = sl_arena_strdup(a, json_string_value(x));
				}
			}
		}
	}
	const json_t *rf = json_object_get(j, "refs");
	if (json_is_array(rf) && json_array_size(rf)) {
		r->refs = sl_arena_array(a, json_array_size(rf), sizeof *r->refs);
		json_array_foreach(rf, i, c) {
			const char *key = json_string_value(json_object_get(c, "key"));
			const char *path = json_string_value(json_object_get(c, "path"));
			const char *how = json_string_value(json_object_get(c, "how"));
			if (!key || !path || !how)
				continue;
			const char *from = display_file(R, json_object_get(c, "file"));
			r->refs[r->nrefs++] = (struct sl_pyref){
				.key = sl_arena_strdup(a, key),
				.path = sl_arena_strdup(a, path),
				.how = sl_arena_strdup(a, how),
				.line = (unsigned)json_integer_value(json_object_get(c, "line")),
				.from = from ? from : R->main->display,
			};
		}
	}
	const json_t *h = json_object_get(j, "hydra");
	if (json_is_object(h) && json_is_string(json_object_get(h, "config_name"))) {
		const char *hp = json_string_value(json_object_get(h, "config_path"));
		r->hydra_path = hp ? sl_arena_strdup(a, hp) : NULL;
		r->hydra_name = sl_arena_strdup(a, json_string_value(json_object_get(h, "config_name")));
		r->hydra_line = (unsigned)json_integer_value(json_object_get(h, "line"));
		const char *from = display_file(R, json_object_get(h, "fid"));
		r->hydra_from = from ? from : R->main->display;
	}
	const json_t *w = json_object_get(j, "wandb");
	r->wandb_reads = strings_of(a, json_object_get(w, "reads"), &r->nwandb_reads);
	r->wandb_maybe = strings_of(a, json_object_get(w, "maybe"), &r->nwandb_maybe);
	r->complete = json_is_null(json_object_get(j, "stopped"));
	r->reads_argv = !json_is_false(json_object_get(j, "reads_argv"));
	const json_t *flags = json_object_get(j, "argv_flags");
	r->argv_closed = r->reads_argv && json_is_array(flags);
	r->argv_flags = strings_of(a, flags, &r->nargv_flags);
	const json_t *wr = json_object_get(j, "wandb_replaced");
	if (json_is_object(wr)) {
		const char *from = display_file(R, json_object_get(wr, "fid"));
		r->wandb_replaced = sl_arena_printf(a, "%s:%u", from ? from : R->main->display,
						    (unsigned)json_integer_value(json_object_get(wr, "line")));
	}
	read_launches(R, json_object_get(j, "launches"));
	for (size_t k = 0; k < r->nnotes && r->complete; k++)
		if (strstr(r->notes[k], "module ") == r->notes[k] && strstr(r->notes[k], " not read"))
			r->complete = false;
	read_settings(R, json_object_get(j, "settings"));
	read_roles(R, json_object_get(j, "params"), json_object_get(j, "maps"));
	json_decref(j);
}

/*
 * Replay a kept dialog through io: every need asked again of the caller (which serves its configs and
 * composes its Hydra config again) must get the reply kept; false at the first that does not.
 */
static bool replay(struct sl_arena *a, struct sl_pyeval_io *io, const char *dialog, size_t len)
{
	const char *p = dialog, *end = dialog + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *nl2 = nl ? memchr(nl + 1, '\n', (size_t)(end - nl - 1)) : NULL;
		if (!nl2)
			return false;
		const char *got = reply_to(a, io, p, (size_t)(nl - p));
		if (!got || strlen(got) != (size_t)(nl2 - nl - 1) || memcmp(got, nl + 1, strlen(got)) != 0)
			return false;
		p = nl2 + 1;
	}
	return true;
}

/* The module files an answer names ("files" past the program itself), for the cache to watch. */
static const char *const *answer_files(struct sl_arena *a, const char *out, size_t len, size_t *n)
{
	*n = 0;
	json_error_t err;
	json_t *j = json_loadb(out, len, JSON_ALLOW_NUL, &err);
	const json_t *files = json_object_get(j, "files");
	size_t m = json_is_array(files) ? json_array_size(files) : 0;
	const char **v = sl_arena_array(a, m ? m : 1, sizeof *v);
	for (size_t i = 1; i < m; i++) {
		const char *f = json_string_value(json_array_get(files, i));
		if (f && *f)
			v[(*n)++] = sl_arena_strdup(a, f);
	}
	json_decref(j);
	return v;
}

/*
 * Read path's settings. o->cache (when set): an evaluation of the same program, interpreter and request
 * whose modules and needs have not changed is not run again (cache.c). o->budget_ms: the run's time for
 * python3; each run gets what is left (at most SL_PROGRAM_TIMEOUT_MS) and spends what it took.
 */
static struct sl_pyread *read_file(struct sl_arena *a, const char *path, const char *display,
				   const struct sl_program_opts *o, struct sl_pyeval_io *io)
{
	struct sl_pyread *r = sl_arena_alloc(a, sizeof *r);
	r->trains = -1;
	const char *python = o && o->python ? o->python : "python3";
	int err = 0;
	/* the program's own source, or the one it is a copy of (a notebook's code cells: their positions) */
	const struct sl_source *src = io ? io->main : NULL;
	if (!src) {
		struct sl_source *read = sl_source_read(a, path, SL_PROGRAM_MAX_BYTES, &err);
		if (!read) {
			r->error = err == EFBIG ? sl_arena_printf(a, "%s: larger than %zu KiB: not parsed", display,
								  SL_PROGRAM_MAX_BYTES >> 10)
						: sl_arena_printf(a, "%s: cannot read: %s", display, sl_source_strerror(err));
			return r;
		}
		read->display = display;
		src = read;
	}
	long long have = SL_PROGRAM_TIMEOUT_MS;
	if (o && o->budget_ms && *o->budget_ms < have)
		have = *o->budget_ms;
	struct sl_parse_cache *cache = o ? o->cache : NULL;
	char *rp = cache ? realpath(path, NULL) : NULL;
	const char *real = rp ? sl_arena_strdup(a, rp) : NULL;
	free(rp);
	const char *request = io && io->request ? io->request : "{}";
	const char *why = NULL, *out = NULL;
	size_t len = 0;
	struct sl_parse_hit hit;
	bool kept = real && sl_parse_cache_get(cache, real, python, request, have, &hit);
	if (kept && hit.dialog && !replay(a, io, hit.dialog, hit.dialog_len)) {
		kept = false; /* a config it was served changed: evaluate again, serving anew */
		if (io)
			io->nserved = 0;
	}
	if (kept) {
		out = hit.out;
		len = hit.len;
		why = hit.why;
	} else {
		if (have <= 0) {
			r->error = sl_arena_printf(a, "%s: not read: the %.1f s this run gives to reading programs is spent",
						   display, (double)SL_PROGRAM_BUDGET_MS / 1000);
			return r;
		}
		struct sl_buf dialog;
		sl_buf_init(&dialog, a);
		bool cut = false;
		long long t0 = now_ms();
		char *text = run_parser(a, sl_parse_cache_interpreter(cache, python), path, io, have, &len, &why, &cut,
					&dialog);
		if (o && o->budget_ms)
			*o->budget_ms -= now_ms() - t0;
		if (text) {
			/* the answer is the last line the child printed */
			while (len && text[len - 1] == '\n')
				text[--len] = '\0';
			const char *last = strrchr(text, '\n');
			if (last) {
				len -= (size_t)(last + 1 - text);
				text = (char *)last + 1;
			}
			out = text;
		}
		if (real) {
			size_t ndeps = 0;
			const char *const *deps = out ? answer_files(a, out, len, &ndeps) : NULL;
			struct sl_parse_hit what = {.out = out, .len = len, .why = out ? NULL : why,
						    .dialog = dialog.buf, .dialog_len = dialog.len};
			/* a failure before any need (no answer, or the evaluator's {"error": ...} of a program it could
			 * not parse) does not depend on the request */
			bool failed = !out || (len > 9 && memcmp(out, "{\"error\"", 8) == 0);
			sl_parse_cache_put(cache, real, python, failed && !dialog.len ? NULL : request, &what, deps, ndeps,
					   cut ? have : -1);
		}
	}
	if (!out) {
		r->error = sl_arena_printf(a, "%s: %s", src->display, why);
		return r;
	}
	struct reading R = {.a = a, .r = r, .main = src, .io = io};
	read_json(&R, out, len, python);
	if (cache && R.executable)
		sl_parse_cache_set_interpreter(cache, python, R.executable);
	return r;
}

struct sl_pyread *sl_pyread_file(struct sl_arena *a, const char *path, const struct sl_program_opts *o)
{
	return read_file(a, path, path, o, NULL);
}

struct sl_pyread *sl_pyread_eval(struct sl_arena *a, const char *path, const struct sl_program_opts *o,
				 struct sl_pyeval_io *io)
{
	return read_file(a, path, path, o, io);
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
	/* the temporary file alone: no module beside it is read */
	struct sl_pyeval_io io = {.request = "{\"root\": \"/nonexistent-root\"}"};
	struct sl_pyread *r = read_file(a, tmpl, display, o, &io);
	unlink(tmpl);
	return r;
}
