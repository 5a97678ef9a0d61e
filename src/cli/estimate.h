/*
 * estimate: what `sweeplint estimate` and `sweeplint fit` share — ROLE=VALUE
 * operands (and --set) folded into run settings through the roles module,
 * the model and GPU resolved against the catalog. Everything lives in the
 * run's arena.
 */
#ifndef SWEEPLINT_CLI_ESTIMATE_H
#define SWEEPLINT_CLI_ESTIMATE_H

#include <stdbool.h>

#include "cli.h"
#include "sweeplint/memory.h"
#include "sweeplint/roles.h"

struct sl_run;

struct sl_mem_args {
	const struct sl_catalog *cat;
	const struct sl_model *model;
	const struct sl_gpu *gpu;
	bool gpu_assumed;           /* no -g given: SL_DEFAULT_GPU */
	struct sl_settings s;
	bool has[SL_ROLE__COUNT];   /* roles given (on the command line or in a -c config) */
	bool config_only[SL_ROLE__COUNT]; /* given by a -c config and not on the command line */
	bool adapter_assumed;       /* a quantized base, no PEFT method or rank: PEFT's default LoRA */
};

/*
 * Load the catalogs and fold operands argv[first..argc) and the run's --set
 * and -n into *m. Problems are printed as `sweeplint: error: ...`; returns
 * 0 or -SL_EUSAGE / -SL_ECONFIG.
 */
int sl_mem_args_parse(struct sl_cli *cli, struct sl_run *run, int argc, char **argv, int first,
		      struct sl_mem_args *m);

/* "1.3 GiB", "812 MiB". */
const char *sl_mem_size(struct sl_run *run, uint64_t bytes);

#endif
