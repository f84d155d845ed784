#!/bin/sh
# Two machines on one: two network namespaces joined by a veth pair,
# 10.77.0.1/24 and 10.77.0.2/24, with ranks (tests/hccl/hccl_rank.c) in
# each, on the host backend (Gloo over TCP). A multi-server rank table
# whose server ids are the namespaces' addresses, each rank's HCCL_IF_IP its
# namespace's; root info passed in a file, the root served on 10.77.0.1;
# and a table with the interface chosen by HCCL_SOCKET_IFNAME instead. The
# collectives are checked by value, and the veth's counters show that the
# data crossed it.
#
# Needs root and iproute2 (ip); skips (77) with the reason without them or
# where the container refuses `ip netns add`. The namespaces and the veth
# pair are removed on every way out.
set -u
srcdir=${ACLCUDA_TEST_SRCDIR:-$(dirname "$0")/../..}
. "$srcdir/tests/hccl/ranks.sh"

if [ "$(id -u)" != 0 ]; then
  echo "SKIP: network namespaces need root"
  exit 77
fi
if ! command -v ip >/dev/null 2>&1; then
  echo "SKIP: no ip command (iproute2)"
  exit 77
fi

NS_A=hccl-2m-$$-a
NS_B=hccl-2m-$$-b
VETH_A=h2m$$a
VETH_B=h2m$$b
ADDRESS_A=10.77.0.1
ADDRESS_B=10.77.0.2
RANKS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hccl-two-machines.XXXXXX") || exit 99
pids=

cleanup() {
  for pid in $pids; do kill "$pid" 2>/dev/null; done
  ip netns del "$NS_A" 2>/dev/null
  ip netns del "$NS_B" 2>/dev/null
  ip link del "$VETH_A" 2>/dev/null
  rm -rf "$RANKS_DIR"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

if ! why=$(ip netns add "$NS_A" 2>&1); then
  echo "SKIP: ip netns add refused here: $why"
  exit 77
fi
set -e
ip netns add "$NS_B"
ip link add "$VETH_A" type veth peer name "$VETH_B"
ip link set "$VETH_A" netns "$NS_A"
ip link set "$VETH_B" netns "$NS_B"
ip -n "$NS_A" addr add "$ADDRESS_A/24" dev "$VETH_A"
ip -n "$NS_B" addr add "$ADDRESS_B/24" dev "$VETH_B"
for ns in "$NS_A" "$NS_B"; do
  ip -n "$ns" link set lo up
done
ip -n "$NS_A" link set "$VETH_A" up
ip -n "$NS_B" link set "$VETH_B" up
set +e
echo "namespaces $NS_A ($ADDRESS_A, $VETH_A) and $NS_B ($ADDRESS_B, $VETH_B)"

# The collectives here run on Gloo: the namespaces' ranks would share the
# GPUs of this one machine.
ACLCUDA_BACKEND=host
ACLCUDA_HOST_DEVICE_COUNT=2
export ACLCUDA_BACKEND ACLCUDA_HOST_DEVICE_COUNT

case $("$RANK_PROG" --info) in
  *yes) ;;
  *)
    echo "SKIP: HcclGetRootInfo fails on the host backend: acl-cuda was built without Gloo"
    exit 77
    ;;
esac

rx_bytes() {
  ip netns exec "$NS_B" cat "/sys/class/net/$VETH_B/statistics/rx_bytes"
}

rank_command() {
  rank=$1
  # shellcheck disable=SC2086 # one server per word
  address=$(server_of "$rank" $servers)
  ns=$NS_B
  [ "$address" = "$ADDRESS_A" ] && ns=$NS_A
  if [ "$mode" = root-info ]; then
    # shellcheck disable=SC2086 # one server per word
    set -- --root-info "$RANKS_DIR/$name.root" --device "$(device_of "$rank" $servers)"
  else
    set -- --rank-table "$RANKS_DIR/$name.json"
  fi
  if [ "$interface" = by-address ]; then
    set -- env HCCL_IF_IP="$address" "$RANK_PROG" "$@"
  else
    set -- env HCCL_SOCKET_IFNAME=h2m "$RANK_PROG" "$@"
  fi
  exec ip netns exec "$ns" timeout -k 5 "$RANK_LIMIT_S" "$@" \
    --nranks "$nranks" --rank "$rank"
}

# two_machine_case NAME MODE INTERFACE ADDRESS:NDEV...
two_machine_case() {
  name=$1 mode=$2 interface=$3
  shift 3
  servers=$*
  nranks=0
  for server in "$@"; do nranks=$((nranks + ${server#*:})); done
  write_rank_table "$RANKS_DIR/$name.json" "$@"
  before=$(rx_bytes)
  failed_before=$RANKS_FAILED
  ranks_run "$name" "$nranks"
  crossed=$(($(rx_bytes) - before))
  echo "  $VETH_B received $crossed bytes"
  # Rank 0's FP32 all-reduce alone brings 1027 floats to the other side.
  if [ "$RANKS_FAILED" -eq "$failed_before" ] && [ "$crossed" -lt 4108 ]; then
    echo "FAIL $name: the data did not cross the veth pair"
    RANKS_FAILED=$((RANKS_FAILED + 1))
  fi
}

# Each namespace has its own ports: CANN's default base port serves.
HCCL_IF_BASE_PORT=60000
export HCCL_IF_BASE_PORT
two_machine_case rank-table-2x2 rank-table by-address "$ADDRESS_A:2" "$ADDRESS_B:2"
two_machine_case rank-table-1x1 rank-table by-address "$ADDRESS_A:1" "$ADDRESS_B:1"
two_machine_case root-info-2x2 root-info by-address "$ADDRESS_A:2" "$ADDRESS_B:2"
two_machine_case rank-table-by-ifname rank-table by-interface "$ADDRESS_A:1" "$ADDRESS_B:2"

ranks_summary
