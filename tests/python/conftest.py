"""Shared fixtures of the pyACL suite.

The library is the one ACLCUDA_LIBRARY names (make check sets it), else the
package's own search order. The session is initialised once; tests that
need init/finalize themselves run in a subprocess (run_python).
"""
import faulthandler
import os
import subprocess
import sys

import pytest

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_ROOT = os.path.join(SOURCE_ROOT, "python")
if PACKAGE_ROOT not in sys.path:
    sys.path.insert(0, PACKAGE_ROOT)

import acl  # noqa: E402

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
DEVICE_ID = 0


# A test that hangs (a deadlock in the library, say) must fail, not stall the
# suite: past this many seconds every thread's stack is printed and the run
# ends with an error.
TEST_DEADLINE_S = int(os.environ.get("ACLCUDA_TEST_DEADLINE", "120"))
# pytest captures fd 2 during a test, and a dump written there is lost when
# the process ends: run-pytest.sh passes the real stderr as another fd.
_TRACEBACK_FD = os.environ.get("ACLCUDA_TEST_TRACEBACK_FD")
_TRACEBACK_FILE = os.fdopen(int(_TRACEBACK_FD), "w") if _TRACEBACK_FD else sys.__stderr__


@pytest.fixture(autouse=True)
def _deadline():
    faulthandler.dump_traceback_later(TEST_DEADLINE_S, exit=True, file=_TRACEBACK_FILE)
    yield
    faulthandler.cancel_dump_traceback_later()


def subprocess_env(extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    env.update(extra or {})
    return env


@pytest.fixture
def run_python():
    """Runs Python code in a fresh interpreter with the package importable."""
    def run(code, env=None, timeout=60):
        return subprocess.run([sys.executable, "-c", code], env=subprocess_env(env), cwd=SOURCE_ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              timeout=timeout)
    return run


@pytest.fixture(scope="session", autouse=True)
def acl_session():
    assert acl.init() in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE)
    yield
    acl.finalize()


@pytest.fixture(autouse=True)
def clean_errors():
    """Each test starts with no pending error text or last error."""
    acl.get_recent_err_msg()
    acl.rt.get_last_error(0)
    yield


@pytest.fixture
def context():
    """Device 0 set and a fresh context current; both released afterwards."""
    assert acl.rt.set_device(DEVICE_ID) == ACL_SUCCESS
    ctx, ret = acl.rt.create_context(DEVICE_ID)
    assert ret == ACL_SUCCESS and ctx != 0
    yield ctx
    acl.rt.set_context(ctx)
    acl.rt.destroy_context(ctx)
    acl.rt.reset_device(DEVICE_ID)
    acl.get_recent_err_msg()


@pytest.fixture
def stream(context):
    handle, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS and handle != 0
    yield handle
    acl.rt.destroy_stream(handle)


@pytest.fixture
def event(context):
    handle, ret = acl.rt.create_event()
    assert ret == ACL_SUCCESS and handle != 0
    yield handle
    acl.rt.destroy_event(handle)


@pytest.fixture
def device_memory(context):
    """(pointer, size) of 4 KiB of device memory."""
    size = 4096
    ptr, ret = acl.rt.malloc(size, 0)
    assert ret == ACL_SUCCESS and ptr != 0
    yield ptr, size
    acl.rt.free(ptr)


@pytest.fixture
def host_memory(context):
    """(pointer, size) of 4 KiB of page-locked host memory."""
    size = 4096
    ptr, ret = acl.rt.malloc_host(size)
    assert ret == ACL_SUCCESS and ptr != 0
    yield ptr, size
    acl.rt.free_host(ptr)
