#!/bin/sh
# The include graph of src/ follows the layers (scripts/check-layers.py).
[ -n "${PYTHON:-}" ] && [ "$PYTHON" != ":" ] || { echo "no python: skipped"; exit 77; }
exec "$PYTHON" "${ACLCUDA_TEST_SRCDIR:?}/scripts/check-layers.py" --self-test
