#!/usr/bin/python3
"""check_version: `sweeplint --version` names the version and whether --fetch can download (TAP).

usage: check_version.py SWEEPLINT VERSION built|not-built

The second line depends on the build (meson -Dfetch: libcurl's header at build time) and on the machine
(libcurl.so.4 at run time), so the expected line is worked out here the way hub.c does it, with ctypes
loading the same library names, instead of being written into a fixture.
"""
import ctypes
import subprocess
import sys

NAMES = ["libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"]  # hub.c curl_load's Linux names


def loadable():
    for name in NAMES:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            pass
    return False


def main():
    exe, version, build = sys.argv[1:4]
    if build == "not-built":
        fetch = ("--fetch: unavailable: this sweeplint was built without --fetch "
                 "(meson -Dfetch=disabled, or no libcurl header)")
    elif loadable():
        fetch = "--fetch: available (libcurl loads when used)"
    else:
        fetch = "--fetch: unavailable: --fetch needs libcurl (libcurl.so.4), which is not installed on this machine"
    want = f"sweeplint {version}\n{fetch}\n"
    cases = [["--version"], ["check", "--version"], ["estimate", "--version"]]
    print(f"1..{len(cases)}")
    failed = 0
    for n, args in enumerate(cases, 1):
        p = subprocess.run([exe, *args], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        ok = p.returncode == 0 and p.stdout == want and p.stderr == ""
        print(f"{'ok' if ok else 'not ok'} {n} sweeplint {' '.join(args)} ({build})")
        if not ok:
            failed += 1
            print(f"# want exit 0, stdout {want!r}\n# got exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
