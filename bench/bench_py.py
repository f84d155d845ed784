#!/usr/bin/env python3
"""Per-call cost of pyACL (the acl package) next to torch.cuda and cuda-python.

Each operation runs in batches of calls timed with time.perf_counter_ns; the
batches of the columns (acl, torch, cuda-python) alternate within one
process after warm-up, their order rotating every round. What a batch
queued is drained outside the timed window. A round's figure is batch time /
calls; the table shows the median over rounds and the 10th-90th percentile
spread. torch and cuda-python columns appear when they import and see a GPU
and acl runs on its cuda backend; the ctypes column (the same C functions
through bare ctypes function objects: the floor of a ctypes package) always.

    PYTHONPATH=python ACLCUDA_LIBRARY=.libs/libascendcl.so python3 bench/bench_py.py [--json PATH]

With --json, the results go under the key "python" of that file, which
keeps what else it holds (bench_c's results); the acl.cuda section (handle
conversions, copies from torch memory next to the same copies from ACL
memory; cuda backend with torch only) under "python_interop".
"""

import argparse
import ctypes
import datetime
import json
import os
import platform
import sys
import time

import acl

ACL_EVENT_SYNC = 0x1
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEM_MALLOC_HUGE_FIRST = 0
WARMUP_BATCHES = 3


def quantile(ordered, q):
    """Linear interpolation between the closest ranks (as bench_c does)."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(values):
    ordered = sorted(values)
    return {"median_ns": quantile(ordered, 0.5), "p10_ns": quantile(ordered, 0.1),
            "p90_ns": quantile(ordered, 0.9)}


def checked(what, result):
    """The ret of a pyACL call (bare or last in a tuple) must be 0."""
    ret = result[-1] if isinstance(result, tuple) else result
    if ret != 0:
        sys.exit("bench_py: %s returned %r" % (what, ret))
    return result


# ---- columns ------------------------------------------------------------------
# A column maps operation names to (run(calls), settle()) pairs: run makes
# `calls` calls and is timed; settle drains the queue, untimed.

class AclColumn:
    name = "acl"

    def __init__(self):
        rt = acl.rt
        checked("acl.init", acl.init())
        checked("acl.rt.set_device", rt.set_device(0))
        self.stream = checked("create_stream", rt.create_stream())[0]
        self.other = checked("create_stream", rt.create_stream())[0]
        # ACL_EVENT_SYNC without timing: what torch.cuda.Event() makes by default.
        self.event = checked("create_event_with_flag", rt.create_event_with_flag(ACL_EVENT_SYNC))[0]
        self.recorded = checked("create_event_with_flag",
                                rt.create_event_with_flag(ACL_EVENT_SYNC))[0]
        checked("record_event", rt.record_event(self.recorded, self.stream))
        checked("synchronize_stream", rt.synchronize_stream(self.stream))
        self.dev = checked("malloc", rt.malloc(4, ACL_MEM_MALLOC_HUGE_FIRST))[0]
        self.host = checked("malloc_host", rt.malloc_host(4))[0]

        stream, other, event, recorded, dev, host = (self.stream, self.other, self.event,
                                                      self.recorded, self.dev, self.host)
        record, wait, sync = rt.record_event, rt.stream_wait_event, rt.synchronize_stream
        query, copy, fill = rt.query_event_status, rt.memcpy_async, rt.memset_async
        kind = ACL_MEMCPY_HOST_TO_DEVICE

        def record_event(calls):
            for _ in range(calls):
                record(event, stream)

        def stream_wait_event(calls):
            for _ in range(calls):
                wait(other, recorded)

        def synchronize_stream(calls):
            for _ in range(calls):
                sync(stream)

        def query_event(calls):
            for _ in range(calls):
                query(recorded)

        def memcpy_async(calls):
            for _ in range(calls):
                copy(dev, 4, host, 4, kind, stream)

        def memset_async(calls):
            for _ in range(calls):
                fill(dev, 4, 0, 4, stream)

        def settle():
            sync(stream)
            sync(other)

        # One checked call of each, so the timed loops need not check.
        checked("record_event", record(event, stream))
        checked("stream_wait_event", wait(other, recorded))
        checked("query_event_status", query(recorded))
        checked("memcpy_async", copy(dev, 4, host, 4, kind, stream))
        checked("memset_async", fill(dev, 4, 0, 4, stream))
        settle()
        self.ops = {
            "record event": (record_event, settle),
            "stream wait event": (stream_wait_event, settle),
            "synchronize stream": (synchronize_stream, None),
            "query event": (query_event, None),
            "memcpy async 4 B H2D": (memcpy_async, settle),
            "memset async 4 B": (memset_async, settle),
        }

    def close(self):
        rt = acl.rt
        checked("free", rt.free(self.dev))
        checked("free_host", rt.free_host(self.host))
        for event in (self.event, self.recorded):
            checked("destroy_event", rt.destroy_event(event))
        for stream in (self.stream, self.other):
            checked("destroy_stream", rt.destroy_stream(stream))
        checked("reset_device", rt.reset_device(0))
        checked("finalize", acl.finalize())


class CtypesColumn:
    """The same C functions on the acl column's handles, called through bare
    ctypes function objects (argtypes declared, the query's out-value made
    once, the GIL released or kept as acl does): the floor a ctypes package
    cannot go under, so acl/ctypes is what the acl package's wrappers add
    and ctypes/cuda-python what ctypes itself costs next to a compiled
    binding."""
    name = "ctypes"

    def __init__(self, acl_column):
        library = acl._lib.library
        # The GIL policy is acl's (acl._lib.KEEPS_GIL): the queries hold it.
        holding = ctypes.PyDLL(library._name, handle=library._handle)
        p, size, i32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int32

        def bare(name, *argtypes):
            source = holding if name in acl._lib.KEEPS_GIL else library
            function = getattr(source, name)  # a fresh object: acl's own keeps its argtypes
            function = type(function)((name, source))
            function.argtypes = argtypes
            function.restype = ctypes.c_int
            return function

        record = bare("aclrtRecordEvent", p, p)
        wait = bare("aclrtStreamWaitEvent", p, p)
        sync = bare("aclrtSynchronizeStream", p)
        query = bare("aclrtQueryEventStatus", p, ctypes.POINTER(ctypes.c_int))
        copy = bare("aclrtMemcpyAsync", p, size, p, size, i32, p)
        fill = bare("aclrtMemsetAsync", p, size, i32, size, p)
        c = acl_column
        stream, other, event, recorded, dev, host = (c.stream, c.other, c.event, c.recorded,
                                                      c.dev, c.host)
        status = ctypes.c_int()
        status_ref = ctypes.byref(status)
        kind = ACL_MEMCPY_HOST_TO_DEVICE

        def record_event(calls):
            for _ in range(calls):
                record(event, stream)

        def stream_wait_event(calls):
            for _ in range(calls):
                wait(other, recorded)

        def synchronize_stream(calls):
            for _ in range(calls):
                sync(stream)

        def query_event(calls):
            for _ in range(calls):
                query(recorded, status_ref)
                status.value  # read, as a binding returning it must

        def memcpy_async(calls):
            for _ in range(calls):
                copy(dev, 4, host, 4, kind, stream)

        def memset_async(calls):
            for _ in range(calls):
                fill(dev, 4, 0, 4, stream)

        def settle():
            sync(stream)
            sync(other)

        for what, result in (("aclrtRecordEvent", record(event, stream)),
                             ("aclrtStreamWaitEvent", wait(other, recorded)),
                             ("aclrtQueryEventStatus", query(recorded, status_ref)),
                             ("aclrtMemcpyAsync", copy(dev, 4, host, 4, kind, stream)),
                             ("aclrtMemsetAsync", fill(dev, 4, 0, 4, stream))):
            checked(what, result)
        settle()
        self.ops = {
            "record event": (record_event, settle),
            "stream wait event": (stream_wait_event, settle),
            "synchronize stream": (synchronize_stream, None),
            "query event": (query_event, None),
            "memcpy async 4 B H2D": (memcpy_async, settle),
            "memset async 4 B": (memset_async, settle),
        }


class TorchColumn:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        stream = torch.cuda.Stream()
        other = torch.cuda.Stream()
        event = torch.cuda.Event()
        recorded = torch.cuda.Event()
        recorded.record(stream)
        stream.synchronize()
        dst = torch.empty(1, dtype=torch.int32, device="cuda")
        src = torch.empty(1, dtype=torch.int32).pin_memory()

        def record_event(calls):
            for _ in range(calls):
                event.record(stream)

        def stream_wait_event(calls):
            for _ in range(calls):
                other.wait_event(recorded)

        def synchronize_stream(calls):
            for _ in range(calls):
                stream.synchronize()

        def query_event(calls):
            for _ in range(calls):
                recorded.query()

        def memcpy_async(calls):
            with torch.cuda.stream(stream):
                for _ in range(calls):
                    dst.copy_(src, non_blocking=True)

        def memset_async(calls):
            with torch.cuda.stream(stream):
                for _ in range(calls):
                    dst.zero_()

        def settle():
            stream.synchronize()
            other.synchronize()

        self.ops = {
            "record event": (record_event, settle),
            "stream wait event": (stream_wait_event, settle),
            "synchronize stream": (synchronize_stream, None),
            "query event": (query_event, None),
            "memcpy async 4 B H2D": (memcpy_async, settle),
            "memset async 4 B": (memset_async, settle),
        }


class CudaPythonColumn:
    name = "cuda-python"

    def __init__(self, cudart):
        def ok(what, result):
            if int(result[0]) != 0:
                raise RuntimeError("%s failed: %r" % (what, result[0]))
            return result[1] if len(result) > 1 else None

        ok("cudaSetDevice", cudart.cudaSetDevice(0))
        # The values of CUDA's #defines, where the bindings do not export them.
        flags = getattr(cudart, "cudaStreamNonBlocking", 0x1)
        stream = ok("cudaStreamCreateWithFlags", cudart.cudaStreamCreateWithFlags(flags))
        other = ok("cudaStreamCreateWithFlags", cudart.cudaStreamCreateWithFlags(flags))
        no_timing = getattr(cudart, "cudaEventDisableTiming", 0x2)
        event = ok("cudaEventCreateWithFlags", cudart.cudaEventCreateWithFlags(no_timing))
        recorded = ok("cudaEventCreateWithFlags", cudart.cudaEventCreateWithFlags(no_timing))
        ok("cudaEventRecord", cudart.cudaEventRecord(recorded, stream))
        ok("cudaStreamSynchronize", cudart.cudaStreamSynchronize(stream))
        dev = ok("cudaMalloc", cudart.cudaMalloc(4))
        host = ok("cudaMallocHost", cudart.cudaMallocHost(4))
        kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        record, wait = cudart.cudaEventRecord, cudart.cudaStreamWaitEvent
        sync = cudart.cudaStreamSynchronize
        query, copy = cudart.cudaEventQuery, cudart.cudaMemcpyAsync
        fill = cudart.cudaMemsetAsync
        # One checked call of each, so the timed loops need not check.
        ok("cudaEventRecord", record(event, stream))
        ok("cudaStreamWaitEvent", wait(other, recorded, 0))
        ok("cudaEventQuery", query(recorded))
        ok("cudaMemcpyAsync", copy(dev, host, 4, kind, stream))
        ok("cudaMemsetAsync", fill(dev, 0, 4, stream))
        ok("cudaStreamSynchronize", sync(stream))

        def record_event(calls):
            for _ in range(calls):
                record(event, stream)

        def stream_wait_event(calls):
            for _ in range(calls):
                wait(other, recorded, 0)

        def synchronize_stream(calls):
            for _ in range(calls):
                sync(stream)

        def query_event(calls):
            for _ in range(calls):
                query(recorded)

        def memcpy_async(calls):
            for _ in range(calls):
                copy(dev, host, 4, kind, stream)

        def memset_async(calls):
            for _ in range(calls):
                fill(dev, 0, 4, stream)

        def settle():
            sync(stream)
            sync(other)

        self.cleanup = lambda: (cudart.cudaFree(dev), cudart.cudaFreeHost(host),
                                cudart.cudaEventDestroy(event), cudart.cudaEventDestroy(recorded),
                                cudart.cudaStreamDestroy(stream), cudart.cudaStreamDestroy(other))
        self.ops = {
            "record event": (record_event, settle),
            "stream wait event": (stream_wait_event, settle),
            "synchronize stream": (synchronize_stream, None),
            "query event": (query_event, None),
            "memcpy async 4 B H2D": (memcpy_async, settle),
            "memset async 4 B": (memset_async, settle),
        }


# ---- interop (acl.cuda, issue #18) -------------------------------------------------

INTEROP_LIMIT_NS = 2000      # an acl.cuda handle conversion, from Python
FOREIGN_COPY_LIMIT = 1.10    # a copy from torch memory over the same copy from ACL memory
ACL_MEMCPY_DEVICE_TO_DEVICE = 3


class InteropConversions:
    """acl.cuda's handle conversions, one column; handles made in a batch are
    destroyed after it, untimed."""
    name = "acl.cuda"

    def __init__(self, torch, acl_column):
        import acl.cuda as cuda
        rt = acl.rt
        stream, event = acl_column.stream, acl_column.recorded
        side = torch.cuda.Stream()
        torch_event = torch.cuda.Event()
        torch_event.record(side)
        side.synchronize()
        made_streams, made_events = [], []
        native_stream, native_event = cuda.native_stream, cuda.native_event
        torch_stream, stream_from_torch = cuda.torch_stream, cuda.stream_from_torch
        event_from_torch, event_from_native = cuda.event_from_torch, cuda.event_from_native

        def release():
            for handle in made_streams:
                rt.destroy_stream(handle)
            for handle in made_events:
                rt.destroy_event(handle)
            del made_streams[:], made_events[:]

        def native_stream_op(calls):
            for _ in range(calls):
                native_stream(stream)

        def native_event_op(calls):
            for _ in range(calls):
                native_event(event)

        def torch_stream_op(calls):
            for _ in range(calls):
                torch_stream(stream)

        def stream_from_torch_op(calls):
            append = made_streams.append
            for _ in range(calls):
                append(stream_from_torch(side))

        def event_from_torch_op(calls):
            append = made_events.append
            for _ in range(calls):
                append(event_from_torch(torch_event))

        # event_from_torch's C call alone, on the same event: what the torch
        # property and the Python layer add is the difference.
        torch_native_event = torch_event.cuda_event

        def event_from_native_op(calls):
            append = made_events.append
            for _ in range(calls):
                append(event_from_native(torch_native_event))

        self.side, self.torch_event = side, torch_event  # the wrapped objects outlive their handles
        self.ops = {
            "native_stream": (native_stream_op, None),
            "native_event": (native_event_op, None),
            "torch_stream": (torch_stream_op, None),
            "stream_from_torch": (stream_from_torch_op, release),
            "event_from_native": (event_from_native_op, release),
            "event_from_torch": (event_from_torch_op, release),
        }


class CopyFrom:
    """acl.rt copies into ACL memory from a source of one allocator."""

    def __init__(self, name, sources, dst, stream):
        self.name = name
        rt = acl.rt
        copy_async, copy, sync = rt.memcpy_async, rt.memcpy, rt.synchronize_stream
        kind = ACL_MEMCPY_DEVICE_TO_DEVICE
        small, large = sources
        mib = 1 << 20
        checked("memcpy_async", copy_async(dst, 4, small, 4, kind, stream))
        checked("memcpy_async", copy_async(dst, mib, large, mib, kind, stream))
        checked("memcpy", copy(dst, mib, large, mib, kind))
        checked("synchronize_stream", sync(stream))

        def async_4(calls):
            for _ in range(calls):
                copy_async(dst, 4, small, 4, kind, stream)

        def async_1m(calls):
            for _ in range(calls):
                copy_async(dst, mib, large, mib, kind, stream)

        def sync_1m(calls):
            for _ in range(calls):
                copy(dst, mib, large, mib, kind)

        def settle():
            sync(stream)

        self.ops = {
            "memcpy async 4 B D2D": (async_4, settle),
            "memcpy async 1 MiB D2D": (async_1m, settle),
            "memcpy 1 MiB D2D": (sync_1m, None),
        }


def interop_section(torch, acl_column, calls, rounds):
    """The acl.cuda rows: conversions against INTEROP_LIMIT_NS, copies from torch
    memory against the same copies from ACL memory."""
    rt = acl.rt
    mib = 1 << 20
    dst = checked("malloc", rt.malloc(mib, ACL_MEM_MALLOC_HUGE_FIRST))[0]
    acl_small = checked("malloc", rt.malloc(4, ACL_MEM_MALLOC_HUGE_FIRST))[0]
    acl_large = checked("malloc", rt.malloc(mib, ACL_MEM_MALLOC_HUGE_FIRST))[0]
    torch_small = torch.zeros(1, dtype=torch.int32, device="cuda")
    torch_large = torch.zeros(mib, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    conversions = InteropConversions(torch, acl_column)
    columns = [CopyFrom("ACL memory", (acl_small, acl_large), dst, acl_column.stream),
               CopyFrom("torch memory", (torch_small.data_ptr(), torch_large.data_ptr()), dst,
                        acl_column.stream)]

    print("\nacl.cuda, ns per call (median [p10-p90] over %d rounds of %d calls)" % (rounds, calls))
    rows = []
    for op_name in conversions.ops:
        stats = measure([conversions], op_name, calls, rounds)[conversions.name]
        within = stats["median_ns"] < INTEROP_LIMIT_NS
        print("%-22s  %9.0f [%7.0f-%7.0f]  %s" % (op_name, stats["median_ns"], stats["p10_ns"], stats["p90_ns"],
                                                 "< 2 us" if within else "OVER 2 us"))
        rows.append({"name": op_name, "kind": "conversion", "stats": stats, "limit_ns": INTEROP_LIMIT_NS,
                     "within_limit": within})
    print("%-22s  %9s %17s  %9s %17s  %s" % ("copy into ACL memory", "from ACL", "", "from torch", "",
                                            "torch / ACL"))
    for op_name in columns[0].ops:
        stats = measure(columns, op_name, calls, rounds)
        own, foreign = stats["ACL memory"], stats["torch memory"]
        ratio = foreign["median_ns"] / own["median_ns"]
        print("%-22s  %9.0f [%7.0f-%7.0f]  %9.0f [%7.0f-%7.0f]  %.2f%s" % (
            op_name, own["median_ns"], own["p10_ns"], own["p90_ns"], foreign["median_ns"], foreign["p10_ns"],
            foreign["p90_ns"], ratio, "" if ratio <= FOREIGN_COPY_LIMIT else "  (over %.2f)" % FOREIGN_COPY_LIMIT))
        rows.append({"name": op_name, "kind": "copy", "acl_memory": own, "torch_memory": foreign,
                     "ratio": ratio, "limit": FOREIGN_COPY_LIMIT, "within_limit": ratio <= FOREIGN_COPY_LIMIT})
        sys.stdout.flush()
    for ptr in (dst, acl_small, acl_large):
        checked("free", rt.free(ptr))
    return rows


def import_cudart():
    """cuda-python's runtime bindings under their new name, else the old one."""
    try:
        from cuda.bindings import runtime
        return runtime, "cuda.bindings.runtime"
    except Exception:  # not installed, or unusable here: try the old name
        pass
    try:
        from cuda import cudart
        return cudart, "cuda.cudart"
    except Exception:
        return None, None


# ---- measuring ----------------------------------------------------------------

def time_batch(op, calls):
    run, settle = op
    start = time.perf_counter_ns()
    run(calls)
    elapsed = time.perf_counter_ns() - start
    if settle:
        settle()
    return elapsed / calls


def measure(columns, op_name, calls, rounds):
    """Interleaved rounds; the column order rotates by one each round."""
    present = [c for c in columns if op_name in c.ops]
    samples = {c.name: [] for c in present}
    for _ in range(WARMUP_BATCHES):
        for column in present:
            time_batch(column.ops[op_name], calls)
    for r in range(rounds):
        shift = r % len(present)
        for column in present[shift:] + present[:shift]:
            samples[column.name].append(time_batch(column.ops[op_name], calls))
    return {name: summarize(values) for name, values in samples.items()}


def distribution_version(*names):
    """The installed version of the first of these distributions found."""
    from importlib import metadata
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return "?"


def acl_backend():
    get_name = acl._lib.library.aclcudaGetBackendName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = []
    return get_name().decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="merge the results into this JSON file under \"python\"")
    parser.add_argument("--rounds", type=int, default=41, help="rounds per operation")
    parser.add_argument("--calls", type=int, default=500, help="calls per timed batch")
    args = parser.parse_args()

    acl_column = AclColumn()
    backend = acl_backend()
    rounds = args.rounds
    columns = [acl_column, CtypesColumn(acl_column)]
    notes = []
    versions = {"python": platform.python_version()}

    if backend == "cuda":
        try:
            import torch
        except ImportError:
            torch = None
            notes.append("torch is not installed")
        if torch is not None and not torch.cuda.is_available():
            notes.append("torch sees no GPU")
        elif torch is not None:
            try:
                columns.append(TorchColumn(torch))
                versions["torch"] = "%s (CUDA %s)" % (torch.__version__, torch.version.cuda)
            except Exception as exc:  # an optional column: say why and go on
                notes.append("torch unusable: %s" % exc)
        cudart, module = import_cudart()
        if cudart is None:
            notes.append("cuda-python is not installed")
        else:
            try:
                columns.append(CudaPythonColumn(cudart))
                versions["cuda-python"] = "%s %s" % (module, distribution_version(
                    "cuda-bindings", "cuda-python"))
            except Exception as exc:  # an optional column: say why and go on
                notes.append("cuda-python unusable: %s" % exc)
    else:
        notes.append("backend %s: only the acl and ctypes columns run" % backend)

    names = [c.name for c in columns]
    print("\nPython, ns per call (median [p10-p90] over %d interleaved rounds of %d calls); %s"
          % (rounds, args.calls, ", ".join("%s %s" % kv for kv in versions.items())))
    for note in notes:
        print("  (%s)" % note)
    header = "%-22s" % "operation" + "".join("  %9s [%-15s]" % (n, "p10-p90") for n in names)
    if len(names) > 1:
        header += "".join("  %11s" % ("acl/" + n) for n in names[1:])
    print(header)

    results = []
    for op_name in acl_column.ops:
        stats = measure(columns, op_name, args.calls, rounds)
        line = "%-22s" % op_name
        for name in names:
            s = stats.get(name)
            line += ("  %9.0f [%7.0f-%7.0f]" % (s["median_ns"], s["p10_ns"], s["p90_ns"]) if s
                     else "  %9s %17s" % ("-", ""))
        ratios = {}
        for name in names[1:]:
            if name in stats:
                ratios[name] = stats["acl"]["median_ns"] / stats[name]["median_ns"]
                line += "  %11.2f" % ratios[name]
        print(line)
        sys.stdout.flush()
        results.append({"name": op_name, "calls_per_batch": args.calls, "rounds": rounds,
                        "columns": stats, "acl_ratio": ratios})

    interop_rows, interop_note = [], None
    torch_column = next((c for c in columns if c.name == "torch"), None)
    if torch_column is None:
        interop_note = "acl.cuda section skipped: %s" % (
            "backend %s" % backend if backend != "cuda" else "torch is missing or unusable")
        print("\n(%s)" % interop_note)
    else:
        interop_rows = interop_section(torch_column.torch, acl_column, args.calls, rounds)

    for column in columns[1:]:
        if hasattr(column, "cleanup"):
            column.cleanup()
    acl_column.close()

    if args.json:
        document = {}
        if os.path.exists(args.json):
            with open(args.json) as f:
                document = json.load(f)
        document["python"] = {
            "tool": "bench_py",
            "backend": backend,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "versions": versions,
            "notes": notes,
            "acl_calls": {"record event": "acl.rt.record_event",
                          "stream wait event": "acl.rt.stream_wait_event",
                          "synchronize stream": "acl.rt.synchronize_stream",
                          "query event": "acl.rt.query_event_status",
                          "memcpy async 4 B H2D": "acl.rt.memcpy_async",
                          "memset async 4 B": "acl.rt.memset_async"},
            "per_call": results,
        }
        document["python_interop"] = {
            "tool": "bench_py",
            "backend": backend,
            "note": interop_note,
            "rows": interop_rows,
        }
        with open(args.json, "w") as f:
            json.dump(document, f, indent=2)
            f.write("\n")
        print("\nJSON: %s (key \"python\")" % args.json)


if __name__ == "__main__":
    main()
