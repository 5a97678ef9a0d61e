#!/usr/bin/python3
"""run_hostile: inputs written to break a linter, each with the outcome it must get (TAP output).

usage: run_hostile.py MEASURE SWEEPLINT SANITIZED

Every case runs the real binary and asserts
  - its exit status (0/1 for a file that was linted, 2 for one that could not be),
  - a line of its output: a positioned finding `path:line:col: severity: ... [rule]`, or for I/O
    problems `path: error: ...` on stderr, positions computed here from the input, not typed in,
  - its cost: wall time < 2 s and peak RSS < 64 MB (getrusage of that one child: tests/hostile/measure.c,
    which kills it at 2.5 times the time bound).
Under ASan/UBSan (SANITIZED=true) the cost bounds are 20 s and 1 GiB: the sanitizers' shadow memory
alone is ~50 MB and they run 3-10x slower; the strict bounds hold in a plain build (tools/dev.sh runs
this suite in build-valgrind too). The loader's bounds are read from include/sweeplint/ydoc.h.
Big inputs are generated in a temporary directory; small ones are fixtures/hostile/*.yaml.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

ROOT = os.getcwd()
HOSTILE = "fixtures/hostile"


def bound(name):
    text = open(os.path.join(ROOT, "include/sweeplint/ydoc.h")).read()
    return int(re.search(r"#define %s (\d+)" % name, text).group(1))


MAX_DEPTH = bound("SL_YDOC_MAX_DEPTH")
MAX_NODES = bound("SL_YDOC_MAX_NODES")
MAX_INPUT = int(re.search(r"#define SL_MAX_INPUT_BYTES \((\d+)u << 20\)",
                          open(os.path.join(ROOT, "include/sweeplint/source.h")).read()).group(1)) << 20
MAX_EXPANSION = bound("SL_YDOC_MAX_EXPANSION")


def run(measure, limit, binary, args, close_stdin=False, stdout_path=None):
    """Run binary under measure; returns (rc, stdout, stderr, seconds, max_rss_bytes)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as report:
        sout = open(stdout_path, "wb") if stdout_path else out
        env = {k: v for k, v in os.environ.items() if k.startswith(("ASAN_", "UBSAN_", "LSAN_"))}
        env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
        env["LC_ALL"] = "C"
        pre = [measure, report.name, str(limit)] + (["--close-stdin"] if close_stdin else []) + ["--"]
        p = subprocess.run(pre + [binary] + args, stdin=subprocess.DEVNULL, stdout=sout, stderr=err, env=env,
                           cwd=ROOT)
        if stdout_path:
            sout.close()
        if p.returncode != 0:
            raise RuntimeError(f"measure failed ({p.returncode})")
        rc, secs, rss = report.read().split()[:3]
        out.seek(0)
        err.seek(0)
        return int(rc), out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), \
            float(secs), int(rss) * 1024


# ---- generated inputs ------------------------------------------------------------------------


def gen_deep_flow_seq(d):
    n = 100_000
    path = os.path.join(d, "deep-flow-seq.yaml")
    open(path, "w").write("[" * n + "]" * n + "\n")
    # the bracket that opens level MAX_DEPTH + 1 is refused
    return path, 1, MAX_DEPTH + 1


def gen_deep_flow_map(d):
    n = 100_000
    path = os.path.join(d, "deep-flow-map.yaml")
    open(path, "w").write("{a: " * n + "1" + "}" * n + "\n")
    # "{a: " is 4 characters: the brace of level MAX_DEPTH + 1
    return path, 1, 4 * MAX_DEPTH + 1


def gen_deep_block_seq(d):
    n = 100_000
    path = os.path.join(d, "deep-block-seq.yaml")
    open(path, "w").write("- " * n + "x\n")
    # "- - - x": block sequences nested on one line; the dash of level MAX_DEPTH + 1
    return path, 1, 2 * MAX_DEPTH + 1


def gen_wide_sweep(d):
    keys = MAX_NODES // 6 + 1000  # past the node bound, under the size bound (0.6 MB)
    path = os.path.join(d, "wide-sweep.yaml")
    with open(path, "w") as f:
        f.write("method: grid\nparameters:\n")
        for i in range(keys):
            f.write(f"  k{i}:\n    values: [1, 2]\n")
    # nodes in event order: root, method, grid, parameters, {params} = 5, then 6 per key
    # (key, {map}, values, [seq], 1, 2); the (MAX_NODES + 1)-th is refused
    k, within = divmod(MAX_NODES + 1 - 5 - 1, 6)
    line = 3 + 2 * k + (0 if within == 0 else 1)
    col = {0: 3, 1: 5, 2: 5, 3: 13, 4: 14, 5: 17}[within]
    return path, line, col


def gen_many_anchors(d):
    n = (MAX_NODES - 16) // 2
    path = os.path.join(d, "many-anchors.yaml")
    with open(path, "w") as f:
        f.write("method: grid\nparameters:\n  lr:\n    values:\n")
        for i in range(n // 2):
            f.write(f"    - &a{i} {i}\n")
        for i in range(n // 2):
            f.write(f"    - *a{i}\n")
    return path, None, None


def gen_many_batch_sizes(d):
    path = os.path.join(d, "many-batch-sizes.yaml")
    with open(path, "w") as f:
        f.write("method: grid\nparameters:\n  model_name: {value: bert-base-uncased}\n"
                "  max_seq_length: {values: [128, 512]}\n  per_device_train_batch_size:\n    values:\n")
        for i in range(1, 50_001):
            f.write(f"      - {i}\n")
    return path


def gen_long_korean_line(d):
    n = 100_000 // 3
    path = os.path.join(d, "long-korean-line.yaml")
    line3 = "  lr: {values: [" + ", ".join(["'가'"] * n) + ", 1e-5]}"
    open(path, "w", encoding="utf-8").write("method: grid\nparameters:\n" + line3 + "\n")
    # the finding is on 1e-5: its column counted in characters, not bytes
    return path, 3, line3.index("1e-5") + 1


def gen_big_file(d):
    path = os.path.join(d, "past-the-size-bound.yaml")
    with open(path, "wb") as f:
        f.truncate(MAX_INPUT + 1)
    return path, None, None


def gen_deep_json_config(d):
    n = 100_000
    path = os.path.join(d, "deep_config.json")
    open(path, "w").write('{"a": ' * n + "1" + "}" * n + "\n")
    return path, None, None


# ---- the cases -------------------------------------------------------------------------------

def pos(path, line, col):
    return re.escape(f"{os.path.relpath(path, ROOT)}:{line}:{col}: ")


def F(name):
    return os.path.join(ROOT, HOSTILE, name)


def cases(tmp):
    out = []

    def case(name, args, rc, stdout=None, stderr=None, **kw):
        out.append(dict(name=name, args=args, rc=rc, stdout=stdout, stderr=stderr, **kw))

    def rel(p):
        return os.path.relpath(p, ROOT)

    syntax = r"error: syntax error: "
    f = F("alias-bomb.yaml")
    # an alias of level i expands to ~10^i nodes: refused on a line of the bomb, not expanded
    case("alias bomb (10^10 nodes expanded)", [rel(f)], 1,
         stdout=re.escape(rel(f)) + r":(5|6|7|8|9|10|11|12|13):\d+: " + syntax +
         f"aliases expand to more than {MAX_EXPANSION} nodes")
    f = F("alias-bomb-merge.yaml")
    case("alias bomb through merge keys", [rel(f)], 1,
         stdout=re.escape(rel(f)) + r":\d+:\d+: " + syntax + f"aliases expand to more than {MAX_EXPANSION} nodes")
    for gen, what in ((gen_deep_flow_seq, "10^5-deep flow sequences"), (gen_deep_flow_map, "10^5-deep flow mappings"),
                      (gen_deep_block_seq, "10^5-deep block sequences")):
        p, line, col = gen(tmp)
        case(what, [rel(p)], 1, stdout=pos(p, line, col) + syntax + f"nesting deeper than {MAX_DEPTH} levels")
    p, line, col = gen_wide_sweep(tmp)
    case("17,666-key sweep (past the node bound)", [rel(p)], 1, stdout=pos(p, line, col) + syntax + f"more than {MAX_NODES} nodes")
    p, _, _ = gen_many_anchors(tmp)
    case(f"{(MAX_NODES - 16) // 4} anchors and as many aliases", [rel(p)], 0, stdout=r"^0 errors")
    p = gen_many_batch_sizes(tmp)
    case("50,000 batch sizes of a catalog model", [rel(p)], (0, 1), stdout=r"^\d+ errors?, ")
    p, line, col = gen_long_korean_line(tmp)
    case("one 200 KB line of Korean strings", [rel(p)], 0, stdout=pos(p, line, col) + r"warning: .*\[yaml11-string\]")

    def at_byte(name, needle):
        data = open(F(name), "rb").read()
        i = data.index(needle)
        line = data.count(b"\n", 0, i) + 1
        col = len(data[data.rfind(b"\n", 0, i) + 1:i].decode("utf-8", "replace")) + 1
        return pos(F(name), line, col)

    case("NUL byte", [HOSTILE + "/nul-byte.yaml"], 1,
         stdout=at_byte("nul-byte.yaml", b"\x00") + syntax + "control characters are not allowed")
    case("invalid UTF-8", [HOSTILE + "/invalid-utf8.yaml"], 1,
         stdout=at_byte("invalid-utf8.yaml", b"\xff") + syntax + "invalid leading UTF-8 octet")
    case("empty file", [HOSTILE + "/empty.yaml"], 0, stdout=pos(F("empty.yaml"), 1, 1) + r"warning: .*\[not-a-sweep\]")
    case("stdin, empty", ["-"], 0, stdout=re.escape("<stdin>:1:1: ") + r"warning: .*\[not-a-sweep\]")
    case("scalar root", [HOSTILE + "/scalar-root.yaml"], 0,
         stdout=pos(F("scalar-root.yaml"), 1, 1) + r"warning: .*an integer, not a mapping \[not-a-sweep\]")
    case("list root", [HOSTILE + "/list-root.yaml"], 0,
         stdout=pos(F("list-root.yaml"), 1, 1) + r"warning: .*a list, not a mapping \[not-a-sweep\]")
    case("several documents", [HOSTILE + "/several-documents.yaml"], 1,
         stdout=at_byte("several-documents.yaml", b"---") + syntax + "expected a single document")
    case("tab indentation", [HOSTILE + "/tabs.yaml"], 1, stdout=at_byte("tabs.yaml", b"\t") + syntax)
    # a BOM is not a character of line 1 for people: columns count from after it
    case("byte-order mark", [HOSTILE + "/bom.yaml"], 0,
         stdout=at_byte("bom.yaml", b"1e-5") + r"warning: .*\[yaml11-string\]")
    case("duplicate keys (the last wins, as in PyYAML)", [HOSTILE + "/duplicate-keys.yaml"], 0,
         stdout=at_byte("duplicate-keys.yaml", b"random\n") + r"info: random search .*\[missing-run-cap\]")
    case("merge-conflict marker", [HOSTILE + "/conflict-marker.yaml"], 1,
         stdout=re.escape(HOSTILE + "/conflict-marker.yaml") + r":(3|4):\d+: " + syntax)
    case("integers past 64 bits", [HOSTILE + "/ints-past-64-bits.yaml"], (0, 1), stdout=r"^\d+ errors?, ")
    case("negative, zero, NaN and infinite batch sizes and lengths", [HOSTILE + "/bad-numbers.yaml"], (0, 1),
         stdout=r"^\d+ errors?, ")
    case("min > max, q <= 0, NaN bounds", [HOSTILE + "/bad-distributions.yaml"], 1,
         stdout=at_byte("bad-distributions.yaml", b"64, max") + r"error: min 64 .* is not less than max 8 \[schema\]")
    case("min > max", [HOSTILE + "/min-greater-than-max.yaml"], 1,
         stdout=at_byte("min-greater-than-max.yaml", b"1.0, max") + r"error: min 1.0 .*\[schema\]")
    for v in ("-1", "0", "nan", "inf", "1e400", "99999999999999999999", "18446744073709551616"):
        case(f"--set batch_size={v}", ["--set", f"batch_size={v}", HOSTILE + "/min-greater-than-max.yaml"], 2,
             stderr=r"error: --set batch_size=" + re.escape(v) + r": value .* not a value")
        case(f"estimate batch_size={v}", ["estimate", "model=bert-base-uncased", f"batch_size={v}"], 2,
             stderr=r"error: .*" + re.escape(v))
    case("estimate at the limits (2^32 batch, 2^32 length)",
         ["estimate", "model=bert-base-uncased", "batch_size=4294967296", "seq_len=4294967296"], (0, 1),
         stdout=r"out of memory")
    p, _, _ = gen_big_file(tmp)
    case("a file past the 4 MiB input bound", [rel(p)], 2,
         stderr=re.escape(rel(p)) + r": error: cannot read: larger than the %d MiB limit" % (MAX_INPUT >> 20))
    # the bound is under the memory bound (issue 15: it was 64 MiB, past 64 MB): every file kind refuses a file
    # past it, and a sweep just under it (one long string) checks and fixes within 2 s and 64 MB
    small = os.path.join(tmp, "small.yaml")
    open(small, "w").write("method: grid\nparameters:\n  lr: {values: [0.1, 0.2]}\n")
    too_big = r"larger than the %d MiB limit" % (MAX_INPUT >> 20)
    case("a -c trainer config past the input bound", ["-c", rel(p), rel(small)], 2, stdout=too_big)
    case("a --config-file past the input bound", ["--config-file", rel(p), rel(small)], 2, stderr=too_big)
    under = os.path.join(tmp, "just-under-the-bound.yaml")
    head = "program: train.py\nmethod: grid\nname: \""
    tail = "\"\nparameters:\n  lr:\n    values: [0.1, 0.2]\n"
    open(under, "w").write(head + "x" * (MAX_INPUT - len(head) - len(tail)) + tail)
    case("a sweep just under the input bound: check", [rel(under)], 0, stdout=r"in 1 file")
    case("a sweep just under the input bound: fix -o /dev/null", ["fix", "-o", "/dev/null", rel(under)], 0,
         stderr=r"nothing to prune")
    p, _, _ = gen_deep_json_config(tmp)
    case("--config: 10^5-deep JSON", ["--config", rel(p), HOSTILE + "/min-greater-than-max.yaml"], 2,
         stdout=re.escape(rel(p)) + r":\d+:\d+: error: ", stderr=r"a --config file could not be used")
    case("a directory", [HOSTILE], 2, stderr=re.escape(HOSTILE) + r": error: cannot read: Is a directory")
    case("a missing path", [HOSTILE + "/missing.yaml"], 2,
         stderr=re.escape(HOSTILE + "/missing.yaml") + r": error: cannot read: No such file or directory")
    case("stdin closed", ["-"], 2, stderr=r"<stdin>: error: cannot read: Bad file descriptor", close_stdin=True)
    case("stdout on a full disk (/dev/full)", [HOSTILE + "/empty.yaml"], 2, stderr=r"error: cannot write output",
         stdout_path="/dev/full")
    return out


def main():
    measure, binary, sanitized, max_s, max_rss = common.args()
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".hostile-") as tmp:
        all_cases = cases(tmp)
        print(f"1..{len(all_cases)}")
        failed = 0
        for n, c in enumerate(all_cases, 1):
            limit = max_s if c.get("todo") else 2.5 * max_s
            rc, out, err, secs, rss = run(measure, limit, binary, c["args"], close_stdin=c.get("close_stdin", False),
                                          stdout_path=c.get("stdout_path"))
            problems = []
            want_rc = c["rc"] if isinstance(c["rc"], tuple) else (c["rc"],)
            if rc not in want_rc:
                problems.append(f"exit {rc}, want {' or '.join(map(str, want_rc))}")
            for stream, text in (("stdout", out), ("stderr", err)):
                if c[stream] and not re.search(c[stream], text, re.M):
                    problems.append(f"{stream} has no line matching {c[stream]!r}")
            if c["stderr"] is None and rc != 2 and err.strip() and "note:" not in err:
                problems.append("unexpected stderr")
            if secs >= max_s:
                problems.append(f"took {secs:.2f} s (bound {max_s:g} s)")
            if rss >= max_rss:
                problems.append(f"peak RSS {rss / 2**20:.1f} MiB (bound {max_rss / 2**20:g} MiB)")
            status = "ok" if not problems else "not ok"
            todo = f" # TODO {c['todo']}" if c.get("todo") else ""
            print(f"{status} {n} - {c['name']} (exit {rc}, {secs:.2f} s, {rss / 2**20:.1f} MiB){todo}")
            if problems:
                failed += not todo
                for p in problems:
                    print(f"#   {p}")
                print("#   stdout: " + "\n#   ".join(out[-2000:].splitlines()))
                print("#   stderr: " + "\n#   ".join(err[-2000:].splitlines()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
