#!/bin/sh
# Runs an all-reduce over N local processes joined by a rank table, as
# CANN's rank-table launchers do: it writes a table (version "1.0", one
# server, devices 0 to N-1 with rank ids 0 to N-1), then starts one
# hccl_ranktable per device with RANK_TABLE_FILE, RANK_ID, DEVICE_ID and
# RANK_SIZE set, waits for them, prints their output in rank order and
# exits non-zero if any failed.
#
#   run.sh [N]     N ranks; default: every device (hccl_ranktable --device-count)
#
# The server's address is HCCL_IF_IP, else 127.0.0.1; rank 0 serves the
# rendezvous there at HCCL_IF_BASE_PORT (default 60000). The program is
# $HCCL_RANKTABLE_PROGRAM, else samples/hccl_ranktable/hccl_ranktable of
# the build (make check's, quickstart's _build, or the source tree). Each
# process is stopped after $HCCL_SAMPLE_TIMEOUT_S seconds (default 300).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
program=${HCCL_RANKTABLE_PROGRAM:-}
if [ -z "$program" ]; then
  for build in "${ACLCUDA_TEST_BUILDDIR:-}" "$top/_build" "$top"; do
    if [ -n "$build" ] && [ -x "$build/samples/hccl_ranktable/hccl_ranktable" ]; then
      program=$build/samples/hccl_ranktable/hccl_ranktable
      break
    fi
  done
fi
if [ -z "$program" ]; then
  echo "hccl_ranktable is not built: run make (or set HCCL_RANKTABLE_PROGRAM)" >&2
  exit 1
fi
nranks=${1:-$("$program" --device-count)} || exit 1
if [ "$nranks" -lt 1 ] 2>/dev/null; then
  echo "no devices: nothing to run" >&2
  exit 1
fi
server=${HCCL_IF_IP:-127.0.0.1}

work=$(mktemp -d "${TMPDIR:-/tmp}/hccl_ranktable.XXXXXX") || exit 1
pids=
trap 'for pid in $pids; do kill "$pid" 2>/dev/null; done; rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

RANK_TABLE_FILE=$work/ranktable.json
{
  printf '{\n  "version": "1.0",\n  "server_count": "1",\n  "server_list": [\n'
  printf '    {\n      "server_id": "%s",\n      "device": [\n' "$server"
  rank=0
  while [ "$rank" -lt "$nranks" ]; do
    [ "$rank" -gt 0 ] && printf ',\n'
    printf '        {"device_id": "%s", "rank_id": "%s"}' "$rank" "$rank"
    rank=$((rank + 1))
  done
  printf '\n      ]\n    }\n  ],\n  "status": "completed"\n}\n'
} >"$RANK_TABLE_FILE"
RANK_SIZE=$nranks
export RANK_TABLE_FILE RANK_SIZE

rank=0
while [ "$rank" -lt "$nranks" ]; do
  RANK_ID=$rank DEVICE_ID=$rank timeout -k 5 "${HCCL_SAMPLE_TIMEOUT_S:-300}" "$program" \
    >"$work/rank_$rank.log" 2>&1 &
  pids="$pids $!"
  rank=$((rank + 1))
done
failed=0
rank=0
for pid in $pids; do
  wait "$pid" || failed=$((failed + 1))
  cat "$work/rank_$rank.log"
  rank=$((rank + 1))
done
pids=
if [ "$failed" -gt 0 ]; then
  echo "$failed of $nranks ranks failed" >&2
  exit 1
fi
