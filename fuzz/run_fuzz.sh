#!/usr/bin/env bash
# run_fuzz.sh MODE TARGET RUNS DIR...: one fuzz target in the test run (fuzz/meson.build).
#   replay            TARGET is the replay.c build: run it over every file in the DIRs
#   libfuzzer-replay  TARGET is a libFuzzer binary: run every file in the DIRs once (-runs=0)
#   smoke             TARGET is a libFuzzer binary: RUNS executions from the DIRs with a fixed seed
#                     ($FUZZ_SEED, default 1), so every run explores the same inputs (read-only
#                     seeds; new inputs go to a temporary corpus), capped at 120 s; a crash leaves
#                     its input under $FUZZ_ARTIFACTS (default: the build's meson-logs)
#   skip              exit 77: no libFuzzer in this build (-Dfuzzing=true with clang builds one)
# DIRs that do not exist (../shared without a checkout of it) are left out.
set -uo pipefail
mode=$1 target=$2 runs=$3
shift 3
dirs=()
for d in "$@"; do
	[ -e "$d" ] && dirs+=("$d")
done
name=$(basename "$target")
case "$mode" in
skip)
	echo "$name: not built with libFuzzer (configure with CC=clang and -Dfuzzing=true)"
	exit 77
	;;
replay)
	exec "$target" "${dirs[@]}"
	;;
libfuzzer-replay)
	files=()
	while IFS= read -r -d '' f; do files+=("$f"); done < <(find "${dirs[@]}" -type f -print0 | sort -z)
	"$target" -runs=0 "${files[@]}" >/dev/null 2>"${TMPDIR:-/tmp}/$name.replay.$$" ||
		{ cat "${TMPDIR:-/tmp}/$name.replay.$$"; rm -f "${TMPDIR:-/tmp}/$name.replay.$$"; exit 1; }
	rm -f "${TMPDIR:-/tmp}/$name.replay.$$"
	echo "${#files[@]} inputs replayed"
	;;
smoke)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	artifacts=${FUZZ_ARTIFACTS:-$(dirname "$target")/../meson-logs/fuzz-artifacts}
	mkdir -p "$artifacts" "$work/corpus"
	# seeds are copied: libFuzzer adds to (and may rewrite) its first corpus directory only
	"$target" -seed="${FUZZ_SEED:-1}" -runs="$runs" -max_total_time=120 -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$work/corpus" "${dirs[@]}" \
		>"$work/log" 2>&1
	rc=$?
	grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)' "$work/log"
	if [ $rc -ne 0 ]; then
		tail -n 60 "$work/log"
		echo "$name: crash input saved under $artifacts (add it to fuzz/regressions/$name/)"
		exit 1
	fi
	;;
*)
	echo "run_fuzz.sh: unknown mode '$mode'" >&2
	exit 2
	;;
esac
