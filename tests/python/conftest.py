"""Shared fixtures of acl-cuda's own pyACL tests (the package's internals;
pyACL's documented behaviour is the compatibility suite's,
tests/compat/python, whose fixtures these tests share).

The library is the one ACLCUDA_LIBRARY names (make check sets it), else the
package's own search order; the package is this tree's python/.
"""
import os
import sys

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_ROOT = os.path.join(SOURCE_ROOT, "python")
COMPAT_PYTHON = os.path.join(SOURCE_ROOT, "tests", "compat", "python")
for path in (COMPAT_PYTHON, PACKAGE_ROOT):
    if path not in sys.path:
        sys.path.insert(0, path)
# The shared fixtures' deadline (a hung test fails), under acl-cuda's name too.
if "ACLCUDA_TEST_DEADLINE" in os.environ:
    os.environ.setdefault("COMPAT_TEST_DEADLINE", os.environ["ACLCUDA_TEST_DEADLINE"])
# Subprocesses (run_python, the samples) import the same package.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p)

from compat_fixtures import *  # noqa: E402,F401,F403 (the fixtures)


def subprocess_env(extra=None):
    env = dict(os.environ)
    env.update(extra or {})
    return env


def pytest_configure(config):
    config.addinivalue_line("markers", "pins(behaviour, reference): the documented behaviour a test pins")
    config.addinivalue_line("markers", "unknown: a known-unknown; the test records the suite's choice")
    config.addinivalue_line("markers", "hostile: inputs outside ACL's contract (acl-cuda's guarantee)")
