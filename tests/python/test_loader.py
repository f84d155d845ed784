"""How acl finds libascendcl.so: ACLCUDA_LIBRARY, the paths configure
recorded, then the loader's search path."""
import os
import shutil
import sys
import types

import pytest

import acl
from acl import _lib

from conftest import PACKAGE_ROOT


def fake_config(prefix="/opt/acl", exec_prefix="${prefix}", libdir="${exec_prefix}/lib64", builddir="/nowhere"):
    return types.SimpleNamespace(PREFIX=prefix, EXEC_PREFIX=exec_prefix, LIBDIR=libdir, BUILDDIR=builddir)


def test_expand_autoconf_references():
    config = fake_config()
    assert _lib._expand(config.LIBDIR, config) == "/opt/acl/lib64"
    assert _lib._expand("$(prefix)/lib", config) == "/opt/acl/lib"
    assert _lib._expand("/usr/lib", config) == "/usr/lib"


def test_configured_paths_prefer_the_install_outside_the_build_tree(monkeypatch):
    monkeypatch.setitem(sys.modules, "acl._build_config", fake_config(builddir="/nowhere/build"))
    assert _lib._configured_paths() == ["/opt/acl/lib64/libascendcl.so", "/nowhere/build/.libs/libascendcl.so"]


def test_configured_paths_prefer_the_build_tree_inside_it(monkeypatch):
    builddir = os.path.dirname(PACKAGE_ROOT)
    monkeypatch.setitem(sys.modules, "acl._build_config", fake_config(builddir=builddir))
    assert _lib._configured_paths() == [os.path.join(builddir, ".libs", "libascendcl.so"),
                                        "/opt/acl/lib64/libascendcl.so"]


def test_no_build_config_means_no_configured_paths(monkeypatch):
    monkeypatch.setitem(sys.modules, "acl._build_config", None)  # import fails
    assert _lib._configured_paths() == []


def test_system_names_end_with_the_plain_sonames():
    assert _lib._system_names()[-2:] == ["libascendcl.so", "libascendcl.so.1"]


def test_explicit_library_that_does_not_load_is_an_import_error(run_python):
    completed = run_python("import acl", env={"ACLCUDA_LIBRARY": "/no/such/libascendcl.so"})
    assert completed.returncode != 0
    assert "ImportError" in completed.stderr and "ACLCUDA_LIBRARY" in completed.stderr


def test_loader_search_path_without_build_config(run_python, tmp_path):
    # A pip-installed copy of a fresh clone: no _build_config.py, library on LD_LIBRARY_PATH.
    package = tmp_path / "acl"
    shutil.copytree(os.path.dirname(acl.__file__), str(package),
                    ignore=shutil.ignore_patterns("_build_config.py*", "__pycache__"))
    libdir = os.path.dirname(os.path.realpath(_lib.path))
    env = {"ACLCUDA_LIBRARY": "", "PYTHONPATH": str(tmp_path),
           "LD_LIBRARY_PATH": os.pathsep.join(p for p in (libdir, os.environ.get("LD_LIBRARY_PATH")) if p)}
    completed = run_python("import acl, acl._lib as lib; print(acl.__file__); print(lib.path)", env=env)
    assert completed.returncode == 0, completed.stderr
    module_file, path = completed.stdout.split()
    assert module_file.startswith(str(tmp_path))
    assert os.path.basename(path) in ("libascendcl.so", "libascendcl.so.1")


@pytest.mark.skipif(not os.environ.get("ACLCUDA_LIBRARY"), reason="ACLCUDA_LIBRARY is not set")
def test_explicit_library_is_used():
    assert _lib.path == os.environ["ACLCUDA_LIBRARY"]
