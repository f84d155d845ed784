# shellcheck shell=sh
# Sourced by the tests that start ranks as processes (processes.sh,
# two-machines.sh): each rank is tests/hccl/hccl_rank, under `timeout`, so
# that no rank outlives RANK_LIMIT_S whatever happens to its peers.
#
# A test defines rank_command R (runs rank R in the foreground) and calls
#   ranks_run NAME NRANKS [DYING_RANK before-init|after-barrier]
# which starts the ranks, waits for them and checks what each printed:
# "PASS" from every rank, or, with a dying rank, status 3 from it and a
# "FAIL" from each other one (at its HcclCommInit* call for before-init, in
# a collective for after-barrier). Each rank's output goes to
# $RANKS_DIR/NAME.rankR.log and is shown when the case fails.

# shellcheck disable=SC2034 # used by the tests that source this
RANK_PROG=${ACLCUDA_TEST_BUILDDIR:-.}/tests/hccl/hccl_rank
RANK_LIMIT_S=${RANK_LIMIT_S:-90}
# Seconds, not CANN's 120 at least: a rank that never comes fails its
# peers quickly. Errors are printed (on stderr, in the logs).
ACLCUDA_HCCL_CONNECT_TIMEOUT=${ACLCUDA_HCCL_CONNECT_TIMEOUT:-5}
HCCL_EXEC_TIMEOUT=${HCCL_EXEC_TIMEOUT:-30}
ASCEND_GLOBAL_LOG_LEVEL=${ASCEND_GLOBAL_LOG_LEVEL:-3}
export ACLCUDA_HCCL_CONNECT_TIMEOUT HCCL_EXEC_TIMEOUT ASCEND_GLOBAL_LOG_LEVEL

RANKS_PASSED=0
RANKS_FAILED=0
RANKS_SKIPPED=0

# write_rank_table FILE ADDRESS:NDEV...: a version "1.0" table, one server
# per argument (server_id ADDRESS, devices 0 to NDEV - 1), rank ids in order.
write_rank_table() {
  file=$1
  shift
  rank=0
  server_sep=
  {
    printf '{\n  "version": "1.0",\n  "server_count": "%s",\n  "server_list": [' "$#"
    for server in "$@"; do
      printf '%s\n    {"server_id": "%s", "device": [' "$server_sep" "${server%%:*}"
      device=0
      device_sep=
      while [ "$device" -lt "${server#*:}" ]; do
        # An empty device_ip (RANK_TABLE_NO_DEVICE_IP) as CANN's examples write.
        ip="192.168.$rank.$device"
        [ -n "${RANK_TABLE_NO_DEVICE_IP:-}" ] && ip=
        printf '%s\n      {"device_id": "%s", "device_ip": "%s", "rank_id": "%s"}' \
          "$device_sep" "$device" "$ip" "$rank"
        device_sep=,
        device=$((device + 1))
        rank=$((rank + 1))
      done
      printf ']}'
      server_sep=,
    done
    printf '\n  ],\n  "status": "completed"\n}\n'
  } >"$file"
}

# server_of RANK ADDRESS:NDEV...: the address of the server holding RANK.
server_of() {
  left=$1
  shift
  for server in "$@"; do
    if [ "$left" -lt "${server#*:}" ]; then
      echo "${server%%:*}"
      return
    fi
    left=$((left - ${server#*:}))
  done
}

# device_of RANK ADDRESS:NDEV...: RANK's device on its server.
device_of() {
  left=$1
  shift
  for server in "$@"; do
    if [ "$left" -lt "${server#*:}" ]; then
      echo "$left"
      return
    fi
    left=$((left - ${server#*:}))
  done
}

ranks_skip() {
  echo "SKIP $1: $2"
  RANKS_SKIPPED=$((RANKS_SKIPPED + 1))
}

ranks_run() {
  name=$1 nranks=$2 dying=${3:-} when=${4:-}
  pids=
  r=0
  while [ "$r" -lt "$nranks" ]; do
    rank_command "$r" >"$RANKS_DIR/$name.rank$r.log" 2>&1 &
    pids="$pids $!"
    r=$((r + 1))
  done
  failure=
  r=0
  for pid in $pids; do
    wait "$pid"
    status=$?
    log=$RANKS_DIR/$name.rank$r.log
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      failure="$failure rank $r hung (killed after $RANK_LIMIT_S s);"
    elif [ -z "$dying" ]; then
      [ "$status" -eq 0 ] && grep -q '^PASS' "$log" ||
        failure="$failure rank $r exited with $status;"
    elif [ "$r" -eq "$dying" ]; then
      [ "$status" -eq 3 ] || failure="$failure rank $r (the one to die) exited with $status;"
    elif [ "$status" -ne 1 ] || ! grep -q '^FAIL' "$log"; then
      failure="$failure rank $r exited with $status, not a FAIL line and 1;"
    elif [ "$when" = before-init ] && ! grep -q '^FAIL.*HcclCommInit' "$log"; then
      failure="$failure rank $r failed elsewhere than joining;"
    elif [ "$when" = after-barrier ] && grep -q '^FAIL.*HcclCommInit' "$log"; then
      failure="$failure rank $r failed joining, not in a collective;"
    fi
    r=$((r + 1))
  done
  if [ -z "$failure" ]; then
    echo "PASS $name: $nranks ranks${dying:+, rank $dying dies $when and the others fail}"
    RANKS_PASSED=$((RANKS_PASSED + 1))
    for log in "$RANKS_DIR/$name".rank*.log; do
      grep -h '^\(PASS\|FAIL\|DIED\)' "$log" | sed 's/^/  /'
    done
  else
    echo "FAIL $name:$failure"
    for log in "$RANKS_DIR/$name".rank*.log; do
      sed "s|^|  ${log##*/}: |" "$log"
    done
    RANKS_FAILED=$((RANKS_FAILED + 1))
  fi
}

# The test's exit status: 1 if a case failed, 77 if every case skipped.
ranks_summary() {
  echo "$RANKS_PASSED passed, $RANKS_FAILED failed, $RANKS_SKIPPED skipped"
  if [ "$RANKS_FAILED" -gt 0 ]; then return 1; fi
  if [ "$RANKS_PASSED" -eq 0 ]; then return 77; fi
  return 0
}
