#!/bin/sh
# Runs the built compatibility suite and prints its summary (`make check`
# calls it with the settings ./configure recorded). Each C area runs as its
# own Check program (every test forked), writing TAP and Check's XML; the
# pyACL half runs under pytest, writing JUnit XML; summary.sh merges them.
#
# Environment (compat.mk sets it):
#   COMPAT_SRCDIR      the suite's sources
#   COMPAT_RESULTS     where results go (emptied first)
#   COMPAT_PROGRAMS    the C programs, in order
#   COMPAT_JOBS        how many C programs run at once (default 1)
#   PYTHON             the interpreter for pytest, or ":" for none
#   HOSTILE            auto (only for acl-cuda), yes or no: the "hostile" group
#   UNKNOWN            yes (default) or no: the known-unknowns
#   COMPAT_IMPLEMENTED optional list of the C functions the implementation has
#   ACL_LIBDIR         prepended to LD_LIBRARY_PATH (where libascendcl.so is)
#   ACL_PYTHONPATH     prepended to PYTHONPATH (where the acl package is)
#   PYTEST_ARGS        more arguments for pytest (e.g. -k memcpy)
set -u
# One C area: its output under results/, its exit status in AREA.status.
run_area() {
    area=${1##*test_}
    CK_TAP_LOG_FILE_NAME=$results/$area.tap CK_XML_LOG_FILE_NAME=$results/$area.check.xml \
        "./$1" > "$results/$area.log" 2>&1
    echo $? > "$results/$area.status"
}
report_area() {
    area=${1##*test_}
    printf '==> %-10s ' "$area"
    grep -E '^[0-9]+%: Checks' "$results/$area.log" ||
        echo "exit status $(cat "$results/$area.status") (see $results/$area.log)"
}
# A worker of the parallel run below: the setup is done, its environment
# inherited.
if [ "${1:-}" = --area ]; then
    results=$COMPAT_RESULTS
    run_area "$2"
    exit 0
fi

if [ -n "${ACL_LIBDIR:-}" ]; then
    LD_LIBRARY_PATH=$ACL_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
if [ -n "${ACL_PYTHONPATH:-}" ]; then
    PYTHONPATH=$ACL_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONPATH
fi
[ -n "${COMPAT_IMPLEMENTED:-}" ] && export COMPAT_IMPLEMENTED || unset COMPAT_IMPLEMENTED
srcdir=${COMPAT_SRCDIR:?}
results=${COMPAT_RESULTS:-results}
rm -rf "$results"
mkdir -p "$results"
results=$(cd "$results" && pwd)

platform=$(./compat_probe --name 2>/dev/null) || platform=unknown
about=$(./compat_probe 2>/dev/null | sed -n 2p)
hostile=${HOSTILE:-auto}
if [ "$hostile" = auto ]; then
    case $platform in acl-cuda*) hostile=yes ;; *) hostile=no ;; esac
fi
exclude=${CK_EXCLUDE_TAGS:-}
markers=
[ "$hostile" = yes ] || { exclude="$exclude hostile"; markers="not hostile"; }
if [ "${UNKNOWN:-yes}" = no ]; then
    exclude="$exclude unknown"
    markers="${markers:+$markers and }not unknown"
fi
CK_EXCLUDE_TAGS=$(echo $exclude)
: "${CK_DEFAULT_TIMEOUT:=60}"
COMPAT_SKIP_FILE=$results/skipped.txt
: "${COMPAT_IPC_PEER:=./ipc_peer}"
export CK_EXCLUDE_TAGS CK_DEFAULT_TIMEOUT COMPAT_SKIP_FILE COMPAT_IPC_PEER
[ -n "$CK_EXCLUDE_TAGS" ] || unset CK_EXCLUDE_TAGS

echo "==> implementation: $platform"
echo "    $about"
echo "    hostile inputs: $hostile; known-unknowns: ${UNKNOWN:-yes}"
jobs=${COMPAT_JOBS:-1}
if [ "$jobs" -gt 1 ] 2>/dev/null; then
    # Areas share nothing but the device; on a GPU, where every forked test
    # initialises CUDA, the whole suite takes minutes one program at a time.
    # shellcheck disable=SC2086 # COMPAT_PROGRAMS is a list
    printf '%s\n' ${COMPAT_PROGRAMS:?} |
        COMPAT_RESULTS=$results xargs -P "$jobs" -I{} sh "$0" --area {}
    for program in $COMPAT_PROGRAMS; do
        report_area "$program"
    done
else
    for program in ${COMPAT_PROGRAMS:?}; do
        run_area "$program"
        report_area "$program"
    done
fi

if [ "${PYTHON:-:}" = ":" ]; then
    echo "no Python configured" > "$results/python.notrun"
elif ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
    echo "pytest is not installed for $PYTHON" > "$results/python.notrun"
elif ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "NumPy is not installed for $PYTHON" > "$results/python.notrun"
elif ! "$PYTHON" -c 'import acl' > "$results/python.log" 2>&1; then
    echo "the acl package does not import (PYTHONPATH=${PYTHONPATH:-}); see python.log" > "$results/python.notrun"
else
    printf '==> %-10s ' python
    # shellcheck disable=SC2086 # PYTEST_ARGS is a list
    COMPAT_RESULTS=$results/python.results PYTHONDONTWRITEBYTECODE=1 \
        "$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$results/python.junit.xml" \
        ${markers:+-m "$markers"} ${PYTEST_ARGS:-} "$srcdir/python" > "$results/python.log" 2>&1
    echo $? > "$results/python.status"
    tail -n 1 "$results/python.log"
fi

sh "$srcdir/summary.sh" --platform "$platform" --expected "$srcdir/expected-differences.txt" "$results"
