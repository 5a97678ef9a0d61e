#!/usr/bin/python3
"""doc_examples: the CLI output README.md and docs/*.md show, run and compared (or rewritten).

usage: doc_examples.py SWEEPLINT [DOC...]            exit 1 naming each block that is stale
       doc_examples.py SWEEPLINT --write [DOC...]    rewrite the output of each stale block in place

Without DOC: README.md and docs/*.md. A checked example is a fenced block (``` with no language,
or console/text) whose first line is `$ sweeplint ARGS`. Each `$ sweeplint ARGS` line in it (a
trailing backslash continues it on the next line; `# ...` is a shell comment) is followed by the
output the command prints: stdout, then stderr, no colour. A line `...` (indented or not) stands
for any number of lines, so a block may show the head and the last line of a long output.
Any other block (usage synopses, message templates, timings) is prose and is not run.

The commands run from a scratch folder that links the repository's top-level entries (so `report`
and `fix -o` write there, not into the tree), with only PATH=/usr/bin:/bin, LC_ALL=C.UTF-8 and
HOME (the scratch folder: no Hugging Face cache, no user config) set. `sweeplint` is SWEEPLINT.
The meson test 'doc-examples' (suite docs) runs the check; tools/dev.sh runs it on the README with
the binary built from the README's package set only.
"""
import difflib
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCES = ("```", "```console", "```text")
PROMPT = "$ sweeplint"


class Example:
    """One `$ sweeplint ...` command of a block and the output lines shown under it."""

    def __init__(self, doc, line, argv, text, first, last):
        self.doc, self.line = doc, line          # the `$` line (1-based)
        self.argv, self.text = argv, text        # the arguments after `sweeplint`; the command as written
        self.first, self.last = first, last      # 0-based [first, last) lines of the shown output
        self.want = []


def examples(doc, lines):
    """Every checked command of a document, in order."""
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        j = i + 1
        if lines[i].rstrip() in FENCES and j < end and lines[j].startswith(PROMPT + " "):
            while j < end:
                start = j
                text = lines[j][2:]
                while text.endswith("\\") and j + 1 < end:
                    j += 1
                    text = text[:-1] + " " + lines[j].strip()
                words = shlex.split(text, comments=True)
                j += 1
                ex = Example(doc, start + 1, words[1:], text, j, j)
                while j < end and not lines[j].startswith("$ "):
                    j += 1
                ex.last = j
                ex.want = lines[ex.first:ex.last]
                if not words or words[0] != "sweeplint":
                    raise SystemExit(f"{doc}:{start + 1}: a checked block runs only sweeplint: {text!r}")
                out.append(ex)
        i = end + 1
    return out


def is_gap(line):
    return line.strip() == "..."


def matches(want, got):
    """Whether got fits want, where a `...` line of want stands for any number of lines."""
    parts = [[]]
    for line in want:
        if is_gap(line):
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return want == got
    head, tail, middle = parts[0], parts[-1], parts[1:-1]
    if len(head) + len(tail) > len(got) or got[:len(head)] != head or got[len(got) - len(tail):] != tail:
        return False
    pos, stop = len(head), len(got) - len(tail)
    for part in middle:
        while pos + len(part) <= stop and got[pos:pos + len(part)] != part:
            pos += 1
        if pos + len(part) > stop:
            return False
        pos += len(part)
    return True


def rewritten(want, got):
    """The block lines for got, keeping want's shape: as many head and tail lines around one `...`."""
    gaps = [k for k, line in enumerate(want) if is_gap(line)]
    if not gaps:
        return got
    if len(gaps) > 1:
        return None
    k = gaps[0]
    head, tail = k, len(want) - k - 1
    if head + tail >= len(got):
        return got
    return got[:head] + [want[k]] + (got[len(got) - tail:] if tail else [])


def scratch():
    d = tempfile.mkdtemp(prefix="doc-examples-")
    for name in os.listdir(ROOT):
        if name != ".git" and not name.startswith("build"):
            os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    return d


def run(exe, argv, cwd):
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": cwd}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    p = subprocess.run([exe, *argv], cwd=cwd, env=env, capture_output=True, timeout=120)
    text = (p.stdout + p.stderr).decode("utf-8", "replace")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def main():
    args = sys.argv[1:]
    write = "--write" in args
    args = [a for a in args if a != "--write"]
    if not args or args[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    exe = os.path.abspath(args[0])
    docs = args[1:] or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    stale = 0
    checked = 0
    cwd = scratch()
    try:
        for doc in docs:
            with open(doc, encoding="utf-8") as f:
                lines = f.read().split("\n")
            name = os.path.relpath(doc, ROOT)
            edits = []
            for ex in examples(name, lines):
                checked += 1
                got = run(exe, ex.argv, cwd)
                if matches(ex.want, got):
                    continue
                new = rewritten(ex.want, got) if write else None
                if new is not None:
                    edits.append((ex, new))
                    print(f"{name}:{ex.line}: rewrote the output of `{ex.text}`")
                    continue
                stale += 1
                print(f"{name}:{ex.line}: the block's output of `{ex.text}` (lines {ex.first + 1}-{ex.last}) is not what "
                      f"it prints now; update those lines, or run\n    python3 tools/doc_examples.py "
                      f"{os.path.relpath(exe, ROOT)} --write {name}\n  (`...` lines stand for any number of lines)")
                for d in difflib.unified_diff(ex.want, got, f"{name} (shown)", "sweeplint (prints)", lineterm="", n=1):
                    print("    " + d)
            for ex, new in reversed(edits):
                lines[ex.first:ex.last] = new
            if edits:
                with open(doc, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
    finally:
        shutil.rmtree(cwd)
    print(f"{checked} examples checked, {stale} stale" + (" (--write cannot keep more than one '...' a block)"
                                                          if write and stale else ""))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
