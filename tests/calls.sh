#!/bin/sh
# The built objects of src/ call each other without loops where the layers
# say so (scripts/check-calls.py).
[ -n "${PYTHON:-}" ] && [ "$PYTHON" != ":" ] || { echo "no python: skipped"; exit 77; }
exec "$PYTHON" "${ACLCUDA_TEST_SRCDIR:?}/scripts/check-calls.py" --self-test "${ACLCUDA_TEST_BUILDDIR:?}"
