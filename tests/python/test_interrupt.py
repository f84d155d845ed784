"""Ctrl-C interrupts acl.rt.synchronize_* promptly (#14): the waits return to
Python in slices, where a pending SIGINT raises KeyboardInterrupt, and the
stream stays usable. Run in a subprocess: a KeyboardInterrupt inside a
pytest test would end the whole session."""
import pytest

SCENARIO = r"""
import ctypes, os, signal, threading, time
import acl
from acl import _lib

# A shell that starts jobs in the background leaves SIGINT ignored, and
# Python then raises nothing for it: ask for KeyboardInterrupt explicitly.
signal.signal(signal.SIGINT, signal.default_int_handler)
acl.init()
assert acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
assert ret == 0
gate = threading.Event()

@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def held(_):
    gate.wait(30)

lib = ctypes.CDLL(_lib.path)
lib.aclrtLaunchHostFunc.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
assert lib.aclrtLaunchHostFunc(stream, held, None) == 0
event, ret = acl.rt.create_event()
assert acl.rt.record_event(event, stream) == 0

threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    WAIT(TARGET)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted after %.2f s" % (time.monotonic() - start))
gate.set()
print("then", WAIT(TARGET), acl.rt.synchronize_stream(stream))
acl.rt.destroy_event(event)
acl.rt.destroy_stream(stream)
acl.rt.reset_device(0)
acl.finalize()
"""


@pytest.mark.parametrize("wait, target", [
    ("acl.rt.synchronize_stream", "stream"),
    ("acl.rt.synchronize_event", "event"),
    ("acl.rt.synchronize_device", ""),
])
def test_ctrl_c_interrupts_a_wait_with_no_limit(run_python, wait, target):
    result = run_python(SCENARIO.replace("WAIT", wait).replace("TARGET", target), timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("interrupted after "), result.stdout
    assert float(lines[0].split()[2]) < 2.0, "KeyboardInterrupt came too late: " + lines[0]
    assert lines[1] == "then 0 0", result.stdout
