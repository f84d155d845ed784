"""acl.init / finalize / finalize_reference, each scenario in a fresh process
(the rest of the suite shares one initialised process)."""
import json
import textwrap

import pytest

ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_ERROR_REPEAT_FINALIZE = 100037


def _run(run_python, body):
    completed = run_python("import acl\n" + textwrap.dedent(body))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed.stdout


@pytest.mark.pins('ret = acl.init() and ret = acl.finalize() return 0',
                  'pyACL API ref acl.init, acl.finalize')
def test_init_then_finalize(run_python):
    out = _run(run_python, """
        print(acl.init(), acl.finalize())
    """)
    assert out.split() == ["0", "0"]


@pytest.mark.pins('a second acl.init returns ACL_ERROR_REPEAT_INITIALIZE (100002), a second acl.finalize ACL_ERROR_REPEAT_FINALIZE (100037)',
                  'pyACL API ref acl.init (repeated init); acl.finalize')
def test_repeated_init_and_finalize(run_python):
    out = _run(run_python, """
        print(acl.init(), acl.init(), acl.finalize(), acl.finalize())
    """)
    assert out.split() == ["0", str(ACL_ERROR_REPEAT_INITIALIZE), "0", str(ACL_ERROR_REPEAT_FINALIZE)]


@pytest.mark.pins('init -> set_device -> reset_device -> finalize may repeat in one process',
                  'pyACL API ref acl.init: init/finalize/init sequences allowed')
def test_init_finalize_init_cycle(run_python):
    out = _run(run_python, """
        for _ in range(3):
            print(acl.init(), acl.rt.set_device(0), acl.rt.reset_device(0), acl.finalize())
    """)
    assert out.split() == ["0"] * 12


@pytest.mark.pins('ref_count, ret = acl.finalize_reference() counts the inits down to 0',
                  "pyACL API ref acl.finalize_reference ('Ki')")
def test_finalize_reference_counts(run_python):
    out = _run(run_python, """
        acl.init(); acl.init()
        print(*acl.finalize_reference())
        print(*acl.finalize_reference())
    """)
    assert out.splitlines() == ["1 0", "0 0"]


@pytest.mark.pins('acl.init(config_path) takes a JSON file with err_msg_mode and defaultDevice',
                  'pyACL API ref acl.init: config JSON')
def test_init_with_a_config_file(run_python, tmp_path):
    config = tmp_path / "acl.json"
    config.write_text(json.dumps({"err_msg_mode": "1", "defaultDevice": {"default_device": "0"}}))
    out = _run(run_python, """
        print(acl.init(%r))
        print(acl.finalize())
    """ % str(config))
    assert out.split() == ["0", "0"]


@pytest.mark.pins('acl.init with a malformed or missing config returns a non-zero ret and leaves an error text',
                  'pyACL API ref acl.init; acl.get_recent_err_msg')
def test_init_with_a_bad_config_returns_an_error_code(run_python, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    out = _run(run_python, """
        ret = acl.init(%r)
        print(ret != 0, isinstance(acl.get_recent_err_msg(), str))
        print(acl.init(%r) != 0)
    """ % (str(broken), str(tmp_path / "missing.json")))
    assert out.split() == ["True", "True", "True"]


@pytest.mark.pins('major, minor, patch, ret = acl.get_version() with major 1',
                  "pyACL API ref acl.get_version ('iiii')")
def test_get_version_matches_the_headers(run_python):
    out = _run(run_python, "print(*acl.get_version())")
    major, minor, patch, ret = map(int, out.split())
    assert ret == 0 and major == 1 and minor >= 0 and patch >= 0


@pytest.mark.pins('runtime calls work before acl.init (newest CANN: aclrt* APIs do not check for aclInit)',
                  'CANN runtime [impl] hicann/runtime: no ACL_ERROR_UNINITIALIZE from rt APIs')
def test_library_calls_work_before_init(run_python):
    # The runtime functions do not require acl.init (newest CANN behaviour).
    out = _run(run_python, "print(*acl.rt.get_device_count())")
    count, ret = map(int, out.split())
    assert ret == 0 and count >= 1
