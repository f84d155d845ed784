"""The samples as tests: each runs in its own process and must exit 0; and
run_all.py reports and exits as documented."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_ROOT, subprocess_env

SAMPLES_DIR = os.path.join(SOURCE_ROOT, "samples")
SAMPLES = sorted(name for name in os.listdir(SAMPLES_DIR) if name.endswith(".py") and name != "run_all.py")
# The samples with torch (issue #18) need torch with CUDA and the cuda backend;
# elsewhere they print why they skipped and exit 0.
TORCH_SAMPLES = {name for name in SAMPLES if name.startswith("torch_")}


def _torch_samples_can_run():
    """(True, None), or (False, the skip line the torch samples must print)."""
    if importlib.util.find_spec("torch") is None:
        return False, "skipped (no torch)"
    import acl.cuda
    if acl.cuda.backend() != "cuda":
        return False, "skipped (acl-cuda runs on its %s backend: no CUDA streams)" % acl.cuda.backend()
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           stdout=subprocess.PIPE, universal_newlines=True, timeout=120)
    if probe.stdout.strip() != "True":
        return False, "skipped (torch sees no GPU)"
    return True, None


def test_the_expected_samples_exist():
    expected = {"init_finalize", "resource_allocation", "memcpy_sync", "memcpy_async", "sync_event",
                "sync_stream", "sync_stream_wait_event", "sync_device", "callback_start_thread",
                "callback_threading", "memory_info", "notify_multi_stream", "value_write_wait",
                "torch_wait_stream", "torch_wait_event", "torch_acl_waits_for_torch", "launch_kernel",
                "capture_replay", "virtual_memory", "ipc_memory"}
    assert expected <= {name[:-3] for name in SAMPLES}


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample(sample):
    completed = subprocess.run([sys.executable, os.path.join(SAMPLES_DIR, sample)], env=subprocess_env(),
                               cwd=SAMPLES_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=120)
    assert completed.returncode == 0, completed.stdout
    if sample in TORCH_SAMPLES:
        runs, skip_line = _torch_samples_can_run()
        if not runs:
            assert completed.stdout.splitlines() == [skip_line]
            pytest.skip(skip_line)
        assert "skipped" not in completed.stdout
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
