#!/bin/sh
# acl-cuda-prof on a sample (samples/launch_kernel, run from the build
# directory where its kernels are): the program's own output and status
# pass through, the summaries are printed, and the profile is where
# --output said.
set -eu
build=${ACLCUDA_TEST_BUILDDIR:?set by make check}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$build"
text=$(scripts/acl-cuda-prof --output="$out/prof" samples/launch_kernel)
fail=0
for want in "== api_summary" "== task_summary" "aclrtLaunchKernel" "timeline: $out/prof/timeline.json"; do
  case $text in
    *"$want"*) ;;
    *) echo "acl-cuda-prof output lacks \"$want\""; fail=1 ;;
  esac
done
for file in timeline.json timeline.svg api_summary.csv task_summary.csv stream_summary.csv; do
  [ -s "$out/prof/$file" ] || { echo "no $file"; fail=1; }
done
if scripts/acl-cuda-prof samples/launch_kernel 2>/dev/null; then
  echo "acl-cuda-prof without --output succeeded"; fail=1
fi
if [ $fail = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
