#!/bin/sh
# Instructions per call of the four hottest stream-ordered calls, counted by
# callgrind on the host backend: a way to compare two build trees (say, before
# and after a change) without a GPU and without trusting a noisy wall clock.
#
#   bench/callgrind-hotpath.sh BUILDDIR [ITERATIONS]
#
# BUILDDIR is a configured and built tree (it holds .libs/libascendcl.so).
# For each of aclrtRecordEvent, aclrtStreamWaitEvent, aclrtMemsetAsync (4 B
# of device memory) and aclrtMemcpyAsync (4 B, pinned host to device) a loop
# calls it ITERATIONS times (default 2000) on one stream, synchronizing every
# 100 calls, after a warm-up of 200 that is not collected; then the same for
# an aclrtCreateEvent + aclrtDestroyEvent pair, an aclrtCreateStream +
# aclrtDestroyStream pair and an aclrtMemPoolMallocAsync +
# aclrtMemPoolFreeAsync pair (2 MiB, one pool block). Two figures per call
# (per pair), on the calling thread only:
#   total    everything the call executes: argument checks, lookups, the
#            core, and the host backend's enqueue (not its worker thread,
#            which runs the work);
#   library  the same without the host backend's stream operation (the
#            backend functions the core calls), i.e. what the cuda backend
#            would add a CUDA runtime call to. This is the figure to compare
#            when the question is the cost of the API and core layers.
# Counts are exact and repeat to a few instructions (the host backend's
# handshakes with its worker vary a little); they are not nanoseconds: an
# atomic read-modify-write or a cache miss costs far more than an add.
# ACLCUDA_CALLGRIND_OUT=PREFIX keeps the profiles (PREFIX.record, ...), for
# callgrind_annotate. See docs/performance.md.
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
#include <acl/acl_rt_memory_soma.h>
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
static aclrtMemPool pool;
static void *dev, *host;
static int which;

static inline __attribute__((always_inline)) void loop(int n)
{
    for (int i = 0; i < n; i++) {
        switch (which) {
        case 0:
            CHECK(aclrtRecordEvent(e, s));
            break;
        case 1:
            CHECK(aclrtStreamWaitEvent(s, e));
            break;
        case 2:
            CHECK(aclrtMemsetAsync(dev, 4, 0, 4, s));
            break;
        case 3:
            CHECK(aclrtMemcpyAsync(dev, 4, host, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
            break;
        case 4: {
            aclrtEvent made;
            CHECK(aclrtCreateEvent(&made));
            CHECK(aclrtDestroyEvent(made));
            break;
        }
        case 5: {
            aclrtStream made;
            CHECK(aclrtCreateStream(&made));
            CHECK(aclrtDestroyStream(made));
            break;
        }
        default: {
            void *block;
            CHECK(aclrtMemPoolMallocAsync(&block, (size_t)2 << 20, pool, s));
            CHECK(aclrtMemPoolFreeAsync(block, s));
            break;
        }
        }
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
    which = atoi(argv[1]);
    int n = atoi(argv[2]);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtCreateEvent(&e));
    CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMallocHost(&host, 4096));
    aclrtMemPoolProps props = {.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED,
                               .location = {.type = ACL_MEM_LOCATION_TYPE_DEVICE, .id = 0}};
    CHECK(aclrtMemPoolCreate(&pool, &props));
    CHECK(aclrtRecordEvent(e, s)); /* so that waits wait */
    warm_up();
    hot_loop(n);
    CHECK(aclrtMemPoolDestroy(pool));
    CHECK(aclrtFreeHost(host));
    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyEvent(e));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
EOF
cc -O2 -fno-ipa-icf -I"$srcdir/include" -o "$work/loop" "$work/loop.c" -L"$build/.libs" \
  -lascendcl -Wl,-rpath,"$build/.libs"

echo "instructions per call, host backend, $build ($iterations calls each)"
printf '%-38s %7s %7s\n' call total library
which=0
for fns in aclrtRecordEvent aclrtStreamWaitEvent aclrtMemsetAsync aclrtMemcpyAsync \
           aclrtCreateEvent+aclrtDestroyEvent aclrtCreateStream+aclrtDestroyStream \
           aclrtMemPoolMallocAsync+aclrtMemPoolFreeAsync; do
  out="$work/cg.$which"
  ACLCUDA_BACKEND=host valgrind -q --tool=callgrind --collect-atstart=no \
    --toggle-collect=hot_loop --callgrind-out-file="$out" "$work/loop" "$which" "$iterations" \
    >/dev/null
  if [ -n "${ACLCUDA_CALLGRIND_OUT:-}" ]; then
    cp "$out" "$ACLCUDA_CALLGRIND_OUT.$(echo "$fns" | sed 's/aclrt//g; s/+/-/')"
  fi
  # In --tree=calling output, "COUNT  *  FILE:FUNCTION" opens a function and
  # "COUNT  >  FILE:FUNCTION (Nx)" lines follow, one per callee with its
  # inclusive count. The backend's share is what functions outside the host
  # backend's files spend in calls into them.
  callgrind_annotate --tree=calling --inclusive=yes --show-percs=no --threshold=100 "$out" \
    2>/dev/null |
    awk -v fns="$fns" -v n="$iterations" '
      function file_of(s) { sub(/:[^:]*$/, "", s); return s }
      function name_of(s) { sub(/^.*:/, "", s); return s }
      $1 ~ /^[0-9,]+$/ && ($2 == "*" || $2 == ">") {
        count = $1; gsub(",", "", count)
        if ($2 == "*") {
          caller = name_of($3)
          caller_backend = file_of($3) ~ /backend[\/_]host/
        } else if (caller == "hot_loop" && index("+" fns "+", "+" name_of($3) "+")) {
          total += count
        } else if (!caller_backend && file_of($3) ~ /backend[\/_]host/) {
          backend += count
        }
      }
      END {
        if (!total) { print "no count for " fns > "/dev/stderr"; exit 1 }
        printf "%-38s %7d %7d\n", fns, total / n, (total - backend) / n
      }'
  which=$((which + 1))
done
