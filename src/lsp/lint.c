/*
 * lint: check one document's text the way cmd_check checks a file (lint.h):
 * the base options, then the project config (found upward from the path, or
 * --config-file), then the checks. A config that cannot be used stops the
 * lint with its problems shown, as `check` stops the file; a document the
 * config ignores gets no findings; a text past SL_MAX_INPUT_BYTES is not
 * checked (the limit `check` refuses files past).
 */
#include "lint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/config.h"
#include "sweeplint/hub.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

static bool is_config(const char *path)
{
	const char *base = strrchr(path, '/');
	return strcmp(base ? base + 1 : path, SL_CONFIG_NAME) == 0;
}

/* A project config document: its own problems when the text is what is on disk. */
static void lint_config(const struct sl_lsp_options *o, struct sl_lsp_lint *l, const char *path, const char *text,
			size_t len)
{
	struct sl_run *run = l->run;
	int err = 0;
	struct sl_source *disk = sl_source_read(run->arena, path, SL_MAX_INPUT_BYTES, &err);
	if (!disk || disk->len != len || memcmp(disk->bytes, text, len) != 0)
		return; /* being edited (or not saved yet): checked when saved */
	struct sl_config *config = NULL;
	int errnum = 0;
	l->self = path;
	if (sl_config_load(run, path, o->parse_size, &config, &l->extra, &errnum) != 0 && errnum)
		return; /* unreadable; otherwise its problems, warnings included, are published */
	sl_diags_sort(&l->extra);
}

struct sl_lsp_lint *sl_lsp_lint(const struct sl_lsp_options *o, const char *path, const char *display,
				const char *text, size_t len)
{
	struct sl_run *run = sl_run_new();
	run->parse_cache = o->parse_cache; /* a program parsed for an earlier lint is not parsed again */
	struct sl_arena *a = run->arena;
	struct sl_lsp_lint *l = sl_arena_alloc(a, sizeof *l);
	l->run = run;
	sl_diags_init(&l->extra, a);
	if (!text || len > SL_MAX_INPUT_BYTES) {
		l->note = sl_arena_printf(a,
					  "not checked: the document is %zu bytes, past the %u MiB limit sweeplint "
					  "checks (sweeplint check refuses such a file too)%s",
					  len, SL_MAX_INPUT_BYTES >> 20,
					  text ? "" : "; the server keeps no text past it, so it follows the document "
						      "again from its next full text (a change without range, a save)");
		return l;
	}
	if (path && is_config(path)) {
		lint_config(o, l, path, text, len);
		return l;
	}
	const char *cpath = o->config_file ? o->config_file : sl_config_find(a, path ? path : "-", NULL);
	struct sl_config *config = NULL;
	if (cpath) {
		int errnum = 0;
		int rc = sl_config_load(run, cpath, o->parse_size, &config, &l->extra, &errnum);
		if (rc == -SL_EIO) {
			l->note = sl_arena_printf(a, "not checked: cannot read config file '%s': %s", cpath,
						  strerror(errnum));
			return l;
		}
		if (rc != 0) {
			sl_diags_sort(&l->extra);
			l->note = sl_arena_printf(a, "not checked: config file '%s' cannot be used", cpath);
			return l;
		}
		l->config = cpath;
	}
	if (path && sl_config_ignores(a, config, path))
		return l;
	struct sl_config_base base = {
		.opt = o->base->opt,
		.severity = o->base->severity,
		.severity_set = o->base->severity_set,
	};
	sl_config_apply(run, &base, config);
	/* each lint is a run of --fetch's budget; the hub (the server's) keeps its answers across lints, so a
	 * failed download is not asked again on every change (hub.h) */
	if (run->opt.fetch && run->opt.hub)
		sl_hub_new_run(run->opt.hub);
	struct sl_source *src = sl_source_from_bytes(a, path ? path : "-", text, len);
	src->display = display;
	l->file = sl_run_check_source(run, src);
	return l;
}

void sl_lsp_lint_free(struct sl_lsp_lint *l)
{
	if (l)
		sl_run_free(l->run);
}
