"""The pyACL half of the compatibility suite: pyACL's documented call
forms, tuples (ret last), TypeErrors and behaviour, through `import acl`
only, so it runs against CANN's pyACL as well as acl-cuda's package.

Every test names what it pins:

    @pytest.mark.pins("create_stream returns (stream, ret)", "pyACL API ref acl.rt.create_stream")

and a failure ends with "[pins: ... | ref: ...]". Markers: "unknown" for
known-unknowns (the docs are silent or contradict themselves; the test
records a choice), "hostile" for inputs outside ACL's contract (acl-cuda
promises an error code; the runner leaves them out elsewhere).

With COMPAT_RESULTS set, one line per test goes to that file for the
summary (tests/compat/summary.sh).
"""
import os

import pytest

from compat_fixtures import *  # noqa: F401,F403 (the fixtures)


def pytest_configure(config):
    config.addinivalue_line("markers", "pins(behaviour, reference): the documented behaviour a test pins")
    config.addinivalue_line("markers", "unknown: a known-unknown; the test records the suite's choice")
    config.addinivalue_line("markers", "hostile: inputs outside ACL's contract (acl-cuda's guarantee)")


def _pins(item):
    marker = item.get_closest_marker("pins")
    return marker.args if marker and len(marker.args) == 2 else None


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(os.path.abspath(__file__))
    missing = [item.nodeid for item in items
               if str(item.fspath).startswith(here) and _pins(item) is None]
    if missing:
        raise pytest.UsageError("compat tests without @pytest.mark.pins(behaviour, reference): "
                                + ", ".join(missing))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    pins = _pins(item)
    crash = getattr(getattr(report.longrepr, "reprcrash", None), "message", "")
    pinned = "[pins: %s | ref: %s]" % pins if pins else ""
    if pins and report.failed:
        crash_repr = getattr(report.longrepr, "reprcrash", None)
        if crash_repr is not None and hasattr(report.longrepr, "addsection"):
            # The one-line message (short summary, JUnit's failure message)
            # and the long report both name the behaviour and the reference.
            crash_repr.message = "%s %s" % (crash_repr.message, pinned)
            report.longrepr.addsection("pins", pinned)
        else:
            report.longrepr = "%s\n%s" % (report.longrepr, pinned)
    results = os.environ.get("COMPAT_RESULTS")
    if not results:
        return
    if report.when != "call" and not (report.failed or report.skipped):
        return
    module = os.path.basename(str(item.fspath))[:-3]
    area = "py:" + (module[5:] if module.startswith("test_") else module)
    tags = ",".join(m for m in ("unknown", "hostile") if item.get_closest_marker(m)) or "-"
    if report.passed:
        status, text = "passed", ""
    elif report.skipped:
        status = "skipped"
        text = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else ""
    else:
        status = "failed" if report.when == "call" else "error"
        text = "%s %s" % (crash.splitlines()[0] if crash else "", pinned)
    with open(results, "a") as out:
        out.write("%s\t%s\t%s\t%s\t%s\n" % (area, item.nodeid, status, tags,
                                          text.replace("\t", " ").replace("\n", " ")))
