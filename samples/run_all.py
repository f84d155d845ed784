#!/usr/bin/env python3
"""Runs every sample of this directory in its own process: the pyACL
samples (*.py) and the C HCCL samples of the build (hccl_allreduce, and
hccl_ranktable/run.sh, which starts a process per device), these on four
host devices unless ACLCUDA_HOST_DEVICE_COUNT says otherwise.

Prints one line per sample, "PASS name (0.12 s)" or "FAIL name", the
output of failed samples, and a closing "N passed, M failed". Exits
non-zero if any sample failed. From a source checkout the package in
../python is put first on PYTHONPATH.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE_TIMEOUT_S = 120
HCCL_HOST_DEVICES = "4"


def build_directory():
    """make check's, quickstart's (_build) or the source tree's own build."""
    top = os.path.dirname(HERE)
    for build in filter(None, (os.environ.get("ACLCUDA_TEST_BUILDDIR"), os.path.join(top, "_build"),
                               top)):
        if os.path.exists(os.path.join(build, "samples", "hccl_allreduce")):
            return build
    return None


def samples():
    """(label, command, extra environment) of every sample."""
    found = [(name[:-3], [sys.executable, os.path.join(HERE, name)], {})
             for name in sorted(os.listdir(HERE))
             if name.endswith(".py") and name != os.path.basename(__file__)]
    build = build_directory()
    hccl_env = {"ACLCUDA_HOST_DEVICE_COUNT": os.environ.get("ACLCUDA_HOST_DEVICE_COUNT",
                                                            HCCL_HOST_DEVICES)}
    if build:
        hccl_env["ACLCUDA_TEST_BUILDDIR"] = build
    missing = [sys.executable, "-c", "raise SystemExit('the HCCL samples are not built: run make')"]
    # Only where their sources are (not in a copy of this script elsewhere).
    if os.path.exists(os.path.join(HERE, "hccl_allreduce.c")):
        found.append(("hccl_allreduce",
                      [os.path.join(build, "samples", "hccl_allreduce")] if build else missing,
                      hccl_env))
    if os.path.exists(os.path.join(HERE, "hccl_ranktable", "run.sh")):
        found.append(("hccl_ranktable",
                      [os.path.join(HERE, "hccl_ranktable", "run.sh")] if build else missing,
                      hccl_env))
    return found


def environment():
    env = dict(os.environ)
    package_root = os.path.join(os.path.dirname(HERE), "python")
    if os.path.isfile(os.path.join(package_root, "acl", "__init__.py")):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def run(command, env):
    started = time.monotonic()
    try:
        completed = subprocess.run(command, env=env, cwd=HERE,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=SAMPLE_TIMEOUT_S)
        output, passed = completed.stdout, completed.returncode == 0
        why = "exit status %d" % completed.returncode
    except subprocess.TimeoutExpired as expired:
        output, passed = expired.stdout or b"", False
        why = "timed out after %d s" % SAMPLE_TIMEOUT_S
    return passed, time.monotonic() - started, output.decode("utf-8", "replace"), why


def main():
    env = environment()
    passed = failed = 0
    for label, command, extra in samples():
        ok, seconds, output, why = run(command, dict(env, **extra))
        if ok:
            passed += 1
            print("PASS %s (%.2f s)" % (label, seconds), flush=True)
        else:
            failed += 1
            print("FAIL %s" % label, flush=True)
            print("  %s; its output:" % why)
            for line in output.splitlines():
                print("  | " + line)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
