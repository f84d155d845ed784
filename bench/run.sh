#!/bin/sh
# What `make bench` runs: the C benchmark, then the Python one, on the
# backend this machine gets (ACLCUDA_BACKEND=cuda|host|auto). Tables go to
# stdout; the results of both go into one JSON file,
# bench/results-<backend>.json in the build tree or $ACLCUDA_BENCH_JSON.
# ACLCUDA_BENCH_ARGS passes options to bench_c (e.g. "--rounds 11").
set -e
srcdir="${ACLCUDA_BENCH_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}"
builddir="${ACLCUDA_BENCH_BUILDDIR:-$srcdir}"
PYTHON="${PYTHON:-python3}"

bench_c="$builddir/bench/bench_c"
[ -x "$bench_c" ] || { echo "run.sh: $bench_c is not built (make bench builds it)" >&2; exit 1; }
backend=$("$bench_c" --backend)
json="${ACLCUDA_BENCH_JSON:-$builddir/bench/results-$backend.json}"

# shellcheck disable=SC2086 # ACLCUDA_BENCH_ARGS is a list of options
"$bench_c" --json "$json" $ACLCUDA_BENCH_ARGS
# The other C programs each add their section to the same file.
for program in "$builddir"/bench/bench_*; do
  case $program in */bench_c|*/bench_*.*) continue ;; esac
  [ -x "$program" ] && "$program" --json "$json"
done

if [ "$PYTHON" = ":" ] || ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null; then
    echo "Python benchmarks skipped: no Python 3.8 or newer"
    exit 0
fi
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" \
ACLCUDA_LIBRARY="$builddir/.libs/libascendcl.so" \
PYTHONDONTWRITEBYTECODE=1 \
    "$PYTHON" "$srcdir/bench/bench_py.py" --json "$json"
