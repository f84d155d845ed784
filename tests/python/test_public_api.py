"""The public names of acl, acl.rt, acl.util, acl.mdl, acl.prof, acl.tdt and acl.cuda (acl-cuda's own),
with their signatures, are the ones recorded in public-api.txt: nothing private leaks out of the
private area modules behind acl.rt, and nothing public gets lost when the
areas move. A name added on purpose is added to public-api.txt (the
failure message prints the lines to paste)."""
import importlib
import inspect
import os
import pkgutil
import types

import acl
import acl._rt
import acl.cuda

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "public-api.txt")
MODULES = (acl, acl.mdl, acl.rt, acl.util, acl.cuda, acl.media, acl.prof, acl.tdt)


def _describe(module, name):
    value = getattr(module, name)
    if isinstance(value, types.ModuleType):
        return "%s.%s module" % (module.__name__, name)
    return "%s.%s%s" % (module.__name__, name, inspect.signature(value))


def _public_api():
    return [_describe(module, name) for module in MODULES
            for name in sorted(n for n in dir(module) if not n.startswith("_"))]


def _recorded():
    with open(RECORDED) as listing:
        return [line.rstrip("\n") for line in listing if line.strip() and not line.startswith("#")]


def test_public_names_and_signatures_are_the_recorded_ones():
    actual, recorded = _public_api(), _recorded()
    added = sorted(set(actual) - set(recorded))
    lost = sorted(set(recorded) - set(actual))
    assert not added and not lost, "not recorded in public-api.txt:\n  %s\nrecorded but gone:\n  %s" % (
        "\n  ".join(added) or "-", "\n  ".join(lost) or "-")
    assert len(set(recorded)) == len(recorded), "a name recorded twice"


def _areas():
    names = [info.name for info in pkgutil.iter_modules(acl._rt.__path__)]
    return [importlib.import_module("acl._rt." + name) for name in sorted(names) if name != "common"]


def test_every_area_is_published_and_acl_rt_holds_the_same_objects():
    published = {}
    for area in _areas():
        assert area.__all__, "%s exports nothing" % area.__name__
        for name in area.__all__:
            assert name not in published, "%s is exported by %s and %s" % (name, published[name], area.__name__)
            published[name] = area.__name__
            # The very function object, not a wrapper around it: no call costs more.
            assert getattr(acl.rt, name) is getattr(area, name)
            assert getattr(acl.rt, name).__module__ == "acl.rt"
    assert sorted(published) == acl.rt.__all__
    assert sorted(published) == sorted(n for n in dir(acl.rt) if not n.startswith("_"))


def test_area_modules_export_functions_only():
    for area in _areas():
        public = [n for n in dir(area) if not n.startswith("_")]
        assert sorted(public) == area.__all__, area.__name__
        assert all(inspect.isfunction(getattr(area, n)) for n in public)


def test_hot_calls_go_straight_to_the_c_function():
    # acl._parse.foreign() wrappers hold the ctypes function itself (the
    # synchronize calls loop over its slices inline: test_interrupt.py).
    for name, c_function in [("record_event", "aclrtRecordEvent"), ("stream_wait_event", "aclrtStreamWaitEvent"),
                             ("query_event_status", "aclrtQueryEventStatus"),
                             ("query_event", "aclrtQueryEvent"),
                             ("synchronize_stream", "aclcudaSynchronizeStreamSlice"),
                             ("synchronize_event", "aclcudaSynchronizeEventSlice"),
                             ("memcpy_async", "aclrtMemcpyAsync"), ("memset_async", "aclrtMemsetAsync")]:
        wrapper = getattr(acl.rt, name)
        assert wrapper.__globals__["_function"] is getattr(acl._lib.api, c_function), name


def test_help_lists_the_functions_of_acl_rt():
    import pydoc
    text = pydoc.render_doc(acl.rt, renderer=pydoc.plaintext)
    for name in ("set_device", "memcpy_async", "launch_callback", "get_last_error"):
        assert "\n    %s(" % name in text, name


def test_every_package_file_is_installed():
    # make install takes the sources Makefile.am lists, pip the packages pyproject.toml names.
    root = os.path.dirname(os.path.dirname(HERE))
    package = os.path.dirname(acl.__file__)
    on_disk = sorted(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                     for folder, _, names in os.walk(package) for name in names
                     if name.endswith(".py") and name != "_build_config.py")
    with open(os.path.join(root, "Makefile.am")) as makefile:
        listed = makefile.read().replace("\\\n", " ").split()
    assert [path for path in on_disk if path not in listed] == []
    with open(os.path.join(root, "python", "pyproject.toml")) as project:
        packages = [line for line in project if line.startswith("packages")][0]
    for folder, _, names in os.walk(package):
        if "__init__.py" in names:
            name = os.path.relpath(folder, os.path.dirname(package)).replace(os.sep, ".")
            assert '"%s"' % name in packages, name
