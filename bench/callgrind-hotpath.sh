#!/bin/sh
# Instructions per call of the four hottest stream-ordered calls, counted by
# callgrind on the host backend: a way to compare two build trees (say, before
# and after a change) without a GPU and without trusting a noisy wall clock.
#
#   bench/callgrind-hotpath.sh BUILDDIR [ITERATIONS]
#
# BUILDDIR is a configured and built tree (it holds .libs/libascendcl.so).
# A loop of aclrtRecordEvent, aclrtStreamWaitEvent, aclrtMemsetAsync (4 B)
# and aclrtMemcpyAsync (4 B, pinned host to device) on one stream runs
# ITERATIONS times (default 2000) after a warm-up of 200; only the measured
# loop is collected. Each figure is the call's inclusive instruction count
# on the calling thread (argument checks, lookups, the core and the
# backend's enqueue; not the host backend's worker, which runs the work) over
# the number of calls. Counts are exact and repeatable to a few
# instructions; they are not nanoseconds, and the cuda backend's enqueue
# (the CUDA runtime and driver) is not in them. See docs/performance.md.
# ACLCUDA_CALLGRIND_OUT=FILE keeps the profile, for callgrind_annotate.
set -eu

[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR [ITERATIONS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
iterations=${2:-2000}
lib="$build/.libs/libascendcl.so"
[ -e "$lib" ] || { echo "$0: $lib is not built" >&2; exit 1; }
for tool in valgrind callgrind_annotate cc; do
  command -v $tool >/dev/null || { echo "$0: $tool is needed" >&2; exit 1; }
done
# The public headers of the tree the library was built from.
srcdir=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile")
[ -d "$srcdir/include/acl" ] || { echo "$0: no include/acl under $srcdir" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/loop.c" <<'EOF'
#include <acl/acl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        aclError err_ = (call);                                                \
        if (err_ != ACL_SUCCESS) {                                             \
            fprintf(stderr, "%s: %d\n", #call, (int)err_);                     \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static aclrtStream s;
static aclrtEvent e;
static void *dev, *host;

static inline __attribute__((always_inline)) void loop(int n)
{
    for (int i = 0; i < n; i++) {
        CHECK(aclrtRecordEvent(e, s));
        CHECK(aclrtStreamWaitEvent(s, e));
        CHECK(aclrtMemsetAsync(dev, 4, 0, 4, s));
        CHECK(aclrtMemcpyAsync(dev, 4, host, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
        if (i % 100 == 99)
            CHECK(aclrtSynchronizeStream(s));
    }
    CHECK(aclrtSynchronizeStream(s));
}

/* First-use paths (thread records, pools, lazy set-up) run here, where
 * nothing is collected. */
__attribute__((noinline)) static void warm_up(void)
{
    loop(200);
}

/* Callgrind collects only inside this one. */
__attribute__((noinline)) static void hot_loop(int n)
{
    loop(n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtCreateEvent(&e));
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMallocHost(&host, 4096));
    warm_up();
    hot_loop(n);
    CHECK(aclrtFreeHost(host));
    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyEvent(e));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
EOF
cc -O2 -fno-ipa-icf -I"$srcdir/include" -o "$work/loop" "$work/loop.c" -L"$build/.libs" -lascendcl \
  -Wl,-rpath,"$build/.libs"

ACLCUDA_BACKEND=host valgrind -q --tool=callgrind --collect-atstart=no --toggle-collect=hot_loop \
  --callgrind-out-file="$work/cg.out" "$work/loop" "$iterations" >/dev/null
# Lines read "COUNT (PERCENT)  FILE:FUNCTION [OBJECT]".
callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.out" 2>/dev/null |
  awk 'NF >= 3 && $2 ~ /^\(/ { gsub(",", "", $1); fn = $3; sub(/^.*:/, "", fn); print fn, $1 }' \
  >"$work/counts"
# The profile itself, for callgrind_annotate --tree=both and the like.
if [ -n "${ACLCUDA_CALLGRIND_OUT:-}" ]; then cp "$work/cg.out" "$ACLCUDA_CALLGRIND_OUT"; fi

echo "instructions per call, host backend, $(basename "$build") ($iterations calls each)"
for fn in aclrtRecordEvent aclrtStreamWaitEvent aclrtMemsetAsync aclrtMemcpyAsync; do
  total=$(awk -v f="$fn" '$1 == f { print $2; exit }' "$work/counts")
  [ -n "$total" ] || { echo "$0: no count for $fn" >&2; exit 1; }
  printf '%-22s %6d\n' "$fn" $((total / iterations))
done
