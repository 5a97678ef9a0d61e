/*
 * fuzz_check: arbitrary bytes as a sweep file through the whole check
 * pipeline — loader, PyYAML typing, the W&B view, every rule, suppressions —
 * and through a report. The report format and the GPU are taken from the
 * input's length so that seed files stay as they are. Ownership: one run (and
 * its arena) per input, freed before returning.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sweeplint/report.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const gpus[] = {NULL, "t4", "h100-80gb", "24GiB"};
	struct sl_run *run = sl_run_new();
	run->opt.format = (enum sl_format)(size % SL_FORMAT__COUNT);
	run->opt.gpu = gpus[(size / SL_FORMAT__COUNT) % 4];
	run->opt.verbose = (int)(size & 1);
	/* no python3 per input: a fuzzed program: would parse whatever .py the working folder holds
	 * (following the program is tested in tests/unit/test_program.c) */
	run->opt.no_follow = true;
	/* at most 2^14 combinations per input: the enumeration's cost per combination is the same at
	 * any count, and a seed with 21 two-valued axes (2^21 combinations, ~1 s in a release build)
	 * passed libFuzzer's 5 s timeout under ASan and coverage; the default bound is tested by
	 * tests/hostile/run_defects.py and the rule fixtures */
	run->opt.max_combos = (uint64_t)1 << 14;
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		abort();
	struct sl_source *src = sl_source_from_bytes(run->arena, "fuzz.yaml", (const char *)data, size);
	struct sl_report *rep = sl_report_new(run->arena, &run->opt, out);
	struct sl_file *f = sl_run_check_source(run, src);
	sl_report_file(rep, f);
	sl_report_finish(rep);
	fclose(out);
	sl_run_free(run);
	return 0;
}
