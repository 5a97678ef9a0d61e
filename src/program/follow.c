/*
 * follow: a sweep's program and the local modules it imports, read into
 * trainer configs (lowest precedence first) with notes for -v.
 */
#include "sweeplint/program.h"

#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/trainer.h"

struct follow {
	struct sl_arena *a;
	struct sl_program *p;
	size_t cap_notes;
	const char *seen[SL_PROGRAM_MAX_MODULES + 1];
	size_t nseen;
};

static void note(struct follow *F, const char *s)
{
	struct sl_program *p = F->p;
	if (p->nnotes == F->cap_notes) {
		size_t cap = F->cap_notes ? F->cap_notes * 2 : 8;
		p->notes = sl_arena_grow(F->a, p->notes, p->nnotes, cap, sizeof *p->notes);
		F->cap_notes = cap;
	}
	p->notes[p->nnotes++] = s;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file of a local module ("pkg.mod" -> DIR/pkg/mod.py or DIR/pkg/mod/__init__.py), or NULL. */
static const char *module_file(struct sl_arena *a, const char *dir, const char *mod)
{
	char *rel = sl_arena_strdup(a, mod);
	for (char *c = rel; *c; c++)
		if (*c == '.')
			*c = '/';
	const char *base = strcmp(dir, ".") == 0 ? rel : sl_arena_printf(a, "%s/%s", dir, rel);
	const char *p = sl_arena_printf(a, "%s.py", base);
	if (is_file(p))
		return p;
	p = sl_arena_printf(a, "%s/__init__.py", base);
	return is_file(p) ? p : NULL;
}

static bool seen(struct follow *F, const char *path)
{
	for (size_t i = 0; i < F->nseen; i++)
		if (strcmp(F->seen[i], path) == 0)
			return true;
	return false;
}

static void add_settings(struct follow *F, struct sl_trainer *t)
{
	struct sl_program *p = F->p;
	p->settings = sl_arena_grow(F->a, p->settings, p->nsettings, p->nsettings + 1, sizeof *p->settings);
	p->settings[p->nsettings++] = t;
}

static void add_notes(struct follow *F, const struct sl_pyread *r, const char *display)
{
	for (size_t i = 0; i < r->nnotes; i++)
		note(F, sl_arena_printf(F->a, "%s:%s", display, r->notes[i]));
}

struct sl_program *sl_program_follow(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o)
{
	struct sl_program_ref ref;
	bool ok = sl_program_find(a, sw, o, &ref);
	if (!ok && !ref.how)
		return NULL;
	struct follow F = {.a = a};
	F.p = sl_arena_alloc(a, sizeof *F.p);
	F.p->ref = ref;
	F.p->trains = -1;
	if (!ok) {
		note(&F, sl_arena_printf(a, "program not followed: %s", ref.how));
		return F.p;
	}
	if (!(strlen(ref.path) > 3 && strcmp(ref.path + strlen(ref.path) - 3, ".py") == 0)) {
		note(&F, sl_arena_printf(a, "program %s (%s): not a Python file, not read", ref.path, ref.how));
		return F.p;
	}
	note(&F, sl_arena_printf(a, "program %s (%s)", ref.path, ref.how));
	struct sl_pyread *main_r = sl_pyread_file(a, ref.path, o);
	F.seen[F.nseen++] = ref.path;
	if (main_r->error) {
		note(&F, sl_arena_printf(a, "program not read: %s", main_r->error));
		return F.p;
	}
	add_notes(&F, main_r, ref.path);
	int trains = main_r->trains;
	/* local modules it imports: found beside it or under its project folder, read before it (lower precedence) */
	const char *dirs[2] = {sl_path_dir(a, ref.path), ref.root};
	for (size_t i = 0; i < main_r->nimports && F.nseen <= SL_PROGRAM_MAX_MODULES; i++) {
		const char *file = NULL;
		for (size_t d = 0; d < 2 && !file; d++)
			if (dirs[d])
				file = module_file(a, dirs[d], main_r->imports[i]);
		if (!file || seen(&F, file))
			continue;
		F.seen[F.nseen++] = file;
		struct sl_pyread *r = sl_pyread_file(a, file, o);
		if (r->error) {
			note(&F, sl_arena_printf(a, "module %s not read: %s", main_r->imports[i], r->error));
			continue;
		}
		add_notes(&F, r, file);
		if (r->trains == 1 || (r->trains == 0 && trains == -1))
			trains = r->trains;
		if (r->settings && r->settings->n) {
			add_settings(&F, r->settings);
			note(&F, sl_arena_printf(a, "module %s (%s): %zu literal setting%s", main_r->imports[i], file,
						 r->settings->n, r->settings->n == 1 ? "" : "s"));
		}
	}
	F.p->trains = trains;
	if (main_r->settings && main_r->settings->n)
		add_settings(&F, main_r->settings);
	if (trains == 0) {
		note(&F, "the program only runs inference (generate / vLLM, no optimizer or trainer): its settings "
			 "are not used for a training estimate");
		F.p->nsettings = 0;
	}
	return F.p;
}
