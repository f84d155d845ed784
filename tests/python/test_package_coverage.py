"""acl-cuda's package is covered by the compatibility suite's call cases
(tests/compat/python/test_api.py): every public function of acl, acl.rt
and acl.util has a case there, and every case whose C function the library
exports has its Python function."""
import importlib.util
import os

import pytest

import acl

from conftest import SOURCE_ROOT


def _compat_cases():
    path = os.path.join(SOURCE_ROOT, "tests", "compat", "python", "test_api.py")
    spec = importlib.util.spec_from_file_location("compat_test_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _compat_cases()

@pytest.mark.parametrize("module", sorted(CASES.MODULES))
def test_every_public_function_is_covered(module):
    namespace, cases = CASES.MODULES[module]
    public = {n for n in dir(namespace) if not n.startswith("_") and callable(getattr(namespace, n))}
    public -= {"rt", "util"}
    covered = {case.name for case in cases}
    if module == "acl":
        covered |= CASES.SUBPROCESS_ONLY
    assert public - covered == set(), "functions without a case in tests/compat/python/test_api.py"


def test_every_c_function_with_a_case_is_wrapped():
    for module, case in CASES.ALL_CASES:
        if case.c_function and acl._lib.has(case.c_function):
            assert hasattr(CASES.MODULES[module][0], case.name), "%s.%s" % (module, case.name)


def test_functions_missing_from_the_library_are_absent_from_the_package():
    for module, case in CASES.ALL_CASES:
        if case.c_function and not acl._lib.has(case.c_function):
            assert not hasattr(CASES.MODULES[module][0], case.name), \
                "%s.%s is there although the library lacks %s" % (module, case.name, case.c_function)
