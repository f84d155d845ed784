"""The package's own machinery behind pyACL's conventions: acl._parse (the
PyArg_ParseTuple rules in Python, CPython's exception kept as the cause of
pyACL's), the ctypes binding (GIL released in every foreign call),
inspectable positional-only signatures, no NumPy needed to import, and the
Python version floor. The conventions themselves are pinned
by the compatibility suite (tests/compat/python/test_conventions.py)."""
import inspect

import pytest

import acl
from acl import _parse


def test_functions_are_positional_only_in_their_signature():
    parameters = inspect.signature(acl.rt.memcpy).parameters
    assert list(parameters) == ["dst", "dest_max", "src", "count", "kind"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in parameters.values())


def test_parser_format_letters():
    @_parse.parsed("t.f", "kKiIHlfsO", _parse.CPYTHON_ERRORS)
    def body(*args):
        return args

    k, big_k, i, big_i, h, long_, f, s, o = body(-1, -2, -3, -4, -5, -6, 7, "x", None)
    assert (k, big_k) == ((1 << 64) - 1, (1 << 64) - 2)
    assert (i, big_i, h, long_) == (-3, (1 << 32) - 4, (1 << 16) - 5, -6)
    assert (f, s, o) == (7.0, b"x", None)
    with pytest.raises(OverflowError):
        body(0, 0, 0, 0, 0, 1 << 63, 0.0, "", 0)
    with pytest.raises(TypeError):
        body(0, 0, 0, 0, 0, 0, "1.5", "", 0)


def test_parser_optional_arguments():
    @_parse.parsed("t.g", "i|sO", _parse.CPYTHON_ERRORS)
    def body(a, b=b"default", c="c"):
        return a, b, c

    assert body(1) == (1, b"default", "c")
    assert body(1, "x") == (1, b"x", "c")
    with pytest.raises(TypeError, match="at least 1 argument"):
        body()
    with pytest.raises(TypeError, match="at most 3 arguments"):
        body(1, "x", 2, 3)


def test_parse_failures_keep_cpythons_exception_as_their_cause():
    # pyACL's TypeError (pinned by the compatibility suite) replaces what
    # PyArg_ParseTuple raised; the package chains that as __cause__, so a
    # traceback still says which argument was wrong and why.
    with pytest.raises(TypeError, match=r"^acl\.rt\.set_device args parse failed$") as raised:
        acl.rt.set_device()
    assert str(raised.value.__cause__) == "function takes exactly 1 argument (0 given)"
    with pytest.raises(TypeError, match=r"^acl\.rt\.memcpy args parse failed$") as raised:
        acl.rt.memcpy(0, 0, 0, 0)
    assert str(raised.value.__cause__) == "function takes exactly 5 arguments (4 given)"
    with pytest.raises(TypeError, match=r"^acl\.init args parse failed$") as raised:
        acl.init("a", "b")
    assert str(raised.value.__cause__) == "function takes at most 1 argument (2 given)"
    for value in (1 << 31, -(1 << 31) - 1, 1 << 64):
        with pytest.raises(TypeError, match=r"^acl\.rt\.set_device args parse failed$") as raised:
            acl.rt.set_device(value)
        assert type(raised.value.__cause__) is OverflowError
    with pytest.raises(TypeError, match=r"^acl\.init args parse failed$") as raised:
        acl.init("con\0fig.json")
    assert type(raised.value.__cause__) is ValueError and "null" in str(raised.value.__cause__)


def test_functions_missing_from_the_library_are_absent():
    namespace = {}

    @_parse.api("acl.test", "", available=False)
    def missing():
        return 0

    namespace["missing"] = missing
    namespace["kept"] = len
    _parse.drop_unavailable(namespace)
    assert namespace == {"kept": len}


def test_every_foreign_call_releases_the_gil():
    # ctypes.CDLL (not PyDLL) functions drop the GIL while they run.
    import ctypes
    assert isinstance(acl._lib.library, ctypes.CDLL)
    assert not isinstance(acl._lib.library, ctypes.PyDLL)
    assert acl._lib.api.aclrtSynchronizeStream._flags_ & ctypes._FUNCFLAG_PYTHONAPI == 0


def test_import_does_not_need_numpy(run_python):
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import acl\n"
            "b = b'abcd'\n"
            "assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b), 4) == b\n"
            "try:\n"
            "    acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(b), (4,), 2)\n"
            "except ImportError as exc:\n"
            "    print('needs numpy:', exc)\n")
    completed = run_python(code)
    assert completed.returncode == 0, completed.stderr
    assert "needs numpy" in completed.stdout


def test_subprocess_helper_sees_the_same_library(run_python):
    completed = run_python("import acl; print(acl._lib.path)")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == acl._lib.path


def test_python_version_floor_syntax():
    # The package must stay importable by Python 3.8: compile it with that grammar.
    import ast
    import os
    package = os.path.dirname(acl.__file__)
    sources = [os.path.join(folder, name) for folder, _, names in os.walk(package)
               for name in names if name.endswith(".py")]
    assert any(os.sep + "_rt" + os.sep in path for path in sources)
    for path in sources:
        with open(path) as source:
            ast.parse(source.read(), path, feature_version=(3, 8))
