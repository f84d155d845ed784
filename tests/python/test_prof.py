"""acl.prof: a small pyACL program profiled with pyACL's call forms
(init, create_config, start, stamps and ranges, stop, finalize); the
timeline it writes (timeline.json, docs/profiling.md) holds its calls,
its tasks on its stream's track tied to those calls, its mark and ranges;
the results and error codes are pyACL's."""
import json
import os

import numpy as np

import acl

ACL_PROF_ACL_API = 0x0001
ACL_PROF_TASK_TIME = 0x0002
ACL_PROF_MSPROFTX = 0x0080
ACL_ERROR_PROF_NOT_RUN = 100043  # acl/acl_base.h
ACL_MEMCPY_HOST_TO_DEVICE = 1


def test_profile_of_a_small_program(tmp_path, context, stream):
    out = str(tmp_path / "prof")
    assert acl.prof.stop(1) != 0  # a pointer that is no config
    assert acl.prof.init(out) == 0
    assert os.path.isdir(out)
    config = acl.prof.create_config([0], 0, 0, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX)
    assert isinstance(config, int) and config != 0
    assert acl.prof.start(config) == 0

    host = np.arange(256, dtype=np.float32)
    dev, ret = acl.rt.malloc(host.nbytes, 0)
    assert ret == 0
    stamp = acl.prof.create_stamp()
    assert stamp != 0
    assert acl.prof.set_stamp_trace_message(stamp, "copy in", len("copy in")) == 0
    assert acl.prof.push(stamp) == 0
    data = host.tobytes()
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.rt.memcpy_async(dev, host.nbytes, ptr, host.nbytes, ACL_MEMCPY_HOST_TO_DEVICE, stream) == 0
    assert acl.rt.memset_async(dev, host.nbytes, 0, host.nbytes, stream) == 0
    assert acl.prof.mark(stamp) == 0
    assert acl.prof.mark_ex("after fill", stream) == 0
    range_id, ret = acl.prof.range_start(stamp)
    assert ret == 0 and range_id != 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.prof.range_stop(range_id) == 0
    assert acl.prof.pop() == 0
    step = acl.prof.create_step_info()
    assert step != 0
    assert acl.prof.get_step_timestamp(step, 0, stream) == 0
    assert acl.prof.get_step_timestamp(step, 1, stream) == 0
    assert acl.prof.destroy_step_info(step) is None

    assert acl.prof.stop(config) == 0
    assert acl.prof.stop(config) == ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.destroy_config(config) == 0
    assert acl.prof.finalize() == 0
    assert acl.prof.destroy_stamp(stamp) is None
    assert acl.rt.free(dev) == 0

    with open(os.path.join(out, "timeline.json")) as f:
        events = json.load(f)["traceEvents"]
    calls = {e["args"]["call"]: e["name"] for e in events if e.get("cat") == "acl_api"}
    for name in ("aclrtMemcpyAsync", "aclrtMemsetAsync", "aclprofMark", "aclprofRangeStart",
                 "aclprofRangeStop", "aclprofGetStepTimestamp"):
        assert name in calls.values(), name
    stream_id, ret = acl.rt.stream_get_id(stream)
    assert ret == 0
    tasks = sorted((e for e in events if e.get("cat") == "task"), key=lambda e: e["args"]["seq"])
    assert [t["name"] for t in tasks][:2] == ["MemcpyAsync", "MemsetAsync"]
    for t in tasks:
        assert calls[t["args"]["call"]] == t["args"]["api"]
        assert t["dur"] >= 0
        assert t["tid"] == stream_id
    assert tasks[1]["ts"] >= tasks[0]["ts"] + tasks[0]["dur"] - 0.002
    marks = [e["name"] for e in events if e.get("cat") == "mark"]
    assert "copy in" in marks and "after fill" in marks
    ranges = [e["name"] for e in events if e.get("cat") == "range"]
    assert ranges.count("copy in") == 2  # the push and the range


def test_bad_arguments_follow_pyacl():
    import pytest
    with pytest.raises(TypeError, match="^acl.prof.init args parse failed$"):
        acl.prof.init(5)
    with pytest.raises(TypeError, match="^acl.prof.range_stop args parse failed$"):
        acl.prof.range_stop("x")
    assert acl.prof.create_config([0], 0, 0, 1 << 60) == 0  # unknown data-type bits
