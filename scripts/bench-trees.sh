#!/usr/bin/env bash
# Benchmarks several release tarballs in one sitting on a GPU machine that
# cannot download anything: builds each side by side and runs their
# bench/bench_c in turn, ROUNDS times (default 2), so that trees are compared
# under the same conditions (docs/performance.md, "Third sitting").
#
#   scripts/bench-trees.sh DEBDIR NAME=TARBALL [NAME=TARBALL ...]
#
# DEBDIR holds the Debian packages the build needs (as for device-check.sh).
# Output: the per-call table of each run on stdout, the JSON of each run as
# $OUT/bench-NAME-ROUND.json (OUT defaults to ./bench-out). BENCH_ARGS are
# passed to bench_c.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DEBDIR NAME=TARBALL..." >&2; exit 2; }
debdir=$(cd "$1" && pwd)
shift
out=${OUT:-$PWD/bench-out}
mkdir -p "$out"
dep=$(mktemp -d)
for deb in "$debdir"/*.deb; do dpkg -x "$deb" "$dep"; done
pc=$dep/usr/lib/x86_64-linux-gnu/pkgconfig
sed -i "s|^prefix=.*|prefix=$dep/usr|" "$pc"/*.pc
export PKG_CONFIG_PATH=$pc LD_LIBRARY_PATH=$dep/usr/lib/x86_64-linux-gnu ACLCUDA_BACKEND=cuda
jobs=$(( $(nproc) / $# )); [ "$jobs" -ge 1 ] || jobs=1

build() { # NAME TARBALL
  local dir
  dir=$(mktemp -d) && tar xzf "$2" -C "$dir" && cd "$dir"/acl-cuda-* &&
    ./configure -q CPPFLAGS="-I$dep/usr/include" LDFLAGS="-L$dep/usr/lib/x86_64-linux-gnu" \
      PYTHON=: >/dev/null 2>&1 &&
    make -j"$jobs" >/dev/null 2>&1 && make bench/bench_c >/dev/null 2>&1 &&
    echo "$PWD/bench/bench_c" > "$out/.bin-$1"
}
names=()
for spec in "$@"; do
  names+=("${spec%%=*}")
  build "${spec%%=*}" "$(realpath "${spec#*=}")" &
done
wait
for name in "${names[@]}"; do
  [ -s "$out/.bin-$name" ] || { echo "$name did not build" >&2; exit 1; }
done
for round in $(seq 1 "${ROUNDS:-2}"); do
  for name in "${names[@]}"; do
    echo "=== $name, round $round"
    # shellcheck disable=SC2086 # BENCH_ARGS is a list
    "$(cat "$out/.bin-$name")" --json "$out/bench-$name-$round.json" ${BENCH_ARGS:-} | sed -n '6,18p'
  done
done
rm -f "$out"/.bin-*
