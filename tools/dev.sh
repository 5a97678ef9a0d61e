#!/usr/bin/env bash
# The README's Quick start: set up a Debian machine, build, and either run sweeplint on the bundled
# example sweep (`demo`) or run every test suite under ASan+UBSan (`test`).
#   bash tools/dev.sh demo     install what is missing, build, lint examples/bi-encoder/sweep.yaml
#   bash tools/dev.sh test     install what is missing, build with sanitizers, run all test suites
#   bash tools/dev.sh demo-packages   test's first stage alone: the demo built with the demo's packages only
# Each step says what it does; a step's own output (apt, meson, ninja) is shown only when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the demo needs to build and run sweeplint (README "Dependencies"; python3-yaml: the build's
# rules/peft.yaml generator). The test `packages-listed` checks that every dependency() of meson.build
# comes from these lists, and `test` below builds the demo with nothing else.
packages=(meson ninja-build pkg-config gcc libc6-dev libyaml-dev libcyaml-dev libpcre2-dev
	libjansson-dev python3 python3-yaml)
# What the tests add. libcurl4-openssl-dev: --fetch's header at build time and libcurl at run time
# (dlopen) for the fake-Hub tests; neovim: the LSP test with a real editor (skipped without it)
test_packages=(libcmocka-dev python3-jsonschema valgrind clang pre-commit git yamllint python3-mesonpy
	python3-build python3-venv patchelf chromium shellcheck libcurl4-openssl-dev neovim)
# The README's headline example, which `demo` runs
example=(--gpu h100-80gb --config examples/bi-encoder/train.yaml examples/bi-encoder/sweep.yaml)

say() { echo "dev.sh: $*" >&2; }

# quietly WHAT COMMAND...: say WHAT, run COMMAND with its output kept aside, and show that output
# (then stop) only when it fails
quietly() {
	local what=$1 log rc=0
	shift
	say "$what"
	log=$(mktemp)
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$log" >&2
		rm -f "$log"
		say "failed (exit $rc): $what"
		say "the command was: $*"
		exit 1
	fi
	rm -f "$log"
}

# shown WHAT COMMAND...: say WHAT and run COMMAND with its output shown (test runs report themselves)
shown() {
	local what=$1 rc=0
	shift
	say "$what"
	"$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		say "failed (exit $rc): $what"
		exit 1
	fi
}

install_missing() {
	local missing=() sudo=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	quietly "updating the package lists (apt-get update)" "${sudo[@]}" apt-get update
	quietly "installing ${missing[*]}" "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

build() { # dir [meson options...]
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		quietly "configuring $dir (meson setup --reconfigure${*:+ $*})" meson setup --reconfigure "$dir" "$@"
	else
		quietly "configuring $dir (meson setup${*:+ $*})" meson setup "$dir" "$@"
	fi
	quietly "building $dir (ninja)" ninja -C "$dir"
}

# The README on the README's packages: a build that sees only what `packages` installs (--fetch and
# the tests off, so neither libcurl's header nor cmocka is looked for), then the proof that it read
# no file of another package, and the README's headline example run by that binary.
demo_packages_only() {
	build build-demo -Dfetch=disabled -Dtests=disabled
	quietly "checking that build-demo read only files of the demo's packages (tools/check_packages.py)" \
		python3 tools/check_packages.py build build-demo
	quietly "checking that README.md shows the demo's command" grep -qF -- "\$ sweeplint ${example[*]}" README.md
	quietly "checking README.md's examples with build-demo's sweeplint (tools/doc_examples.py)" \
		python3 tools/doc_examples.py build-demo/src/cli/sweeplint README.md
}

case "${1:-}" in
demo)
	install_missing "${packages[@]}"
	build build
	say "linting the example: sweeplint ${example[*]}"
	set +e
	./build/src/cli/sweeplint "${example[@]}"
	rc=$?
	echo "(exit code $rc: 0 = clean, 1 = error-level findings such as OOM combinations, 2 = usage or I/O problem)"
	[ "$rc" -le 1 ] || exit "$rc"
	exit 0
	;;
test)
	install_missing "${packages[@]}" "${test_packages[@]}"
	demo_packages_only
	build build-asan -Db_sanitize=address,undefined -Db_lundef=false
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		shown "running every test suite under ASan+UBSan (build-asan)" \
		meson test -C build-asan --print-errorlogs --num-processes "$(nproc)"
	# valgrind over a plain build: the corpus soak and every CLI case (suite soak wraps the binary in
	# valgrind itself), and the hostile inputs under their strict bounds (< 2 s, < 64 MB)
	build build-valgrind
	shown "running suites soak and hostile under valgrind (build-valgrind)" \
		meson test -C build-valgrind --print-errorlogs --num-processes "$(nproc)" --suite soak --suite hostile
	# fuzz smoke (docs/reliability.md): libFuzzer needs clang; fixed seed and run counts, ~20 s per target
	if command -v clang >/dev/null; then
		CC=clang build build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
		ASAN_OPTIONS=detect_leaks=1 shown "running the fuzz smoke (build-fuzz)" \
			meson test -C build-fuzz --print-errorlogs --num-processes "$(nproc)" --suite fuzz --suite fuzz-replay
	fi
	;;
demo-packages)
	install_missing "${packages[@]}"
	demo_packages_only
	;;
*)
	echo "usage: bash tools/dev.sh demo|test|demo-packages" >&2
	exit 2
	;;
esac
