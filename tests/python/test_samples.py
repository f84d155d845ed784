"""The samples as tests: each runs in its own process and must exit 0; and
run_all.py reports and exits as documented."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_ROOT, subprocess_env

SAMPLES_DIR = os.path.join(SOURCE_ROOT, "samples")
SAMPLES = sorted(name for name in os.listdir(SAMPLES_DIR) if name.endswith(".py") and name != "run_all.py")


def test_the_expected_samples_exist():
    expected = {"init_finalize", "resource_allocation", "memcpy_sync", "memcpy_async", "sync_event",
                "sync_stream", "sync_stream_wait_event", "sync_device", "callback_start_thread",
                "callback_threading", "memory_info", "virtual_memory", "ipc_memory"}
    assert expected <= {name[:-3] for name in SAMPLES}


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample(sample):
    completed = subprocess.run([sys.executable, os.path.join(SAMPLES_DIR, sample)], env=subprocess_env(),
                               cwd=SAMPLES_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=120)
    assert completed.returncode == 0, completed.stdout
    assert "ok" in completed.stdout


def test_run_all_reports_each_sample_and_a_total(tmp_path):
    shutil.copy(os.path.join(SAMPLES_DIR, "run_all.py"), str(tmp_path))
    (tmp_path / "good.py").write_text("print('fine')\n")
    (tmp_path / "bad.py").write_text("import sys\nprint('broken output')\nsys.exit(3)\n")
    completed = subprocess.run([sys.executable, str(tmp_path / "run_all.py")], env=subprocess_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                               timeout=60)
    lines = completed.stdout.splitlines()
    assert completed.returncode != 0
    assert lines[0] == "FAIL bad"
    assert any(line.startswith("PASS good (") and line.endswith(" s)") for line in lines)
    assert any("broken output" in line for line in lines)
    assert lines[-1] == "1 passed, 1 failed"


def test_run_all_passes_when_all_pass(tmp_path):
    shutil.copy(os.path.join(SAMPLES_DIR, "run_all.py"), str(tmp_path))
    (tmp_path / "one.py").write_text("pass\n")
    completed = subprocess.run([sys.executable, str(tmp_path / "run_all.py")], env=subprocess_env(),
                               stdout=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert completed.returncode == 0
    assert completed.stdout.splitlines()[-1] == "1 passed, 0 failed"
