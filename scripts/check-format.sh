#!/usr/bin/env bash
# Fails when a C file under src/ differs from what clang-format 14 makes of
# it with the project's .clang-format (CI runs this). Other versions format
# a few constructs differently, so version 14 is required.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ] || ! "$fmt" --version | grep -q 'version 14\.'; then
  scripts/quickstart.sh deps clang-format-14 >/dev/null
  fmt=$(command -v clang-format-14)
fi
files=$(git ls-files 'src/*.c' 'src/*.h')
# shellcheck disable=SC2086 # one file per word
if "$fmt" --dry-run -Werror $files; then
  echo "format: $(echo "$files" | wc -l) files as clang-format 14 writes them"
else
  echo "format: run '$fmt -i' on the files above (see .clang-format)" >&2
  exit 1
fi
