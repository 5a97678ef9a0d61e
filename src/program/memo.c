/*
 * memo: the config files a run's program following reads (a config a program
 * loads, a Hydra file), each parsed once per run: the same file (realpath,
 * device, inode, size, mtime) again gives the config read the first time, or
 * why it could not be read. The configs live in the memo's arena (the run's),
 * so they outlast the sweeps that read them; they are shared: a caller copies
 * what it changes. (issue 34: a 1.1 MB Hydra config was parsed once per
 * inclusion, and a run of many sweeps parsed their shared configs once each.)
 */
#include "sweeplint/program.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/trainer.h"

struct memo_entry {
	const char *real;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct sl_trainer *t;        /* NULL: not read */
	const char *why;             /* then why */
	int rc;
};

struct sl_config_memo {
	struct sl_arena *a;
	struct memo_entry *v;
	size_t n, cap;
	size_t loads;                /* files parsed (tests) */
};

struct sl_config_memo *sl_config_memo_new(struct sl_arena *a)
{
	struct sl_config_memo *m = sl_arena_alloc(a, sizeof *m);
	m->a = a;
	return m;
}

size_t sl_config_memo_loads(const struct sl_config_memo *m)
{
	return m ? m->loads : 0;
}

int sl_config_memo_load(struct sl_config_memo *m, struct sl_arena *a, const char *path,
			const struct sl_scalar_resolver *res, struct sl_trainer **out, const char **why)
{
	*out = NULL;
	*why = NULL;
	struct stat st;
	char *real = m ? realpath(path, NULL) : NULL;
	bool keyed = real && stat(real, &st) == 0;
	if (keyed)
		for (size_t i = 0; i < m->n; i++) {
			const struct memo_entry *e = &m->v[i];
			if (e->dev == st.st_dev && e->ino == st.st_ino && e->size == st.st_size &&
			    e->mtime.tv_sec == st.st_mtim.tv_sec && e->mtime.tv_nsec == st.st_mtim.tv_nsec &&
			    strcmp(e->real, real) == 0) {
				free(real);
				*out = e->t;
				*why = e->why;
				return e->rc;
			}
		}
	struct sl_arena *into = keyed ? m->a : a;
	struct sl_diags quiet;
	sl_diags_init(&quiet, into);
	struct sl_trainer *t = NULL;
	int rc = sl_trainer_load(into, path, NULL, res, &quiet, &t);
	if (m)
		m->loads++;
	if (rc < 0) {
		t = NULL;
		*why = quiet.n ? quiet.v[0].message : "not a mapping";
	}
	if (keyed) {
		m->v = sl_arena_reserve(m->a, m->v, m->n, &m->cap, m->n + 1, sizeof *m->v);
		m->v[m->n++] = (struct memo_entry){.real = sl_arena_strdup(m->a, real), .dev = st.st_dev,
						   .ino = st.st_ino, .size = st.st_size, .mtime = st.st_mtim,
						   .t = t, .why = *why, .rc = rc};
	}
	free(real);
	*out = t;
	return rc;
}
