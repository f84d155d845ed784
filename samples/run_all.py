#!/usr/bin/env python3
"""Runs every sample of this directory in its own process.

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


def samples():
    return sorted(name for name in os.listdir(HERE)
                  if name.endswith(".py") and name != os.path.basename(__file__))


def environment():
    env = dict(os.environ)
    package_root = os.path.join(os.path.dirname(HERE), "python")
    if os.path.isfile(os.path.join(package_root, "acl", "__init__.py")):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def run(name, env):
    started = time.monotonic()
    try:
        completed = subprocess.run([sys.executable, os.path.join(HERE, name)], env=env, cwd=HERE,
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
    for name in samples():
        ok, seconds, output, why = run(name, env)
        label = name[:-3]
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
