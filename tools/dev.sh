#!/usr/bin/env bash
# The README's Quick start: set up a Debian machine, build, and either run sweeplint on the bundled
# example sweep (`demo`) or run every test suite under ASan+UBSan (`test`).
#   bash tools/dev.sh demo     install what is missing, build, lint examples/bi-encoder/sweep.yaml
#   bash tools/dev.sh test     install what is missing, build with sanitizers, run all test suites
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(meson ninja-build pkg-config gcc libc6-dev libyaml-dev libcyaml-dev libpcre2-dev
	libjansson-dev libcmocka-dev python3 python3-yaml python3-jsonschema)
# libcurl4-openssl-dev: --fetch's header at build time and libcurl at run time (dlopen) for the fake-Hub
# tests; neovim: the LSP test with a real editor (skipped without it)
test_packages=(valgrind clang pre-commit git yamllint python3-mesonpy python3-build python3-venv patchelf
	chromium shellcheck libcurl4-openssl-dev neovim)

install_missing() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

setup() { # dir [meson options...]
	local dir=$1
	shift
	if [ -d "$dir" ] && [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" >/dev/null
}

case "${1:-}" in
demo)
	install_missing "${packages[@]}"
	setup build
	set +e
	./build/src/cli/sweeplint --gpu h100-80gb --config examples/bi-encoder/train.yaml examples/bi-encoder/sweep.yaml
	rc=$?
	echo "(exit code $rc: 0 = clean, 1 = error-level findings such as OOM combinations, 2 = usage or I/O problem)"
	exit 0
	;;
test)
	install_missing "${packages[@]}" "${test_packages[@]}"
	setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C build-asan --print-errorlogs --num-processes "$(nproc)"
	# valgrind over a plain build: the corpus soak and every CLI case (suite soak wraps the binary in
	# valgrind itself), and the hostile inputs under their strict bounds (< 2 s, < 64 MB)
	setup build-valgrind
	meson test -C build-valgrind --print-errorlogs --num-processes "$(nproc)" --suite soak --suite hostile
	# fuzz smoke (docs/reliability.md): libFuzzer needs clang; fixed seed and run counts, ~20 s per target
	if command -v clang >/dev/null; then
		(export CC=clang; setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false)
		ASAN_OPTIONS=detect_leaks=1 meson test -C build-fuzz --print-errorlogs --num-processes "$(nproc)" \
			--suite fuzz --suite fuzz-replay
	fi
	;;
*)
	echo "usage: bash tools/dev.sh demo|test" >&2
	exit 2
	;;
esac
