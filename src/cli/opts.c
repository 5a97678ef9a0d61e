/* opts: the common options of every subcommand, parsed with getopt_long; --help from the same table. */
#include "opts.h"
#include "sweeplint/hub.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/memory.h"
#include "sweeplint/diag.h"
#include "sweeplint/report.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"

#ifndef SL_VERSION
#define SL_VERSION "unknown"
#endif

/* Keys of long-only common options (above any character). */
enum {
	OPT_SET = 256,
	OPT_HEADROOM,
	OPT_HOST_MEMORY,
	OPT_CORES,
	OPT_NO_FOLLOW,
	OPT_FETCH,
	OPT_RULE,
	OPT_COLOR,
	OPT_VERSION,
};

#define ALWAYS 0u

struct common {
	struct sl_opt o;
	unsigned group;
};

static const struct common commons[] = {
	{{"gpu", 'g', true, "NAME|SIZE", "GPU to check against: a catalog name (h100-80gb) or a size (24GiB)"},
	 SL_OPTS_MODEL},
	{{"gpus", 'n', true, "N", "GPUs per run (data parallel, ZeRO)"}, SL_OPTS_MODEL},
	{{"config", 'c', true, "FILE[:SECTION]", "trainer config the sweep overrides (repeatable)"}, SL_OPTS_MODEL},
	{{"set", OPT_SET, true, "KEY=VALUE", "set a key as if the sweep fixed it (repeatable)"}, SL_OPTS_MODEL},
	{{"no-follow", OPT_NO_FOLLOW, false, NULL, "do not read the program the sweep runs (its literal settings)"},
	 SL_OPTS_MODEL},
	{{"headroom", OPT_HEADROOM, true, "F", "fraction of GPU memory a run may plan to use (default 0.85)"},
	 SL_OPTS_MODEL},
	{{"host-memory", OPT_HOST_MEMORY, true, "SIZE", "host RAM per node, e.g. 512GiB"}, SL_OPTS_MODEL},
	{{"cores", OPT_CORES, true, "N", "CPU cores per node"}, SL_OPTS_MODEL},
	{{"fetch", OPT_FETCH, false, NULL,
	  "download config.json of Hub ids nothing else resolves (HF_ENDPOINT, HF_TOKEN; off by default)"},
	 SL_OPTS_MODEL},
	{{"rule", OPT_RULE, true, "SLUG=SEV", "set a rule's severity: off, info, warning, error (repeatable)"},
	 SL_OPTS_RULES},
	{{"format", 'f', true, "FORMAT", NULL /* built from the format names */}, SL_OPTS_OUTPUT},
	{{"color", OPT_COLOR, true, "WHEN", "auto, always or never (auto: a terminal and NO_COLOR unset)"},
	 SL_OPTS_OUTPUT},
	{{"quiet", 'q', false, NULL, "print less: no summary"}, SL_OPTS_OUTPUT},
	{{"verbose", 'v', false, NULL, "print more: hints under findings, each rule's help"}, SL_OPTS_OUTPUT},
	{{"help", 'h', false, NULL, "show this help"}, ALWAYS},
	{{"version", OPT_VERSION, false, NULL, "print the version"}, ALWAYS},
};
#define NCOMMON (sizeof commons / sizeof commons[0])

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

const char *sl_opts_version(void)
{
	return "sweeplint " SL_VERSION;
}

void sl_opts_print_version(FILE *out)
{
	struct sl_arena *a = sl_arena_new();
	const char *why = sl_hub_unavailable(a);
	fprintf(out, "%s\n--fetch: %s%s\n", sl_opts_version(), why ? "unavailable: " : "available",
		why ? why : " (libcurl loads when used)");
	sl_arena_free(a);
}

int sl_opts_error(struct sl_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sweeplint: error: ", cli->err);
	vfprintf(cli->err, fmt, ap);
	fputc('\n', cli->err);
	va_end(ap);
	return -SL_EUSAGE;
}

static bool wants(const struct sl_cmd_spec *spec, const struct common *c)
{
	return c->group == ALWAYS || (spec->common & c->group);
}

/* "text, json, sarif, github, html or auto" */
static void format_list(FILE *out)
{
	for (int i = 0; i < SL_FORMAT__COUNT; i++)
		fprintf(out, "%s%s", i ? ", " : "", sl_format_name(i));
	fputs(" or auto", out);
}

/* -f auto: GitHub annotations inside a GitHub Actions job, text elsewhere (like yamllint's auto). */
static enum sl_format auto_format(void)
{
	const char *gha = getenv("GITHUB_ACTIONS");
	return gha && *gha ? SL_FORMAT_GITHUB : SL_FORMAT_TEXT;
}

static void help_line(FILE *out, const struct sl_opt *o)
{
	char left[64];
	int n;
	if (o->key < 256)
		n = snprintf(left, sizeof left, "  -%c, --%s%s%s", o->key, o->name, o->has_arg ? " " : "",
			     o->has_arg ? o->arg : "");
	else
		n = snprintf(left, sizeof left, "      --%s%s%s", o->name, o->has_arg ? " " : "",
			     o->has_arg ? o->arg : "");
	fputs(left, out);
	for (int i = n < 0 ? 0 : n; i < 32; i++)
		fputc(' ', out);
	if (n >= 32)
		fputs("\n                                ", out);
	if (o->help) {
		fputs(o->help, out);
	} else {
		fputs("output format: ", out);
		format_list(out);
		fputs(" (default auto: github in GitHub Actions, else text)", out);
	}
	fputc('\n', out);
}

void sl_opts_help(FILE *out, const struct sl_cmd_spec *spec)
{
	fprintf(out, "usage: sweeplint %s %s\n\n%s\n", spec->name, spec->usage, spec->summary);
	if (spec->nopts) {
		fprintf(out, "\n%s options:\n", spec->name);
		for (size_t i = 0; i < spec->nopts; i++)
			help_line(out, &spec->opts[i]);
	}
	fputs("\noptions:\n", out);
	for (size_t i = 0; i < NCOMMON; i++)
		if (wants(spec, &commons[i]))
			help_line(out, &commons[i].o);
	if (spec->common & SL_OPTS_MODEL)
		fputs("\nWith no GPU given, sweeplint checks against " SL_DEFAULT_GPU " and says so.\n", out);
	fprintf(out, "\nExit status: %s.\n",
		spec->exit_help ? spec->exit_help : "0 no error-level finding, 1 error-level findings, 2 usage or I/O problem");
}

int sl_opts_size(const char *s, uint64_t *out)
{
	/* one rule for every size sweeplint reads: binary units, as for GPU sizes (sl_size_parse);
	 * here the unit is required (a bare "512" is too easy to misread) */
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || !isalpha((unsigned char)s[n - 1]))
		return -1;
	return sl_size_parse(s, out) ? 0 : -1;
}

/* A whole number in [lo, hi]. */
static int whole(const char *s, unsigned long lo, unsigned long hi, uint32_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int common_opt(struct sl_cli *cli, struct sl_run *run, int key, const char *arg, enum color_mode *color)
{
	struct sl_options *o = &run->opt;
	struct sl_arena *a = run->arena;
	switch (key) {
	case 'g':
		if (!*arg)
			return sl_opts_error(cli, "invalid --gpu '': expected a GPU name or a size such as 24GiB");
		o->gpu = sl_arena_strdup(a, arg);
		return 0;
	case 'n':
		if (whole(arg, 1, 65536, &o->num_gpus) < 0)
			return sl_opts_error(cli, "invalid --gpus '%s': expected a whole number from 1 to 65536", arg);
		return 0;
	case 'c':
		if (!*arg)
			return sl_opts_error(cli, "invalid --config '': expected FILE or FILE:SECTION");
		o->configs = sl_arena_reserve(a, o->configs, o->nconfigs, &o->configs_cap, o->nconfigs + 1, sizeof *o->configs);
		o->configs[o->nconfigs++] = sl_arena_strdup(a, arg);
		return 0;
	case OPT_NO_FOLLOW:
		o->no_follow = true;
		return 0;
	case OPT_SET: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			return sl_opts_error(cli, "invalid --set '%s': expected KEY=VALUE", arg);
		o->sets = sl_arena_reserve(a, o->sets, o->nsets, &o->sets_cap, o->nsets + 1, sizeof *o->sets);
		o->sets[o->nsets].key = sl_arena_strndup(a, arg, (size_t)(eq - arg));
		o->sets[o->nsets].value = sl_arena_strdup(a, eq + 1);
		o->nsets++;
		return 0;
	}
	case OPT_HEADROOM: {
		char *end;
		errno = 0;
		double v = strtod(arg, &end);
		if (end == arg || *end || errno || !(v > 0 && v <= 1))
			return sl_opts_error(cli, "invalid --headroom '%s': expected a fraction in (0, 1], such as 0.85",
					     arg);
		o->headroom = v;
		return 0;
	}
	case OPT_HOST_MEMORY:
		if (sl_opts_size(arg, &o->host_memory) < 0)
			return sl_opts_error(cli, "invalid --host-memory '%s': expected a size such as 512GiB", arg);
		return 0;
	case OPT_CORES:
		if (whole(arg, 1, 1u << 20, &o->cores) < 0)
			return sl_opts_error(cli, "invalid --cores '%s': expected a whole number from 1", arg);
		return 0;
	case OPT_FETCH:
		o->fetch = true;
		return 0;
	case OPT_RULE: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			return sl_opts_error(cli, "invalid --rule '%s': expected SLUG=SEVERITY", arg);
		const char *slug = sl_arena_strndup(a, arg, (size_t)(eq - arg));
		int sev = sl_severity_parse(eq + 1);
		if (sev < 0)
			return sl_opts_error(cli, "invalid --rule '%s': severity must be off, info, warning or error",
					     arg);
		int rc = sl_run_set_severity(run, slug, (enum sl_severity)sev);
		if (rc == -SL_ENOENT)
			return sl_opts_error(cli, "unknown rule '%s' in --rule (see 'sweeplint rules')", slug);
		if (rc < 0)
			return sl_opts_error(cli, "rule '%s' cannot be reconfigured", slug);
		return 0;
	}
	case 'f': {
		int f = strcmp(arg, "auto") == 0 ? (int)auto_format() : sl_format_parse(arg);
		if (f < 0) {
			fprintf(cli->err, "sweeplint: error: unknown format '%s' (expected ", arg);
			format_list(cli->err);
			fputs(")\n", cli->err);
			return -SL_EUSAGE;
		}
		o->format = (enum sl_format)f;
		return 0;
	}
	case OPT_COLOR:
		if (strcmp(arg, "auto") == 0)
			*color = COLOR_AUTO;
		else if (strcmp(arg, "always") == 0)
			*color = COLOR_ALWAYS;
		else if (strcmp(arg, "never") == 0)
			*color = COLOR_NEVER;
		else
			return sl_opts_error(cli, "invalid --color '%s': expected auto, always or never", arg);
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	default:
		return sl_opts_error(cli, "internal error: unhandled option %d", key);
	}
}

/* The option's name as the user wrote it, for messages. */
static const char *spelled(struct sl_arena *a, char **argv, int idx, int key, const struct option *lo)
{
	const char *w = argv[idx];
	if (w && w[0] == '-' && w[1] == '-') {
		size_t n = strcspn(w, "=");
		return sl_arena_strndup(a, w, n);
	}
	if (key > 0 && key < 256)
		return sl_arena_printf(a, "-%c", key);
	for (; lo && lo->name; lo++)
		if (lo->val == key)
			return sl_arena_printf(a, "--%s", lo->name);
	return w ? w : "?";
}

int sl_opts_parse(struct sl_cli *cli, const struct sl_cmd_spec *spec, struct sl_run *run, int argc, char **argv,
		  int *first)
{
	struct sl_arena *a = run->arena;
	size_t nlong = NCOMMON + spec->nopts;
	struct option *lo = sl_arena_array(a, nlong + 1, sizeof *lo);
	struct sl_buf shorts;
	sl_buf_init(&shorts, a);
	sl_buf_addc(&shorts, ':'); /* ':' for a missing argument, '?' for an unknown option */
	size_t k = 0;
	for (size_t i = 0; i < NCOMMON + spec->nopts; i++) {
		const struct sl_opt *o;
		if (i < NCOMMON) {
			if (!wants(spec, &commons[i]))
				continue;
			o = &commons[i].o;
		} else {
			o = &spec->opts[i - NCOMMON];
		}
		lo[k].name = o->name;
		lo[k].has_arg = o->has_arg ? required_argument : no_argument;
		lo[k].flag = NULL;
		lo[k].val = o->key;
		k++;
		if (o->key < 256) {
			sl_buf_addc(&shorts, (char)o->key);
			if (o->has_arg)
				sl_buf_addc(&shorts, ':');
		}
	}
	memset(&lo[k], 0, sizeof lo[k]);

	enum color_mode color = COLOR_AUTO;
	run->opt.format = auto_format(); /* -f auto is the default */
	opterr = 0;
	optind = 0; /* GNU: start afresh (the rules runner parses many argument lists) */
	int c;
	while ((c = getopt_long(argc, argv, shorts.buf, lo, NULL)) != -1) {
		if (c == '?') {
			const char *w = optopt ? sl_arena_printf(a, "-%c", optopt) : argv[optind - 1];
			if (w[0] == '-' && w[1] == '-')
				w = sl_arena_strndup(a, w, strcspn(w, "="));
			return sl_opts_error(cli, "unknown option '%s' (see 'sweeplint %s --help')", w, spec->name);
		}
		if (c == ':')
			return sl_opts_error(cli, "option '%s' needs a value (see 'sweeplint %s --help')",
					     spelled(a, argv, optind - 1, optopt, lo), spec->name);
		if (c == 'h') {
			sl_opts_help(cli->out, spec);
			return SL_OPTS_DONE;
		}
		if (c == OPT_VERSION) {
			sl_opts_print_version(cli->out);
			return SL_OPTS_DONE;
		}
		bool own = false;
		for (size_t i = 0; i < spec->nopts; i++)
			if (spec->opts[i].key == c)
				own = true;
		int rc = own ? spec->on_opt(cli, spec->ctx, c, optarg) : common_opt(cli, run, c, optarg, &color);
		if (rc < 0)
			return rc;
	}
	*first = optind;
	run->opt.hf_cache = sl_hf_cache_dir(run->arena, getenv("HF_HUB_CACHE"), getenv("HF_HOME"),
					    getenv("XDG_CACHE_HOME"), getenv("HOME"));
	/* the hub --fetch (or `fetch: true`) uses; making it reads the environment and makes no request */
	const struct sl_hub_env henv = {
		.endpoint = getenv("HF_ENDPOINT"),
		.token = getenv("HF_TOKEN") && *getenv("HF_TOKEN") ? getenv("HF_TOKEN") : getenv("HUGGING_FACE_HUB_TOKEN"),
		.token_path = getenv("HF_TOKEN_PATH"),
		.hf_home = getenv("HF_HOME"),
		.home = getenv("HOME"),
		.offline = getenv("HF_HUB_OFFLINE"),
		.timeout = getenv("HF_HUB_DOWNLOAD_TIMEOUT"),
	};
	run->opt.hub = sl_hub_new(run->arena, run->opt.hf_cache, &henv);

	if (color == COLOR_AUTO) {
		const char *nc = getenv("NO_COLOR");
		int fd = fileno(cli->out);
		run->opt.color = fd >= 0 && isatty(fd) && !(nc && *nc);
	} else {
		run->opt.color = color == COLOR_ALWAYS;
	}
	return SL_OPTS_GO;
}
