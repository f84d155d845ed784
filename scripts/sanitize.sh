#!/usr/bin/env bash
# Runs the C test suites (the compatibility suite, tests/compat, and
# acl-cuda's own, tests/check) on the host backend under a dynamic checker:
#   scripts/sanitize.sh asan      AddressSanitizer + UndefinedBehaviorSanitizer
#   scripts/sanitize.sh tsan      ThreadSanitizer (the threaded suites)
#   scripts/sanitize.sh valgrind  valgrind memcheck (definite leaks are errors)
#   scripts/sanitize.sh fuzz      libFuzzer targets in fuzz/, FUZZ_SECONDS each (60)
#   scripts/sanitize.sh all       the four in turn
# Each mode builds in its own directory, _build-MODE, without CUDA. Only the
# Check programs run: the pytest suite would need the sanitizer runtime
# preloaded into Python. Missing tools (valgrind, clang and its libFuzzer
# runtime, the build dependencies) are installed first through
# `scripts/quickstart.sh deps`. Two runs in one tree take turns. Prints one
# summary line per mode and exits non-zero on any finding.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
export ACLCUDA_BACKEND=host

say() { printf '==> %s\n' "$*"; }

# The sources for a separate build directory. A tree configured in place
# cannot host other builds, so its files (tracked or not ignored) are copied.
source_dir() {
  local mode=$1
  if [ ! -f "$top/config.status" ]; then
    [ -x "$top/configure" ] || (cd "$top" && mkdir -p m4 && autoreconf -fi >/dev/null)
    echo "$top"
    return
  fi
  local copy=$top/_build-$mode.src
  if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    echo "the source tree is configured in place and is not a git checkout: run 'make distclean' first" >&2
    exit 2
  fi
  mkdir -p "$copy"
  (cd "$top" && git ls-files -z --cached --others --exclude-standard |
     grep -zv '^_build' | xargs -0 cp -u --parents -t "$copy")
  [ -x "$copy/configure" ] || (cd "$copy" && mkdir -p m4 && autoreconf -fi >/dev/null)
  echo "$copy"
}

# configure (once) and build one mode with the given compiler flags. The
# modes run inside `if`, where set -e does not apply: failures are returned.
build() {
  local mode=$1 flags=$2
  local src build
  src=$(source_dir "$mode")
  build=$top/_build-$mode
  mkdir -p "$build"
  if [ ! -f "$build/config.status" ]; then
    say "$mode: configure"
    (cd "$build" && "$src/configure" -q --without-cuda PYTHON=: \
       CFLAGS="-O1 -g $flags" CXXFLAGS="-O1 -g $flags" LDFLAGS="$flags") || return 1
  fi
  say "$mode: make"
  make -s -C "$build" -j"$jobs" >/dev/null
}

# The Check programs of the build, as the Makefile lists them.
check_programs() {
  # shellcheck disable=SC2016 # $(CHECK_TESTS) is for make
  printf 'print-checks:\n\t@echo $(CHECK_TESTS)\n' |
    make -s -C "$1" -f Makefile -f - print-checks
}

# Runs `make check` on the given tests; on failure shows the failing logs.
run_checks() {
  local mode=$1 build=$2 tests=$3
  shift 3
  say "$mode: $(echo "$tests" | wc -w) test programs"
  if make -s -C "$build" -j"$jobs" check TESTS="$tests" "$@" >"$build/check-output.txt" 2>&1; then
    return 0
  fi
  for t in $tests; do
    if grep -qE '^:test-result: (FAIL|ERROR)' "$build/$t.trs" 2>/dev/null; then
      echo "---- $t.log"
      tail -n 80 "$build/$t.log"
    fi
  done
  tail -n 20 "$build/check-output.txt"
  return 1
}

mode_asan() {
  local build=$top/_build-asan
  build asan "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" ||
    return 1
  # Allocation failures are part of the tests: malloc must return NULL.
  # The tests tagged "fork" fork while other threads allocate: GCC's ASan
  # runtime takes no lock around fork, so a child can inherit its allocator
  # locked and hang at its first allocation (gdb showed exactly that, in
  # test_lifecycle and test_robustness); they run in the plain suite. The
  # tests tagged "footprint" measure the process's resident size, which
  # ASan's quarantine of freed memory inflates.
  ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
  CK_EXCLUDE_TAGS="fork footprint" CK_TIMEOUT_MULTIPLIER=4 \
    run_checks asan "$build" "$(check_programs "$build")"
}

mode_tsan() {
  local build=$top/_build-tsan
  build tsan "-fsanitize=thread" || return 1
  # TSan cannot follow a threaded process into a forked child: the fork
  # test (tagged "fork") is left out.
  local tests=""
  for t in compat/test_event compat/test_stream compat/test_callback compat/test_context \
           compat/test_memory check/test_storm check/test_robustness check/test_callback_ending \
           check/test_memory_registry check/test_lifecycle check/test_fidelity \
           check/test_two_devices compat/test_notify check/test_runtime check/test_graph \
           compat/test_ipc check/test_hostile_sharing compat/test_pool check/test_memory_complete; do
    tests="$tests tests/$t"
  done
  TSAN_OPTIONS="allocator_may_return_null=1:halt_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
  CK_EXCLUDE_TAGS=fork CK_TIMEOUT_MULTIPLIER=10 \
    run_checks tsan "$build" "$tests"
}

mode_valgrind() {
  local build=$top/_build-valgrind
  command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; return 1; }
  build valgrind "" || return 1
  # Check forks every test; valgrind follows forks by itself. libtool swaps
  # its wrapper scripts for the real programs. The tests tagged "fork" fork
  # while other threads hold allocations: the child inherits the memory but
  # not the threads' stacks that point to it, which valgrind's leak check in
  # the child counts as lost; they run in the plain and ASan runs.
  # --track-origins is left out: it costs time in proportion to every
  # mapping, and the host arenas reserve tens of gigabytes (add it through
  # VALGRIND_OPTS to find where an uninitialised value came from).
  # valgrind runs one thread at a time; --fair-sched hands the CPU round the
  # threads in turn, where its default lets a thread that calls in a loop
  # starve the others for minutes (the lifecycle tests' users, and the
  # thread that would stop them). Tests tagged "heavy" (billions of kernel
  # blocks on the CPU) would take hours here; ASan runs them. Those tagged
  # "footprint" measure the resident size, which valgrind's own
  # bookkeeping of freed blocks inflates.
  local vg="valgrind -q --error-exitcode=1 --fair-sched=yes --leak-check=full"
  vg="$vg --errors-for-leak-kinds=definite --show-leak-kinds=definite --suppressions=/dev/null"
  # The Gloo collectives are left out (ASan runs them): Gloo sends its
  # address structures with uninitialised padding (its own, found in
  # connectFullMesh), and its meshes of up to eight ranks over TCP, one
  # thread at a time, outlast the tests' timeouts. libhccl's frame
  # (test_hccl_api) runs here.
  local tests
  tests=$(check_programs "$build" | tr ' ' '\n' |
    grep -vE '^tests/hccl/test_(hccl_collectives|gloo_engine)$' | tr '\n' ' ')
  ACLCUDA_TEST_ROUNDS=${ACLCUDA_TEST_ROUNDS:-200} CK_TIMEOUT_MULTIPLIER=20 CK_EXCLUDE_TAGS="fork heavy footprint" \
    run_checks valgrind "$build" "$tests" \
      LOG_COMPILER="$build/libtool --mode=execute $vg"
}

# libFuzzer targets link libascendcl's sources directly (no CUDA, not
# libhccl's), with the config.h of a plain configure run.
mode_fuzz() {
  local build=$top/_build-fuzz seconds=${FUZZ_SECONDS:-60} src
  command -v clang >/dev/null || { echo "clang is not installed" >&2; return 1; }
  src=$(source_dir fuzz)
  mkdir -p "$build"
  if [ ! -f "$build/config.h" ]; then
    say "fuzz: configure"
    (cd "$build" && "$src/configure" -q --without-cuda PYTHON=: CC=clang) || return 1
  fi
  local lib_sources=()
  while IFS= read -r f; do
    lib_sources+=("$f")
  done < <(find "$src/src" -name '*.c' -not -path '*/backend/cuda/*' -not -path '*/hccl/*' | sort)
  # shellcheck disable=SC2054 # the commas belong to -fsanitize
  local flags=(-std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
               -I"$build" -I"$src/include" -I"$src/src")
  local failed=0
  for target in "$src"/fuzz/fuzz_*.c; do
    local name corpus
    name=$(basename "$target" .c)
    say "fuzz: build $name"
    clang "${flags[@]}" "$target" "${lib_sources[@]}" -o "$build/$name" -ljansson -lm -lpthread ||
      return 1
    corpus=$build/corpus-$name
    mkdir -p "$corpus"
    # Real binaries to start from: the test kernels as a shared object.
    if [ "$name" = fuzz_binary_images ] && [ ! -f "$corpus/test_kernels.so" ]; then
      clang -std=c11 -shared -fPIC -O2 -I"$src/include" -o "$corpus/test_kernels.so" \
        "$src/tests/kernels/test_kernels.c" || return 1
    fi
    local dict=()
    [ -f "$src/fuzz/$name.dict" ] && dict=(-dict="$src/fuzz/$name.dict")
    say "fuzz: run $name for ${seconds}s"
    if ! (cd "$build" && ASAN_OPTIONS="allocator_may_return_null=1" \
          "./$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
            "${dict[@]}" "$corpus" "$src/fuzz/corpus/$name" >"$build/$name.log" 2>&1); then
      echo "---- $name found a problem (crash input in $build):"
      tail -n 60 "$build/$name.log"
      failed=1
    else
      grep -E '^stat::number_of_executed_units' "$build/$name.log" || true
    fi
  done
  return "$failed"
}

# Whether clang links a libFuzzer target with the sanitizers fuzz uses.
have_libfuzzer() {
  local dir ok=1
  dir=$(mktemp -d)
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
    'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    >"$dir/t.c"
  if clang -fsanitize=fuzzer,address,undefined "$dir/t.c" -o "$dir/t" >/dev/null 2>&1; then ok=0; fi
  rm -rf "$dir"
  return "$ok"
}

# The build dependencies and what the given modes need besides, installed
# where missing (apt, through quickstart.sh). libFuzzer's runtime is a
# package of its own on Debian 12 (libclang-rt-dev), part of clang elsewhere.
install_deps() {
  local pkgs=() mode
  for mode; do
    case "$mode" in
      valgrind) command -v valgrind >/dev/null || pkgs+=(valgrind) ;;
      fuzz) command -v clang >/dev/null || pkgs+=(clang) ;;
    esac
  done
  "$top/scripts/quickstart.sh" deps ${pkgs[@]+"${pkgs[@]}"}
  case " $* " in
    *" fuzz "*) have_libfuzzer || "$top/scripts/quickstart.sh" deps libclang-rt-dev ;;
  esac
}

run_mode() {
  local mode=$1 start status
  start=$(date +%s)
  local ok=1
  case "$mode" in
    asan) mode_asan || ok=0 ;;
    tsan) mode_tsan || ok=0 ;;
    valgrind) mode_valgrind || ok=0 ;;
    fuzz) mode_fuzz || ok=0 ;;
  esac
  if [ "$ok" = 1 ]; then status=PASS; else status=FAIL; fi
  printf 'sanitize %-8s %s in %ss\n' "$mode" "$status" "$(($(date +%s) - start))" | tee -a "$summary"
  [ "$status" = PASS ]
}

summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
case "${1:-}" in
  asan|tsan|valgrind|fuzz) modes=("$1") ;;
  all) modes=(asan tsan valgrind fuzz) ;;
  *) echo "usage: $0 asan|tsan|valgrind|fuzz|all" >&2; exit 2 ;;
esac
# One run at a time in this tree: a second one would rebuild the same
# directories under the first one's feet.
if command -v flock >/dev/null; then
  mkdir -p "$top/_build-sanitize"
  exec 9>"$top/_build-sanitize/lock"
  flock -n 9 || { say "another sanitize.sh runs in $top: waiting for it"; flock 9; }
fi
install_deps "${modes[@]}"
failed=0
for mode in "${modes[@]}"; do
  run_mode "$mode" || failed=1
done
if [ ${#modes[@]} -gt 1 ]; then
  echo "---- summary"
  cat "$summary"
fi
exit $failed
