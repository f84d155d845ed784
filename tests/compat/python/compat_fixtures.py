"""Fixtures of the pyACL half of the compatibility suite (and of acl-cuda's
own pyACL tests, which import them).

`import acl` must find the package under test: pyACL from CANN's set_env.sh
(PYTHONPATH), or acl-cuda's from any prefix. The session is initialised
once; tests that need init/finalize themselves run in a subprocess
(run_python).
"""
import faulthandler
import os
import subprocess
import sys
import threading

import pytest

import acl

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
DEVICE_ID = 0

# A test that hangs (a deadlock in the library, say) must fail, not stall the
# suite: past this many seconds every thread's stack is printed and the run
# ends with an error.
TEST_DEADLINE_S = int(os.environ.get("COMPAT_TEST_DEADLINE", "120"))
# pytest captures fd 2 during a test, and a dump written there is lost when
# the process ends: the runner may pass the real stderr as another fd.
_TRACEBACK_FD = os.environ.get("COMPAT_TRACEBACK_FD")
_TRACEBACK_FILE = os.fdopen(int(_TRACEBACK_FD), "w") if _TRACEBACK_FD else sys.__stderr__


@pytest.fixture(autouse=True)
def _deadline():
    faulthandler.dump_traceback_later(TEST_DEADLINE_S, exit=True, file=_TRACEBACK_FILE)
    yield
    faulthandler.cancel_dump_traceback_later()


def subprocess_env(extra=None):
    env = dict(os.environ)
    env.update(extra or {})
    return env


@pytest.fixture
def run_python(tmp_path):
    """Runs Python code in a fresh interpreter that imports the same acl."""
    def run(code, env=None, timeout=60):
        return subprocess.run([sys.executable, "-c", code], env=subprocess_env(env), cwd=str(tmp_path),
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


REPORT_TIMEOUT_MS = 20
SYNC_TIMEOUT_MS = 30000


class ReportThread:
    """A threading.Thread looping on process_report, subscribed to a stream."""

    def __init__(self, context, stream):
        self.stream = stream
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, args=(context,), daemon=True)
        self.thread.start()
        assert acl.rt.subscribe_report(self.thread.ident, stream) == 0

    def _loop(self, context):
        acl.rt.set_context(context)
        while not self.stop.is_set():
            acl.rt.process_report(REPORT_TIMEOUT_MS)

    def close(self):
        assert acl.rt.unsubscribe_report(self.thread.ident, self.stream) == 0
        self.stop.set()
        self.thread.join(SYNC_TIMEOUT_MS / 1000)
        assert not self.thread.is_alive()


@pytest.fixture
def reporter(context, stream):
    report_thread = ReportThread(context, stream)
    yield report_thread
    acl.rt.synchronize_stream_with_timeout(stream, SYNC_TIMEOUT_MS)
    report_thread.close()
