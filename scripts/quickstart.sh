#!/usr/bin/env bash
# The README's two commands:
#   scripts/quickstart.sh samples   build, then run every pyACL and HCCL sample
#   scripts/quickstart.sh test      build, then run the whole test suite
# and, for other scripts (scripts/sanitize.sh):
#   scripts/quickstart.sh deps [PKG...]  only install the build dependencies
#                                        and the given Debian packages
# Missing Debian packages (and numpy/pytest for the chosen python3) are
# installed first, as root or through sudo. The build goes to ./_build unless
# the source tree was configured in place. Extra configure arguments can be
# given in CONFIGURE_FLAGS (e.g. --without-cuda, --enable-werror).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-}
extra=()
case "$what" in
  samples|test) ;;
  deps) shift; extra=("$@") ;;
  *) echo "usage: $0 samples|test" >&2; exit 2 ;;
esac

say() { printf '==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "need root (or sudo) to run: $*" >&2; exit 1
  fi
}

# ---- dependencies -----------------------------------------------------------
need=()
for tool_pkg in gcc:build-essential g++:g++ make:make autoreconf:autoconf automake:automake \
                libtoolize:libtool pkg-config:pkg-config python3:python3; do
  command -v "${tool_pkg%%:*}" >/dev/null || need+=("${tool_pkg#*:}")
done
for pkg in check libjansson-dev libsubunit-dev libgloo-dev ${extra[@]+"${extra[@]}"}; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ "$what" = deps ]; then exit 0; fi

python=$(command -v python3)
missing_py=()
"$python" -c 'import numpy' 2>/dev/null || missing_py+=(numpy)
if [ "$what" = test ]; then "$python" -c 'import pytest' 2>/dev/null || missing_py+=(pytest); fi
if [ ${#missing_py[@]} -gt 0 ]; then
  say "installing for $python: ${missing_py[*]}"
  if ! "$python" -m pip install -q "${missing_py[@]}" 2>/dev/null; then
    # A Debian-managed python3 refuses pip; use its own packages instead.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      "${missing_py[@]/#/python3-}" >/dev/null
  fi
fi

# ---- build ------------------------------------------------------------------
cd "$here"
if [ -f config.status ]; then
  build=$here
else
  build=$here/_build
  if [ ! -x configure ]; then
    say "autoreconf -fi"
    mkdir -p m4 && autoreconf -fi >/dev/null
  fi
  mkdir -p "$build"
fi
cd "$build"
if [ ! -f config.status ]; then
  say "configure ${CONFIGURE_FLAGS:-}"
  # shellcheck disable=SC2086
  "$here/configure" -q PYTHON="$python" ${CONFIGURE_FLAGS:-}
fi
jobs=$(nproc 2>/dev/null || echo 2)
say "make -j$jobs"
make -s -j"$jobs"

backend=${ACLCUDA_BACKEND:-auto}
case "$what" in
  samples)
    say "running the pyACL and HCCL samples (ACLCUDA_BACKEND=$backend)"
    ACLCUDA_LIBRARY="$build/.libs/libascendcl.so" ACLCUDA_TEST_BUILDDIR="$build" PYTHONPATH="$here/python" \
      "$python" "$here/samples/run_all.py"
    ;;
  test)
    say "running the test suite (ACLCUDA_BACKEND=$backend)"
    if ! make -s -j"$jobs" check; then
      for log in $(find . -name '*.log' -newer config.status | sort); do
        grep -qE '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null && { echo "---- $log"; tail -n 60 "$log"; }
      done
      exit 1
    fi
    ;;
esac
