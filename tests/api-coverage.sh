#!/bin/sh
# The API table (src/api/api.def) agrees with the headers, the export list,
# docs/symbols-in-versions and the Python package, and docs/api-coverage.md
# and tests/abi/exports.txt are what it generates.
[ -n "${PYTHON:-}" ] && [ "$PYTHON" != ":" ] || { echo "no python: skipped"; exit 77; }
exec "$PYTHON" "${ACLCUDA_TEST_SRCDIR:?}/scripts/api-coverage.py" --check
