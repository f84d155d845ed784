#!/bin/sh
# The pyACL half of the compatibility suite as one `make check` test, on
# this tree's package and library (the suite's own runner, compat.mk, runs
# it against an installed one). Hostile inputs included: acl-cuda promises
# error codes for them. Exit status 77 tells automake the test was skipped
# (no Python, pytest or NumPy).
PYTHON="${PYTHON:-python3}"
srcdir="${ACLCUDA_TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"

skip() {
    echo "SKIP: $1"
    exit 77
}

[ "$PYTHON" = ":" ] && skip "configure found no Python 3.8 or newer"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null ||
    skip "$PYTHON is missing or older than Python 3.8"
"$PYTHON" -c 'import pytest' 2>/dev/null || skip "pytest is not installed for $PYTHON"
"$PYTHON" -c 'import numpy' 2>/dev/null || skip "NumPy is not installed for $PYTHON"

cd "$srcdir/tests/compat/python" || exit 1
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
# What the library implements: the API table's IMPLEMENTED and ACCEPTED rows.
COMPAT_IMPLEMENTED="$srcdir/src/api/api.def"
[ -f "$COMPAT_IMPLEMENTED" ] || { echo "no API table at $COMPAT_IMPLEMENTED"; exit 1; }
# The source tree may be read-only (make distcheck): no bytecode.
PYTHONDONTWRITEBYTECODE=1
# A test past its deadline dumps every thread's stack to fd 3, uncaptured.
COMPAT_TRACEBACK_FD=3
export PYTHONPATH COMPAT_IMPLEMENTED PYTHONDONTWRITEBYTECODE COMPAT_TRACEBACK_FD
exec 3>&2
exec "$PYTHON" -m pytest -q .
