#!/bin/sh
# Ranks as processes, through the public API (tests/hccl/hccl_rank.c, one
# rank each): communicators made from root info passed in a file and from
# generated rank tables, on one server and on two (127.0.0.1 and
# 127.0.0.2, both loopback, each rank's HCCL_IF_IP its server's), with
# all-reduce, all-gather and a send/recv ring checked by value; and ranks
# that die before joining or after, whose peers must fail within the
# (shortened) connect timeout or at their next collective, never hang.
#
# On the host backend each process gets the devices it needs
# (ACLCUDA_HOST_DEVICE_COUNT); on cuda a case needs a GPU per rank and
# skips otherwise, and the two-server case skips (its servers would share
# this machine's GPUs). Rank-table cases take a port the kernel just gave
# out as HCCL_IF_BASE_PORT, so that parallel runs do not meet.
set -u
srcdir=${ACLCUDA_TEST_SRCDIR:-$(dirname "$0")/../..}
. "$srcdir/tests/hccl/ranks.sh"

RANKS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hccl-processes.XXXXXX") || exit 99
trap 'rm -rf "$RANKS_DIR"' EXIT
trap 'exit 1' HUP INT TERM

info=$(ACLCUDA_HOST_DEVICE_COUNT=8 "$RANK_PROG" --info) || {
  echo "hccl_rank --info failed: $info"
  exit 99
}
# shellcheck disable=SC2086 # three words
set -- $info
backend=$1 devices=$2
echo "backend: $backend (devices: $devices, collectives: $3)"
if [ "$3" != yes ]; then
  echo "SKIP: HcclGetRootInfo fails here: acl-cuda was built without this backend's engine"
  exit 77
fi

# uses_devices CASE N: whether N devices per process are here (host: made so).
uses_devices() {
  if [ "$backend" = host ]; then
    ACLCUDA_HOST_DEVICE_COUNT=$2
    export ACLCUDA_HOST_DEVICE_COUNT
    return 0
  fi
  [ "$devices" -ge "$2" ] && return 0
  ranks_skip "$1" "$2 ranks need $2 GPUs (one NCCL rank per GPU), $devices here"
  return 1
}

rank_command() {
  rank=$1
  if [ "$mode" = root-info ]; then
    set -- --root-info "$RANKS_DIR/$name.root"
  else
    set -- --rank-table "$RANKS_DIR/$name.json"
    # shellcheck disable=SC2086 # one server per word
    address=$(server_of "$rank" $servers)
    case $address in
    *.*) HCCL_IF_IP=$address && export HCCL_IF_IP ;;
    *) unset HCCL_IF_IP ;; # a server named, not addressed
    esac
  fi
  [ "$rank" = "${dying:-x}" ] && set -- "$@" --die "$when"
  exec timeout -k 5 "$RANK_LIMIT_S" "$RANK_PROG" --nranks "$nranks" --rank "$rank" "$@"
}

# root_info_case NAME N [DYING WHEN]
root_info_case() {
  name=$1 nranks=$2 dying=${3:-} when=${4:-} mode=root-info
  uses_devices "$name" "$nranks" || return 0
  ranks_run "$name" "$nranks" "$dying" "$when"
}

# rank_table_case NAME DYING WHEN ADDRESS:NDEV...
rank_table_case() {
  name=$1 dying=$2 when=$3 mode=rank-table
  shift 3
  servers=$*
  nranks=0 most=0
  for server in "$@"; do
    nranks=$((nranks + ${server#*:}))
    [ "${server#*:}" -gt "$most" ] && most=${server#*:}
  done
  if [ "$#" -gt 1 ] && [ "$backend" != host ]; then
    ranks_skip "$name" "its servers would share this machine's GPUs"
    return 0
  fi
  uses_devices "$name" "$most" || return 0
  write_rank_table "$RANKS_DIR/$name.json" "$@"
  HCCL_IF_BASE_PORT=$("$RANK_PROG" --free-port) || exit 99
  export HCCL_IF_BASE_PORT
  ranks_run "$name" "$nranks" "$dying" "$when"
}

root_info_case root-info-2 2
root_info_case root-info-4 4
rank_table_case rank-table-2 "" "" 127.0.0.1:2
rank_table_case rank-table-4 "" "" 127.0.0.1:4
rank_table_case rank-table-two-servers "" "" 127.0.0.1:2 127.0.0.2:2
# CANN's own example tables: "server_id": "0" and empty device_ips; one
# server named so meets on this machine.
RANK_TABLE_NO_DEVICE_IP=1 rank_table_case rank-table-cann-example "" "" 0:2
# Rank 1 never joins: the others time out joining (Gloo's or NCCL's mesh).
root_info_case root-info-rank-1-dies 3 1 before-init
# Rank 0 never serves the table's root bytes: nobody can join.
rank_table_case rank-table-rank-0-dies 0 before-init 127.0.0.1:3
# Rank 2 never fetches them: rank 0 gives up serving, rank 1 meets no rank 2.
rank_table_case rank-table-rank-2-dies 2 before-init 127.0.0.1:3
# Rank 2 leaves a made communicator: the others' first collective fails.
root_info_case root-info-rank-2-dies-joined 3 2 after-barrier
rank_table_case rank-table-rank-1-dies-joined 1 after-barrier 127.0.0.1:2 127.0.0.2:1

ranks_summary
