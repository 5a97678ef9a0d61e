#!/usr/bin/python3
"""run_wheel: the Python package (pyproject.toml, meson-python) built and installed, offline.

usage: run_wheel.py SWEEPLINT PROJECT_ROOT     (TAP output; exit 77 when a tool is missing)

1. `python3 -m build --wheel --no-isolation` builds the wheel from PROJECT_ROOT with Debian's
   meson-python (ninja -j2; meson-python builds in a temporary .mesonpy-* folder of the project, and
   its 0.12 cannot be given another: `-Cbuilddir` reconfigures a folder that was never set up).
2. The wheel holds one file under .data/scripts, `sweeplint`, an ELF executable whose dynamic
   section (readelf -d) needs only glibc's libraries and sets no RPATH/RUNPATH: libyaml, libcyaml,
   PCRE2 and jansson are linked in (-Dprefer_static=true in pyproject.toml). A library that only
   an opt-in feature needs (libcurl for fetching model configs) must be dlopen'ed, not linked.
3. The wheel installs with pip into a fresh virtualenv (no system site packages, --no-index), and
   the venv's `sweeplint` lints the bundled example (README's command) with the same output and
   exit status as the build tree's SWEEPLINT, and prints the project version.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
# glibc's own shared objects: what a binary may still need when everything else is static
GLIBC = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
         "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
EXAMPLE = ["--gpu", "h100-80gb", "--config", "examples/bi-encoder/train.yaml",
           "examples/bi-encoder/sweep.yaml"]

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))
    return ok


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, timeout=600, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def missing_tools():
    missing = []
    for mod, pkg in (("mesonpy", "python3-mesonpy"), ("build", "python3-build"), ("ensurepip", "python3-venv")):
        if run([PY, "-c", f"import {mod}"])[0] != 0:
            missing.append(pkg)
    for exe, pkg in (("patchelf", "patchelf"), ("readelf", "binutils"), ("ninja", "ninja-build")):
        if not shutil.which(exe):
            missing.append(pkg)
    return missing


def needed_libraries(path):
    """NEEDED, RPATH and RUNPATH entries of the ELF file's dynamic section."""
    rc, out, err = run(["readelf", "-d", "-W", path])
    if rc != 0:
        raise RuntimeError(f"readelf -d {path}: {err}")
    needed, paths = [], []
    for line in out.splitlines():
        if "(NEEDED)" in line:
            needed.append(line.split("[", 1)[1].rstrip("]"))
        elif "(RPATH)" in line or "(RUNPATH)" in line:
            paths.append(line.strip())
    return needed, paths


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    missing = missing_tools()
    if missing:
        print(f"1..0 # SKIP missing {' '.join(missing)} (tools/dev.sh installs them)")
        return 77
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASAN_", "UBSAN_", "LSAN_", "MESON"))}
    env.update({"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"})

    with tempfile.TemporaryDirectory(prefix="sweeplint-wheel-") as tmp:
        dist = os.path.join(tmp, "dist")
        rc, out, err = run([PY, "-m", "build", "--wheel", "--no-isolation", "-o", dist,
                            "-Ccompile-args=-j2", root],
                           cwd=root, env=env)
        wheels = [f for f in os.listdir(dist) if f.endswith(".whl")] if os.path.isdir(dist) else []
        if not check("python3 -m build --wheel --no-isolation builds one wheel", rc == 0 and len(wheels) == 1,
                     f"exit {rc}\n{out}\n{err}"):
            return report()
        wheel = os.path.join(dist, wheels[0])
        print(f"# {wheels[0]} ({os.path.getsize(wheel)} bytes)")

        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            scripts = [n for n in names if "/scripts/" in n and ".data/" in n]
            check("the wheel installs exactly one script, sweeplint",
                  [os.path.basename(s) for s in scripts] == ["sweeplint"], "\n".join(names))
            if scripts:
                z.extract(scripts[0], os.path.join(tmp, "unzipped"))
        binary = os.path.join(tmp, "unzipped", scripts[0]) if scripts else None
        if binary:
            with open(binary, "rb") as f:
                check("the script is an ELF executable", f.read(4) == b"\x7fELF")
            needed, paths = needed_libraries(binary)
            print(f"# NEEDED: {' '.join(needed)}")
            check("its dynamic section needs only glibc (libyaml, libcyaml, PCRE2, jansson linked in)",
                  needed and set(needed) <= GLIBC, f"NEEDED: {needed}; not glibc: {sorted(set(needed) - GLIBC)}")
            check("no RPATH/RUNPATH into a build folder", not paths, "\n".join(paths))

        venv = os.path.join(tmp, "venv")
        rc, out, err = run([PY, "-m", "venv", venv], env=env)
        check("a fresh virtualenv", rc == 0, f"{out}\n{err}")
        rc, out, err = run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-index", wheel],
                           env=env)
        check("pip install --no-index of the wheel", rc == 0, f"exit {rc}\n{out}\n{err}")
        venv_exe = os.path.join(venv, "bin", "sweeplint")
        if not check("the venv has bin/sweeplint", os.access(venv_exe, os.X_OK)):
            return report()

        clean = {"PATH": os.path.join(venv, "bin") + os.pathsep + "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
        rc, out, err = run(["sweeplint", "--version"], env=clean, cwd=root)
        version = wheels[0].split("-")[1]
        check(f"sweeplint --version from PATH prints the package version {version}",
              rc == 0 and out.splitlines()[:1] == [f"sweeplint {version}"], f"exit {rc}\n{out}{err}")

        want = run([exe, "--color", "never", *EXAMPLE], env=clean, cwd=root)
        got = run(["sweeplint", "--color", "never", *EXAMPLE], env=clean, cwd=root)
        print(f"# bundled example: exit {got[0]}, {got[1].strip().splitlines()[-1] if got[1].strip() else ''}")
        check("the bundled example lints: output and exit status equal the build tree's binary",
              got == want and want[0] in (0, 1) and want[1].strip(),
              f"venv: exit {got[0]}\n{got[1]}{got[2]}\nbuild tree: exit {want[0]}\n{want[1]}{want[2]}")
        check("the example has findings at file:line:col",
              "examples/bi-encoder/sweep.yaml:" in got[1], got[1])
    return report()


def report():
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            failed += 1
            for line in str(detail).splitlines()[-40:]:
                print(f"#   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
