#!/bin/sh
# The library exports exactly the names in tests/abi/exports.txt (generated
# from src/api/api.def by scripts/api-coverage.py): every ACL function the
# headers declare and nothing else (no cudart, no internals).
set -eu
lib=${ACLCUDA_LIBRARY:?set by make check}
expected=${ACLCUDA_TEST_SRCDIR:?}/tests/abi/exports.txt
actual=$(nm -D --defined-only "$lib" | awk '{print $NF}' | LC_ALL=C sort)
if [ "$actual" = "$(cat "$expected")" ]; then
  echo "1 passed, 0 failed"
else
  echo "exported symbols differ from $expected:"
  printf '%s\n' "$actual" | diff "$expected" - || true
  echo "0 passed, 1 failed"
  exit 1
fi
