#!/usr/bin/python3
"""run_cli: declarative CLI cases for the real sweeplint binary (TAP output).

usage: run_cli.py SWEEPLINT CASE_DIR_OR_FILE...

A case is a file fixtures/cli/<suite>/<name>.test:

    # a comment
    Args: check -f json fixtures/cli/check/clean.yaml
    Env: NO_COLOR=1                 (optional; KEY=VALUE words, shell-quoted)
    Tty: stdout                     (optional; stdout is a terminal: a raw pty)
    Stdin:                          (optional block)
    > method: grid
    ExpectedExitCode: 0
    ExpectedStdout:
    > 0 errors, 0 warnings, 0 info in 1 file (...)
    ExpectedStderr:

Args are split like a shell would (shlex) and run from the repository root
(the current directory). A block is the lines after its key that start with
'>': "> text" is "text\\n", a lone ">" an empty line; a line "\\ no newline"
right after the block drops its last "\\n". In block lines "\\e" stands for
the ESC byte. ExpectedExitCode, ExpectedStdout and ExpectedStderr are
required and compared byte for byte (an empty block is empty output).
The environment is empty apart from PATH, LC_ALL=C, sanitizer options and Env.
"""
import difflib
import os
import pty
import select
import shlex
import subprocess
import sys
import tty

BLOCK_KEYS = {"Stdin", "ExpectedStdout", "ExpectedStderr"}
LINE_KEYS = {"Args", "Env", "Tty", "ExpectedExitCode"}
REQUIRED = {"Args", "ExpectedExitCode", "ExpectedStdout", "ExpectedStderr"}


class CaseError(Exception):
    pass


def parse_case(path):
    case = {}
    key = None
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, raw in enumerate(lines, 1):
        if raw.startswith(">"):
            if key not in BLOCK_KEYS:
                raise CaseError(f"{path}:{n}: a '>' line outside a block")
            text = raw[2:] if raw.startswith("> ") else raw[1:]
            if raw not in (">",) and not raw.startswith("> "):
                raise CaseError(f"{path}:{n}: block lines start with '> ' (or are a lone '>')")
            case[key] += text.replace("\\e", "\x1b") + "\n"
            continue
        if raw == "\\ no newline":
            if key not in BLOCK_KEYS or not case[key].endswith("\n"):
                raise CaseError(f"{path}:{n}: '\\ no newline' must follow a block line")
            case[key] = case[key][:-1]
            continue
        key = None
        if raw.strip() == "" or raw.startswith("#"):
            continue
        name, sep, value = raw.partition(":")
        if not sep or name not in BLOCK_KEYS | LINE_KEYS:
            raise CaseError(f"{path}:{n}: unknown line {raw!r}")
        if name in case:
            raise CaseError(f"{path}:{n}: {name} given twice")
        value = value.strip()
        if name in BLOCK_KEYS:
            if value:
                raise CaseError(f"{path}:{n}: {name} is a block: put its lines after it, each starting with '> '")
            case[name] = ""
            key = name
        else:
            case[name] = value
    missing = REQUIRED - case.keys()
    if missing:
        raise CaseError(f"{path}: missing {', '.join(sorted(missing))}")
    try:
        case["ExpectedExitCode"] = int(case["ExpectedExitCode"])
    except ValueError:
        raise CaseError(f"{path}: ExpectedExitCode must be a number") from None
    if case.get("Tty", "stdout") != "stdout":
        raise CaseError(f"{path}: Tty can only be 'stdout'")
    return case


def environment(case):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    for k, v in os.environ.items():
        if k.startswith(("ASAN_", "UBSAN_", "LSAN_", "MSAN_")):
            env[k] = v
    for word in shlex.split(case.get("Env", "")):
        k, sep, v = word.partition("=")
        if not sep:
            raise CaseError(f"Env: {word!r} is not KEY=VALUE")
        env[k] = v
    return env


def run_case(binary, case):
    argv = [binary] + shlex.split(case["Args"])
    env = environment(case)
    stdin = case.get("Stdin", "").encode("utf-8")
    if "Tty" not in case:
        p = subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr
    # stdout on a raw pseudo-terminal (no \n -> \r\n translation), stderr on a pipe
    master, slave = pty.openpty()
    tty.setraw(slave)
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    p.stdin.write(stdin)
    p.stdin.close()
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    err = p.stderr.read()
    p.wait(timeout=60)
    os.close(master)
    return p.returncode, out, err


def diff(label, want, got):
    w = want.decode("utf-8", "replace").splitlines(keepends=True)
    g = got.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(w, g, f"expected {label}", f"actual {label}")
    return "".join("  # " + repr(line.rstrip("\n"))[1:-1] + "\n" for line in lines)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    paths = []
    for arg in sys.argv[2:]:
        if os.path.isdir(arg):
            paths += sorted(os.path.join(arg, n) for n in os.listdir(arg) if n.endswith(".test"))
        else:
            paths.append(arg)
    if not paths:
        print("run_cli: no cases", file=sys.stderr)
        return 2
    failures = 0
    for i, path in enumerate(paths, 1):
        try:
            case = parse_case(path)
            code, out, err = run_case(binary, case)
        except (CaseError, subprocess.TimeoutExpired, OSError) as e:
            print(f"not ok {i} - {path}\n  # {e}")
            failures += 1
            continue
        report = ""
        if code != case["ExpectedExitCode"]:
            report += f"  # exit code {code}, expected {case['ExpectedExitCode']}\n"
        want_out = case["ExpectedStdout"].encode("utf-8")
        want_err = case["ExpectedStderr"].encode("utf-8")
        if out != want_out:
            report += diff("stdout", want_out, out)
        if err != want_err:
            report += diff("stderr", want_err, err)
        print(("ok" if not report else "not ok") + f" {i} - {path}")
        sys.stdout.write(report)
        failures += bool(report)
    print(f"1..{len(paths)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
