#!/usr/bin/python3
"""check_packages: the Debian packages tools/dev.sh installs are the ones the build needs (Debian, dpkg).

usage: check_packages.py listed            every dependency() and find_library() of the meson.build files
                                           comes from a package dev.sh lists (`packages` when the build
                                           requires it, else either list), and README's "Dependencies"
                                           names the same two lists
       check_packages.py build BUILDDIR    every file BUILDDIR's build read outside the source tree (each
                                           object's headers, as ninja recorded them; the libraries it
                                           links; the programs its rules run) belongs to a package that
                                           installing dev.sh's `packages` brings: those, what they depend
                                           on (Depends, Pre-Depends), and Debian's essential packages

The second form is how CI proves the README's demo on a machine that has more installed (libcurl's
header, cmocka): tools/dev.sh configures build-demo with -Dfetch=disabled -Dtests=disabled and runs it.
Packages come from dpkg: which package owns a file (dpkg -S), what a package depends on (dpkg-query).
A listed package that is not installed here cannot be judged and fails the check. Exit 77 (skip) without dpkg.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV_SH = os.path.join(ROOT, "tools", "dev.sh")


def dev_lists():
    """dev.sh's `packages` and `test_packages` arrays."""
    text = open(DEV_SH, encoding="utf-8").read()
    lists = {}
    for name in ("packages", "test_packages"):
        m = re.search(r"^%s=\(([^)]*)\)" % name, text, re.M)
        if not m:
            raise SystemExit(f"tools/dev.sh: no {name}=(...) array")
        lists[name] = m.group(1).split()
    return lists["packages"], lists["test_packages"]


def readme_lists():
    """The two backquoted package lists of README.md's 'Dependencies (Debian packages):' sentence."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    i = text.find("Dependencies (Debian packages):")
    if i < 0:
        raise SystemExit("README.md: no 'Dependencies (Debian packages):' paragraph")
    spans = re.findall(r"`([^`]*)`", text[i:i + 2000])
    return spans[0].split(), spans[1].split()


class Dpkg:
    """The installed packages: owners of files, dependencies, provides."""

    def __init__(self):
        fmt = "${Package}\\t${Status}\\t${Essential}\\t${Provides}\\t${Pre-Depends}\\t${Depends}\\n"
        out = subprocess.run(["dpkg-query", "-W", "-f=" + fmt], capture_output=True, text=True, check=True).stdout
        self.deps, self.provides, self.essential = {}, {}, set()
        for line in out.splitlines():
            name, status, essential, provides, pre, deps = line.split("\t")
            if not status.endswith(" installed"):
                continue
            self.deps.setdefault(name, []).extend(self.groups(pre) + self.groups(deps))
            if essential == "yes":
                self.essential.add(name)
            for group in self.groups(provides):
                for virtual in group:
                    self.provides.setdefault(virtual, set()).add(name)

    @staticmethod
    def groups(field):
        """'a (>= 1) | b:any, c' -> [['a', 'b'], ['c']]"""
        out = []
        for group in field.split(","):
            names = [re.split(r"[\s(]", alt.strip(), maxsplit=1)[0].split(":")[0] for alt in group.split("|")]
            names = [n for n in names if n]
            if names:
                out.append(names)
        return out

    def real(self, name):
        """The installed packages a name stands for (itself, or those that provide it)."""
        return ({name} if name in self.deps else set()) | self.provides.get(name, set())

    def closure(self, names):
        seen = set()
        todo = [p for n in names for p in self.real(n)]
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            for group in self.deps.get(p, []):
                for alt in group:
                    todo.extend(self.real(alt) - seen)
        return seen

    def owners(self, paths):
        """{path: set of packages} for the paths dpkg knows (tried as given, resolved, and across the /usr merge)."""
        found = {}
        pending = {p: self.spellings(p) for p in paths}
        while pending:
            ask = {cands[0]: p for p, cands in pending.items() if cands}
            if not ask:
                break
            r = subprocess.run(["dpkg-query", "-S", *ask], capture_output=True, text=True)
            for line in r.stdout.splitlines():
                if line.startswith("diversion ") or ": " not in line:
                    continue
                pkgs, path = line.split(": ", 1)
                if path in ask:
                    found[ask[path]] = {x.strip().split(":")[0] for x in pkgs.split(",")}
            pending = {p: cands[1:] for p, cands in pending.items() if p not in found and len(cands) > 1}
        return found

    @staticmethod
    def spellings(path):
        out = [path, os.path.realpath(path)]
        for p in list(out):
            if p.startswith("/usr/"):
                out.append(p[4:])
            elif p.startswith(("/lib", "/bin", "/sbin")):
                out.append("/usr" + p)
        return list(dict.fromkeys(out))


def meson_calls():
    """(file:line, kind, name, required) of every literal dependency('NAME'...) and find_library('NAME'...)."""
    calls = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        if "meson.build" not in files:
            continue
        path = os.path.join(top, "meson.build")
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\b(dependency|find_library)\(\s*'([^']+)'", text):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            args = text[m.end():j]
            req = re.search(r"required\s*:\s*([^,)]+)", args)
            required = req is None or req.group(1).strip() == "true"
            line = text.count("\n", 0, m.start()) + 1
            calls.append((f"{os.path.relpath(path, ROOT)}:{line}", m.group(1), m.group(2), required))
    return calls


def provider_path(kind, name):
    """The file a dependency or library is found by: the pkg-config file, or the library the linker takes."""
    if kind == "dependency":
        r = subprocess.run(["pkg-config", "--path", name], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    for lib in (f"lib{name}.so", f"lib{name}.a"):
        r = subprocess.run(["cc", f"-print-file-name={lib}"], capture_output=True, text=True)
        if os.path.isabs(r.stdout.strip()):
            return r.stdout.strip()
    return None


def check_listed():
    problems = []
    packages, test_packages = dev_lists()
    if readme_lists() != (packages, test_packages):
        problems.append("README.md's 'Dependencies (Debian packages)' lists are not tools/dev.sh's `packages` and "
                        f"`test_packages`:\n  README:  {readme_lists()}\n  dev.sh:  {(packages, test_packages)}")
    dpkg = Dpkg()
    calls = meson_calls()
    where = {c: provider_path(c[1], c[2]) for c in calls}
    owners = dpkg.owners([p for p in where.values() if p])
    n = 0
    for call, path in where.items():
        at, kind, name, required = call
        n += 1
        lists = packages if required else packages + test_packages
        which = "packages" if required else "packages or test_packages"
        if not path:
            problems.append(f"{at}: {kind}('{name}') is not found on this machine, so no package can be named "
                            f"for it (install it, then add its package to dev.sh's {which})")
            continue
        pkgs = owners.get(path, set())
        if not pkgs & set(lists):
            problems.append(f"{at}: {kind}('{name}') is found by {path}, which package {', '.join(sorted(pkgs)) or '?'} "
                            f"installs: add it to tools/dev.sh's {which} (and README's Dependencies)")
    for p in problems:
        print(p)
    print(f"{n} meson lookups checked against tools/dev.sh: {len(problems)} problems")
    return 1 if problems else 0


def build_files(builddir):
    """Files outside the source tree that builddir's build read: headers, link inputs, programs."""
    files = set()
    deps = subprocess.run(["ninja", "-C", builddir, "-t", "deps"], capture_output=True, text=True, check=True).stdout
    for line in deps.splitlines():
        if line.startswith("    "):
            files.add(os.path.normpath(os.path.join(builddir, line.strip())))
    ninja = open(os.path.join(builddir, "build.ninja"), encoding="utf-8").read()
    for m in re.finditer(r"^ (?:LINK_ARGS|command|COMMAND) = (.*)$", ninja, re.M):
        for word in m.group(1).split():
            if word.startswith("-l"):
                files.add(provider_path("find_library", word[2:]) or word)
            elif os.path.isabs(word) and os.path.isfile(word) and (word.endswith((".so", ".a")) or
                                                                   os.access(word, os.X_OK)):
                files.add(word)
        first = m.group(1).split()[0] if m.group(1).split() else ""
        if first and not first.startswith(("$", "/", "-")) and shutil.which(first):
            files.add(shutil.which(first))
    root = os.path.realpath(ROOT)
    build = os.path.realpath(builddir)
    return sorted(f for f in files if not os.path.realpath(f).startswith((root + os.sep, build + os.sep)))


def check_build(builddir):
    packages, _ = dev_lists()
    dpkg = Dpkg()
    missing = [p for p in packages if not dpkg.real(p)]
    if missing:
        print(f"tools/dev.sh's packages {missing} are not installed here: nothing can be judged")
        return 1
    allowed = dpkg.closure(packages) | dpkg.closure(dpkg.essential)
    files = build_files(builddir)
    owners = dpkg.owners(files)
    outside = {}
    for f in files:
        pkgs = owners.get(f)
        if pkgs is None:
            outside.setdefault("(no package: installed by hand?)", []).append(f)
        elif not pkgs & allowed:
            outside.setdefault(", ".join(sorted(pkgs)), []).append(f)
    for pkg, fs in sorted(outside.items()):
        print(f"{builddir} read {len(fs)} file(s) of {pkg}, which tools/dev.sh's packages do not bring: "
              + ", ".join(fs[:5]) + (" ..." if len(fs) > 5 else ""))
    used = sorted({p for f in files for p in owners.get(f, set())})
    print(f"{builddir}: {len(files)} files outside the tree from {len(used)} packages "
          f"({' '.join(used)}); {len(allowed)} packages allowed by dev.sh's {len(packages)}")
    return 1 if outside else 0


def main():
    if not shutil.which("dpkg-query"):
        print("no dpkg here: skipped")
        return 77
    args = sys.argv[1:]
    if args == ["listed"]:
        return check_listed()
    if len(args) == 2 and args[0] == "build":
        return check_build(args[1])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
