"""acl.rt callbacks: report threads and launch_callback.

Also the shared report of exceptions raised by Python code that C calls
back (exception.py uses it)."""

import collections as _collections
import itertools as _itertools
import sys as _sys
import traceback as _traceback

from .. import _lib
from .._module import exported as _exported
from .common import api as _api
from .common import c as _c

# The C library gets one trampoline, made once and never freed, and an
# integer cookie as userData. The cookie indexes the (fn, user_data) pairs
# still to run, which keeps them alive until their callback has run. ctypes
# takes the GIL for the trampoline, so the report thread runs Python while
# the main thread waits in synchronize_stream with the GIL released. Each
# access to the pairs is one dict operation, atomic on its own, so they
# need no lock (launch_callback is a hot call).

_pending_callbacks = {}
_cookies = _itertools.count(1)
# The most recent exceptions raised by callbacks: (callback, exception).
_callback_errors = _collections.deque(maxlen=32)


def _report_exception(what, fn, exc, outcome="ignored, the report thread goes on"):
    try:
        _sys.stderr.write("acl: exception in %s %r (%s):\n" % (what, fn, outcome))
        _traceback.print_exception(type(exc), exc, exc.__traceback__, file=_sys.stderr)
    except Exception:  # stderr gone (interpreter shutdown): nothing left to tell
        pass
    # Kept without its traceback, whose frames would keep the callback's data alive.
    _callback_errors.append((fn, exc.with_traceback(None)))


def _run_callback(cookie):
    entry = _pending_callbacks.pop(cookie, None)
    if entry is None:
        _sys.stderr.write("acl: callback with unknown cookie %r ignored\n" % (cookie,))
        return
    fn, user_data = entry
    try:
        fn(user_data)
    except BaseException as exc:  # noqa: B036 - nothing may unwind into C
        _report_exception("acl.rt.launch_callback callback", fn, exc)


_callback_trampoline = _lib.aclrtCallback(_run_callback)
_launch_callback = getattr(_c, "aclrtLaunchCallback", None)


@_api("Kk", "aclrtSubscribeReport")
def subscribe_report(thread_id, stream, /):
    """ret = acl.rt.subscribe_report(thread_id, stream): thread_id from
    acl.util.start_thread or threading.Thread.ident."""
    return _c.aclrtSubscribeReport(thread_id, stream)


@_api("Kk", "aclrtUnSubscribeReport")
def unsubscribe_report(thread_id, stream, /):
    """ret = acl.rt.unsubscribe_report(thread_id, stream)"""
    return _c.aclrtUnSubscribeReport(thread_id, stream)


@_api("i", "aclrtProcessReport")
def process_report(timeout_ms, /):
    """ret = acl.rt.process_report(timeout_ms): runs due callbacks on this
    (subscribed) thread; -1 waits forever. Other Python threads keep running."""
    return _c.aclrtProcessReport(timeout_ms)


@_api("OOik", "aclrtLaunchCallback")
def launch_callback(fn, user_data, block_type, stream, /):
    """ret = acl.rt.launch_callback(fn, user_data, block_type, stream)

    fn(user_data) runs once on the thread subscribed to stream, inside its
    process_report; block_type 1 holds later work of the stream until fn returned."""
    if not callable(fn):
        raise TypeError("parameter must be callable")  # pyACL's text
    cookie = next(_cookies)
    _pending_callbacks[cookie] = (fn, user_data)
    ret = _launch_callback(_callback_trampoline, cookie, block_type, stream)
    if ret != 0:
        _pending_callbacks.pop(cookie, None)
    return ret


__all__ = _exported(globals())
