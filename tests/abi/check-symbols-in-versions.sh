#!/bin/sh
# docs/symbols-in-versions names exactly the exported symbols of
# tests/abi/exports.txt, each with a version (x.y.z) and a tier (M, P, R, N
# or - for acl-cuda's own names).
set -eu
srcdir=${ACLCUDA_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exports=$srcdir/tests/abi/exports.txt
listing=$srcdir/docs/symbols-in-versions
problems=$(awk '
  /^#/ || NF == 0 { next }
  NF != 3 || $2 !~ /^[0-9]+\.[0-9]+\.[0-9]+$/ || $3 !~ /^[MPRN-]$/ {
    printf "%s:%d: expected \"name x.y.z tier\": %s\n", FILENAME, FNR, $0
  }' "$listing")
listed=$(awk '!/^#/ && NF > 0 { print $1 }' "$listing" | LC_ALL=C sort)
duplicates=$(printf '%s\n' "$listed" | uniq -d)
differences=$(printf '%s\n' "$listed" | LC_ALL=C sort -u | diff "$exports" - || true)
if [ -z "$problems" ] && [ -z "$duplicates" ] && [ -z "$differences" ]; then
  echo "1 passed, 0 failed"
else
  [ -z "$problems" ] || printf '%s\n' "$problems"
  [ -z "$duplicates" ] || printf 'listed twice in %s:\n%s\n' "$listing" "$duplicates"
  [ -z "$differences" ] || printf '%s\n' "< only in $exports, > only in $listing:" "$differences"
  echo "0 passed, 1 failed"
  exit 1
fi
