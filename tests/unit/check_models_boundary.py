#!/usr/bin/env python3
"""The boundary of model resolution (include/sweeplint/models.h): no file of src/models/ includes a
header of memory/ (include/sweeplint/memory.h, a header under src/memory/), and its build names no
memory/ include directory. memory/ depends on models/, never the reverse. TAP output."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
models = root / "src" / "models"
memory_headers = {p.name for p in (root / "src" / "memory").rglob("*.h")} | {"memory.h"}
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
bad = []
files = sorted(p for p in models.rglob("*") if p.suffix in (".c", ".h"))
for p in files:
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        name = m.group(1)
        if "memory/" in name or pathlib.PurePosixPath(name).name in memory_headers:
            bad.append(f"{p.relative_to(root)}:{n}: includes {name}")
build = (models / "meson.build").read_text(encoding="utf-8")
if "memory" in re.sub(r"#.*", "", build):
    bad.append("src/models/meson.build: names memory/")
print("1..2")
print(("ok" if files else "not ok") + f" 1 - {len(files)} files under src/models/")
print(("not ok" if bad else "ok") + " 2 - no file of src/models/ includes a header of memory/")
for b in bad:
    print("# " + b)
sys.exit(1 if bad or not files else 0)
