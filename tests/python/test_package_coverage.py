"""acl-cuda's package is covered by the compatibility suite's call cases
(tests/compat/python/test_api.py): every public function of acl, acl.rt
and acl.util has a case there (or, for the while, is named in
AWAITING_COMPAT_CASES), and every case whose C function the library
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

# Functions the compatibility suite (tests/compat, kept apart from the
# package) has no case for yet, with their C functions; acl-cuda's own tests
# call them meanwhile (test_groups_and_allocators.py). A name leaves this
# table once its case is there.
AWAITING_COMPAT_CASES = {
    "acl.rt": {
        "cmo_async": "aclrtCmoAsync",
        "set_group": "aclrtSetGroup",
        "get_group_count": "aclrtGetGroupCount",
        "create_group_info": "aclrtCreateGroupInfo",
        "destroy_group_info": "aclrtDestroyGroupInfo",
        "get_all_group_info": "aclrtGetAllGroupInfo",
        "get_group_info_detail": "aclrtGetGroupInfoDetail",
        "allocator_create_desc": "aclrtAllocatorCreateDesc",
        "allocator_destroy_desc": "aclrtAllocatorDestroyDesc",
        "allocator_set_obj_to_desc": "aclrtAllocatorSetObjToDesc",
        "allocator_set_alloc_func_to_desc": "aclrtAllocatorSetAllocFuncToDesc",
        "allocator_set_free_func_to_desc": "aclrtAllocatorSetFreeFuncToDesc",
        "allocator_set_alloc_advise_func_to_desc": "aclrtAllocatorSetAllocAdviseFuncToDesc",
        "allocator_set_get_addr_from_block_func_to_desc": "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
        "allocator_register": "aclrtAllocatorRegister",
        "allocator_unregister": "aclrtAllocatorUnregister",
    },
}


@pytest.mark.parametrize("module", sorted(CASES.MODULES))
def test_every_public_function_is_covered(module):
    namespace, cases = CASES.MODULES[module]
    public = {n for n in dir(namespace) if not n.startswith("_") and callable(getattr(namespace, n))}
    public -= {"rt", "util"}
    covered = {case.name for case in cases} | set(AWAITING_COMPAT_CASES.get(module, {}))
    if module == "acl":
        covered |= CASES.SUBPROCESS_ONLY
    assert public - covered == set(), "functions without a case in tests/compat/python/test_api.py"


@pytest.mark.parametrize("module", sorted(AWAITING_COMPAT_CASES))
def test_functions_awaiting_a_compat_case_still_await_one(module):
    namespace, cases = CASES.MODULES[module]
    awaiting = AWAITING_COMPAT_CASES[module]
    assert set(awaiting) & {case.name for case in cases} == set(), "has a case now: drop it from the table"
    for name, c_function in awaiting.items():
        assert hasattr(namespace, name) == acl._lib.has(c_function), name


def test_every_c_function_with_a_case_is_wrapped():
    for module, case in CASES.ALL_CASES:
        if case.c_function and acl._lib.has(case.c_function):
            assert hasattr(CASES.MODULES[module][0], case.name), "%s.%s" % (module, case.name)


def test_functions_missing_from_the_library_are_absent_from_the_package():
    for module, case in CASES.ALL_CASES:
        if case.c_function and not acl._lib.has(case.c_function):
            assert not hasattr(CASES.MODULES[module][0], case.name), \
                "%s.%s is there although the library lacks %s" % (module, case.name, case.c_function)
