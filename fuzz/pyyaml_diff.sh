#!/usr/bin/env bash
# pyyaml_diff.sh [TEXTS] [SEED]: the differential fuzz of YAML acceptance against PyYAML's safe_load
# (docs/reliability.md, "YAML acceptance against PyYAML"). TEXTS (default 1,000,000) texts generated
# and mutated from SEED (default 11) — generated documents and byte-mutated files: the pinned list
# tests/yaml/seeds.txt (fixtures, examples) and ../shared/corpus's sweeps — go in batches of 20,000 through one ydump process and /usr/bin/python3's
# PyYAML, on one core at nice 10. Every difference is a line of $REPORT (JSON: kind, input, detail);
# the exit status is 1 when acceptance or a value differed. $BUILD: the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
texts=${1:-1000000}
seed=${2:-11}
report=${REPORT:-/tmp/sweeplint-pyyaml-diff.jsonl}
ninja -C "$build" tests/yaml/ydump >/dev/null
seeds=()
[ -d ../shared/corpus/sweeps ] && seeds+=(../shared/corpus/sweeps)
: >"$report"
exec nice -n 10 /usr/bin/python3 tests/yaml/ydiff.py "$build/tests/yaml/ydump" --seed "$seed" --budget "$texts" \
	--batch 20000 --seed-list tests/yaml/seeds.txt --mutate-from "${seeds[@]}" --report "$report" --show 3
