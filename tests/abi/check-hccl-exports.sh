#!/bin/sh
# libhccl exports exactly the names in tests/abi/hccl-exports.txt (written by
# scripts/api-coverage.py from include/hccl/*.h): every HCCL function the
# headers declare and nothing else (no internals, no Gloo or jansson names).
set -eu
lib=${ACLCUDA_HCCL_LIBRARY:?set by make check}
expected=${ACLCUDA_TEST_SRCDIR:?}/tests/abi/hccl-exports.txt
actual=$(nm -D --defined-only "$lib" | awk '{print $NF}' | LC_ALL=C sort)
if [ "$actual" = "$(LC_ALL=C sort "$expected")" ]; then
  echo "1 passed, 0 failed"
else
  echo "exported symbols differ from $expected:"
  printf '%s\n' "$actual" | diff "$expected" - || true
  echo "0 passed, 1 failed"
  exit 1
fi
