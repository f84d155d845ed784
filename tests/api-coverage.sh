#!/bin/sh
# docs/api-coverage.md matches the headers and the stubs in src/unsupported.c.
[ -n "${PYTHON:-}" ] && [ "$PYTHON" != ":" ] || { echo "no python: skipped"; exit 77; }
exec "$PYTHON" "${ACLCUDA_TEST_SRCDIR:?}/scripts/api-coverage.py" --check
