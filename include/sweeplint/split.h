/*
 * split: what `sweeplint split` needs besides the boxes of rewrite.h — file
 * names made safe from values (never a path out of the output folder), and
 * a run_cap shared out among the split sweeps. Strings live in the arena
 * given; arrays belong to the caller.
 */
#ifndef SWEEPLINT_SPLIT_H
#define SWEEPLINT_SPLIT_H

#include <stddef.h>
#include <stdint.h>

struct sl_arena;

/*
 * The most sweeps one `split` writes unless --max-files says otherwise: a
 * split into hundreds of sweeps is almost always a mistake (a list of model
 * names by --by, or an --exact cover of a fine grid), and each is rendered and
 * checked before any is written. --max-files accepts up to SL_SPLIT_MAX_FILES_LIMIT.
 */
#define SL_SPLIT_MAX_FILES 256
#define SL_SPLIT_MAX_FILES_LIMIT 100000

/*
 * A value as one file-name component: no '/', '\', no "..", no control
 * characters or shell-troubling bytes (each becomes '_'), valid UTF-8 kept,
 * not starting with '-' or '.', not ending with '.', at most 80 bytes, never
 * empty. "BAAI/bge-m3" -> "BAAI_bge-m3".
 */
const char *sl_split_safe_name(struct sl_arena *a, const char *value);

/*
 * The stem and extension of a sweep's file name: "runs/sweep.yml" ->
 * "sweep", ".yml"; "train.py" -> "train", ".py" (.ipynb the same: a part of a sweep written
 * in Python is the code with its dict narrowed); anything else keeps its whole name and gets
 * ".yaml".
 */
void sl_split_stem(struct sl_arena *a, const char *path, const char **stem, const char **ext);

/*
 * File names STEM.PART.EXT for parts[0..n) (a NULL part gives STEM.EXT), each
 * part made safe; names that collide without regard to case (with each other
 * or with `reserved`, e.g. the input's own name) get -2, -3, ... Writes out[0..n).
 */
void sl_split_names(struct sl_arena *a, const char *stem, const char *ext, const char *const *parts, size_t n,
		    const char *reserved, const char **out);

/*
 * Share run_cap among n sweeps in proportion to weights (their combination
 * counts), each at least 1 (W&B's run_cap is > 0), summing to run_cap
 * (largest remainder). Writes caps[0..n). False, writing nothing, when
 * run_cap < n: the shares cannot sum to the cap.
 */
bool sl_split_run_caps(uint64_t run_cap, const uint64_t *weights, size_t n, uint64_t *caps);

#endif
