#!/bin/sh
# acl-cuda's own pyACL tests (the package's internals) as one `make check`
# test: runs pytest on tests/python with the package of the source tree.
# pyACL's documented behaviour is tests/compat/python's. Exit status 77 tells automake the
# test was skipped (no Python, pytest or NumPy).
PYTHON="${PYTHON:-python3}"
srcdir="${ACLCUDA_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"

skip() {
    echo "SKIP: $1"
    exit 77
}

[ "$PYTHON" = ":" ] && skip "configure found no Python 3.8 or newer"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null ||
    skip "$PYTHON is missing or older than Python 3.8"
"$PYTHON" -c 'import pytest' 2>/dev/null || skip "pytest is not installed for $PYTHON"
"$PYTHON" -c 'import numpy' 2>/dev/null || skip "NumPy is not installed for $PYTHON"

cd "$srcdir" || exit 1
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
# The source tree may be read-only (make distcheck): no bytecode, no pytest cache.
PYTHONDONTWRITEBYTECODE=1
# A test past its deadline dumps every thread's stack to fd 3, uncaptured.
COMPAT_TRACEBACK_FD=3
export PYTHONPATH PYTHONDONTWRITEBYTECODE COMPAT_TRACEBACK_FD
exec 3>&2
exec "$PYTHON" -m pytest -q -p no:cacheprovider tests/python
