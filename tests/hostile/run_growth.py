#!/usr/bin/python3
"""run_growth: every output format and rewrite is linear in its input (issue 15), TAP.

usage: run_growth.py MEASURE SWEEPLINT SANITIZED

For each of check's formats (text, json, sarif, github), report's HTML, fix and split, an input of
size 2n and one of 4n are run (CPU time, least of 3 runs, and peak RSS, median, of the child through
tests/hostile/measure.c; common.doubling, which measures a ratio past 3 again at twice the sizes) and so is a trivial input (the floor): a linear cost doubles from 2n to 4n
once the floor is taken off, a quadratic one quadruples; each check asks for less than 3x, halfway.
Increments under 0.05 s (0.25 s under the sanitizers) or 2 MB count as that much (noise). Under the sanitizers the inputs are a
quarter of the size. Costs known to be quadratic are TODO, with why.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MEASURE, SWEEPLINT, SANITIZED = common.args()[:3]
GPU = ["-g", "24GiB"]
tap = common.Tap()
# formats whose document is still built whole at the end (the files kept until then): none now
FLAT_TODO = {}


def run(args, cwd, asan_extra=""):
    """(exit code, CPU seconds, peak RSS bytes) of one run (common.run; output discarded)."""
    extra = None
    if asan_extra:
        extra = {"ASAN_OPTIONS": ":".join(x for x in (os.environ.get("ASAN_OPTIONS", ""), asan_extra) if x)}
    r = common.run(MEASURE, SWEEPLINT, args, cwd=cwd, timeout=600, home=cwd, extra_env=extra)
    return r.rc, r.cpu, r.rss


def growth(name, tmp, make, args_of, n, base_args, todo=None, flat=None, flat_todo=None, rcs=(0, 1)):
    """flat: also ask that memory not grow at all from 2n to 4n (what is released between items)."""
    if SANITIZED:
        n = max(n // 4, 1)
    # ASan holds freed memory in a quarantine (256 MB by default): a flat check needs it small
    extra = "quarantine_size_mb=1" if flat else ""

    def cost(args, runs):
        results = [run(args, tmp, extra) for _ in range(runs)]
        return min(r[1] for r in results), sorted(r[2] for r in results)[runs // 2], {r[0] for r in results}
    # increments under the noise floor count as the floor: CPU times of a tenth of a second under the
    # sanitizers vary by more than their growth (a 250 -> 500 file run read 3.2x at 0.1 s; the plain
    # build, which tools/dev.sh and CI run too, keeps the fine floor and the full sizes)
    d = common.doubling(cost, lambda k: args_of(make(k)), n, base_args, floor_s=0.25 if SANITIZED else 0.05)
    ok = d.rt < 3 and d.rm < 3 and not d.rcs - set(rcs)
    tap.check(f"{name}: doubling the input multiplies the time by {d.rt:.1f} and the memory by {d.rm:.1f} "
              "(< 3: linear)", ok, d.why, todo=todo)
    m0, m2, m4, n = d.m0, d.m2, d.m4, d.n
    if flat:
        # flat: 2n more items add less than a quarter of what the first 2n took, and at most 4 MB more
        # than 2 MB of noise (a run that keeps every item doubles its increment here)
        grew = m4 - m2
        ok = grew < max(2 << 20, (m2 - m0) // 4) and grew < 6 << 20 and not d.rcs - set(rcs)
        tap.check(f"{flat}: memory does not grow with the count ({2 * n} -> {4 * n}: {grew / (1 << 20):+.1f} MB)", ok,
                  f"floor {m0 >> 20} MB; {2 * n}: {m2 >> 20} MB; {4 * n}: {m4 >> 20} MB", todo=flat_todo)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            path = os.path.join(tmp, name)
            open(path, "w").write(text)
            return path

        tiny = write("tiny.yaml", "method: grid\nparameters:\n  a: {values: [1, 2]}\n")
        # n unknown top-level keys: a schema finding each, through every format of check and the HTML report
        keys = lambda n: write(f"keys{n}.yaml", "method: grid\n" + "".join(f"k{i:06d}: 0\n" for i in range(n)))
        for fmt in ("text", "json", "sarif", "github"):
            growth(f"check -f {fmt} over n findings", tmp, keys, lambda p, f=fmt: ["-f", f, p], 5000,
                   ["-f", fmt, tiny])
        growth("report (HTML) over n findings", tmp, keys,
               lambda p: ["report", "-o", os.path.join(tmp, "r.html"), p], 5000,
               ["report", "-o", os.path.join(tmp, "r.html"), tiny])
        # n sweeps in one call: each file's memory released once it is reported (every format)
        def files(n):
            d = os.path.join(tmp, f"files{n}")
            os.makedirs(d, exist_ok=True)
            for i in range(n):
                write(f"files{n}/f{i}.yaml", "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base, "
                      "roberta-large]}\n  per_device_train_batch_size: {values: [8, 16, 64]}\n")
            return d
        listed = lambda d: sorted(os.path.join(d, x) for x in os.listdir(d))
        for fmt in ("text", "json", "sarif", "github"):
            growth(f"check -f {fmt} over n files", tmp, files,
                   lambda d, f=fmt: ["-q", *GPU, "-f", f] + listed(d), 500, ["-q", *GPU, "-f", fmt, tiny],
                   flat=f"check -f {fmt} over n files", flat_todo=FLAT_TODO.get(fmt))
        growth("report (HTML) over n files", tmp, files,
               lambda d: ["report", *GPU, "-o", os.path.join(tmp, "r.html")] + listed(d), 500,
               ["report", *GPU, "-o", os.path.join(tmp, "r.html"), tiny], flat="report (HTML) over n files",
               flat_todo=FLAT_TODO.get("html"))
        # fix: a batch list of n values of which the large ones run out of memory
        batches = lambda n: write(f"batches{n}.yaml", "method: grid\nparameters:\n  model_name_or_path: "
                                  "{values: [roberta-base]}\n  per_device_train_batch_size:\n    values: [" +
                                  ", ".join(str(i + 1) for i in range(n)) + "]\n")
        growth("fix over a batch list of n values", tmp, batches, lambda p: ["fix", *GPU, p], 2000,
               ["fix", *GPU, tiny])
        growth("split --exact over a batch list of n values", tmp, batches,
               lambda p: ["split", "--exact", "--dry-run", *GPU, p], 2000, ["split", "--exact", "--dry-run", *GPU, tiny])
        # split --exact planning many parts: a batch x length staircase of about n*100 combinations (a side of
        # 10*sqrt(n) values each; the parts grow with the side)
        def stair(n):
            side = int(10 * n ** 0.5)
            return write(f"stair{n}.yaml", "method: grid\nparameters:\n  model_name_or_path: {values: "
                         "[roberta-large]}\n  per_device_train_batch_size:\n    values: [" +
                         ", ".join(str(i + 1) for i in range(side)) + "]\n  max_seq_length:\n    values: [" +
                         ", ".join(str(2 * (i + 1)) for i in range(side)) + "]\n")
        growth("split --exact planning many parts (a staircase of n*100 combinations)", tmp, stair,
               lambda p: ["split", "--exact", "--dry-run", "-q", "--max-files", "100000", *GPU, p], 400,
               ["split", "--exact", "--dry-run", "-q", *GPU, tiny])
        models = lambda n: write(f"models{n}.yaml", "method: grid\nparameters:\n  model_name_or_path:\n    values: [" +
                                 ", ".join(f"m{i}" for i in range(n)) + "]\n  per_device_train_batch_size: {values: [8, 16]}\n")
        growth("split --by over n values", tmp, models,
               lambda p: ["split", "-q", *GPU, "--max-files", "100000", "--by", "model_name_or_path", "--dry-run", p],
               500, ["split", "-q", *GPU, "--by", "model_name_or_path", "--dry-run", models(2)])
        # past --max-files (default 256) the split is refused at once, whatever the list's length
        growth("split --by over n values past --max-files: refused (exit 2)", tmp, models,
               lambda p: ["split", "-q", *GPU, "--by", "model_name_or_path", "--dry-run", p], 2000,
               ["split", "-q", *GPU, "--by", "model_name_or_path", "--dry-run", models(2)], rcs=(2,))

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
