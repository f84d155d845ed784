#!/usr/bin/env python3
"""The API table's generated files and checks.

src/api/api.def has one row per public function (see its head comment).
Without arguments this script writes, from the table:
  docs/api-coverage.md   every declared function and its status (implemented,
                         accepted with no effect, refused), with reasons
  tests/abi/exports.txt  the names libascendcl.so must export (sorted)
With --check it writes nothing and fails (exit 1) when:
  - either generated file differs from what the table gives;
  - a function declared in include/acl/**.h has no row, or more than one, or
    a row names the wrong header, or a row names no declared function;
  - docs/symbols-in-versions does not list exactly the table's names;
  - the Python package (python/acl/**.py) names a C function that is not in
    the table;
  - a note below is about a function that is not implemented;
  - a REFUSED function has no reason in REFUSALS, or a reason is about a
    function that is not REFUSED;
  - an ACCEPTED function has no reason in ACCEPTANCES, or one is about a
    function that is not ACCEPTED;
  - an IMPLEMENTED, ACCEPTED or REFUSED function is not defined in
    src/api/<its area>.c, or an UNSUPPORTED one is defined there.
libhccl (HCCL) has no table: its functions are read from include/hccl/*.h
and their definitions from src/hccl/*.c, where a refused function returns
HCCL_REFUSE(reason) and one not written yet HCCL_NOT_YET(reason); the script
also writes libhccl's section of the doc and tests/abi/hccl-exports.txt, and
--check fails when a declared HCCL function has no definition or the other
way round.
The test suite runs it with --check (tests/api-coverage.sh).
"""
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "src" / "api" / "api.def"
INCLUDE = ROOT / "include" / "acl"
# Headers of the table outside include/acl (CANN puts them there too).
EXTRA_INCLUDES = [ROOT / "include" / "base", ROOT / "include" / "mstx"]
DOC = ROOT / "docs" / "api-coverage.md"
EXPORTS = ROOT / "tests" / "abi" / "exports.txt"
VERSIONS = ROOT / "docs" / "symbols-in-versions"
PYTHON = ROOT / "python" / "acl"

# The order of the headers in the doc, and where each one lives under include/.
HEADERS = {
    "acl_base_rt": "acl/acl_base_rt.h",
    "acl_rt": "acl/acl_rt.h",
    "acl_rt_allocator": "acl/acl_rt_allocator.h",
    "acl_rt_memory_soma": "acl/acl_rt_memory_soma.h",
    "acl_platform": "acl/acl_platform.h",
    "acl_dvpp": "acl/ops/acl_dvpp.h",
    # ---- profiling, logging, dumps (issue 29) ----
    "acl_prof": "acl/acl_prof.h",
    "ms_tools_ext": "mstx/ms_tools_ext.h",
    "acl_log": "base/acl_log.h",
    "acl_dump": "acl/acl_dump.h",
    # ---- end of profiling, logging, dumps ----
    # ---- tensor data transfer (issue #30) ----
    "acl_tdt": "acl/acl_tdt.h",
    "acl_tdt_queue": "acl/acl_tdt_queue.h",
    "acl_cuda": "acl/acl_cuda.h",
}

# What a user should know about an implemented function beyond its docs.
NOTES = {
    "aclrtStreamWaitEventWithTimeout": "stream-ordered; on expiry the stream goes on and its next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT; 0 = never; not bounded inside a capture",
    "aclrtSetOpWaitTimeout": "bounds the aclrtStreamWaitEvent waits queued after it, as aclrtStreamWaitEventWithTimeout's",
    "aclrtQueryEventWaitStatus": "complete when the awaited record completed",
    "aclrtResetEvent": "takes effect at the call, not in stream order; resets aclrtCreateEvent's events too, as CANN's runtime does",
    "aclrtSetExceptionInfoCallback": "called with the first device fault a synchronize sees on each device (CUDA faults are sticky)",
    "aclrtExceptionInfoCallbackRegister": "called with the first device fault a synchronize sees on each device (CUDA faults are sticky)",
    "aclrtRepairError": "succeeds when there is no fault; a faulted CUDA context cannot be repaired (ACL_ERROR_RT_FEATURE_NOT_SUPPORT)",
    "aclrtGetErrorVerbose": "the first device fault seen; tryRepair is always 0",
    "aclrtGetFuncHandleFromExceptionInfo": "CUDA does not say which task faulted: no kernel is named (ACL_ERROR_INVALID_PARAM)",
    "aclrtGetArgsFromExceptionInfo": "CUDA does not say which task faulted: no kernel is named (ACL_ERROR_INVALID_PARAM)",
    "aclrtStreamAbort": "cuda: the stream moves to a fresh CUDA stream, and work queued before still runs on the old one; host: queued work is cancelled except host functions",
    "aclrtDeviceTaskAbort": "aborts every stream of the device as aclrtStreamAbort does; never waits, so the timeout only reaches the callbacks",
    "aclrtWaitAndResetNotify": "an expired wait lets the stream go on; its next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT",
    "aclrtCntNotifyWaitWithTimeout": "an expired wait lets the stream go on; its next synchronize returns ACL_ERROR_RT_TASK_TIMEOUT",
    "aclrtNotifyImportByKey": "same machine: the exporter's sharing broker checks the allow-list",
    "aclrtEventGetTimestamp": "microseconds of the host's CLOCK_MONOTONIC; cuda: from anchor events, so within microseconds",
    "aclrtGetDevicesTopo": "NVLink reads as ACL_RT_DEVS_TOPOLOGY_HCCS; PCIe paths as PIX, PHB or SYS",
    "aclrtDeviceSetLimit": "the SIMT stack and printf FIFO only; the SIMD and divergence-stack limits are refused",
    "aclrtSetStreamConfigOpt": "the workspace is accepted and unused (CUDA streams need none)",
    "aclrtSetStreamAttribute": "CACHE_OP_INFO turns aclrtCacheLastTaskOpInfo on; FAILURE_MODE, USER_CUSTOM_TAG and FLOAT_OVERFLOW_CHECK (0 only) are kept for aclrtGetStreamAttribute and change nothing (see accepted functions); PRIORITY is fixed at creation (refused)",
    "aclrtSetGroup": "one group, 0, holding the whole device",
    "aclrtGetGroupCount": "1: one group holding the whole device",
    "aclrtProfTrace": "an NVTX mark on cuda (Nsight Systems); nothing on host",
    "aclrtSnapShotProcessLock": "the calling process only; cuda: the driver's checkpoint API (CUDA 12.8 drivers on)",
    "aclrtSnapShotProcessBackup": "cuda: cuCheckpointProcessCheckpoint moves the device state to the host",
    "aclrtSnapShotProcessRestore": "cuda: cuCheckpointProcessRestore",
    "aclrtCheckArchCompatibility": "accepts the SoC name, sm_XY and compute_XY",
    "aclGetCannAttribute": "INF_NAN 1; BF16 1 when every device has compute capability 8.0 or more; JIT 0",
    "aclrtGetDeviceUtilizationRate": "every figure is -1 (not supported)",
    "aclrtGetDeviceCapability": "both Ascend scheduler features report ACL_DEV_FEATURE_NOT_SUPPORT",
    "aclrtBinaryLoadFromFile": "cubin, fatbin or PTX (cuda); an ELF shared object of host kernels (host)",
    "aclrtBinaryLoadFromData": "cubin, fatbin or PTX (cuda); an ELF shared object of host kernels (host)",
    "aclrtLaunchKernel": "device-memory arguments are read when the launch is queued: it waits for the stream",
    "aclrtLaunchKernelV2": "device-memory arguments are read when the launch is queued: it waits for the stream",
    "aclrtLaunchKernelWithConfig": "a non-zero BLOCKDIM_OFFSET is not supported; hints without a CUDA "
                                   "counterpart are accepted",
    "aclrtGetFunctionAddr": "the device code address as the AI Core one; the vector-core one is NULL",
    "aclrtGetFunctionSize": "0 on the cuda backend (the driver does not tell)",
    "aclrtGetFuncBySymbol": "cuda: kernels of a program linked with the shared CUDA runtime",
    "aclrtGetSymbolAddress": "cuda: variables of a program linked with the shared CUDA runtime",
    "aclrtReduceAsync": "SUM, MAX, MIN; ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not supported",
    "aclrtRandomNumAsync": "Philox4x32-10 numbers (cuRAND's), not Ascend's",
    "aclmdlRIBindStream": "a model with streams bound with ACL_MODEL_STREAM_FLAG_DEFAULT (or with labels) is put together from its streams' work when its build ends; what it recorded from then on cannot be updated (aclmdlRITaskSetParams, aclrtTaskUpdateAsync)",
    "aclmdlRIUnbindStream": "while the model is built too: the stream leaves it with what it recorded",
    "aclrtActiveStream": "a dependency of the model's graph: started from several places of one branch, a stream runs once, after all of them",
    "aclrtSwitchStream": "an IF node of the model's graph; refused (when the build ends) inside a branch or loop of labels that goes on after it",
    "aclrtSwitchLabelByIndex": "forward: a SWITCH node; back: a WHILE node. Refused when the build ends, naming label and task: jumps between streams, out of a branch, into a loop, several ways back to or out of one loop",
    "aclrtSetLabel": "a label is set once, on a stream bound to a model being built",
    "aclsysGetVersionNum": "acl-cuda's own version, major*1000000 + minor*10000 + patch*100",
    "aclsysGetVersionStr": "acl-cuda's own version for \"runtime\"/\"cann\"",
    "aclsysGetCANNVersion": "acl-cuda's own version for CANN and RUNTIME",
    "aclrtMemFlush": "validates; memory is coherent on both backends",
    "aclrtMemInvalidate": "validates; memory is coherent on both backends",
    "aclrtMemcpy": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclrtMemcpyAsync": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclrtMemcpy2d": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclrtMemcpy2dAsync": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclrtMemset": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclrtMemsetAsync": "cuda: device memory of any CUDA allocator of the process too (acl/acl_cuda.h)",
    "aclcudaStreamFromNative": "cuda only (the host backend has no native streams)",
    "aclcudaEventFromNative": "cuda only (the host backend has no native events)",
    "aclrtCmoAsync": "prefetch into L2 / migrates managed memory; the rest validates (coherent)",
    "aclrtDeviceL2CacheFlush": "validates; a GPU's L2 is the point of coherence",
    "aclrtGetMemUceInfo": "reports none: GPUs report ECC errors as failed work",
    "aclrtMemUceRepair": "refuses addresses never reported (there are none)",
    "aclrtMemGetAllocationGranularity": "the driver's granularity (CUDA's on GPUs)",
    "aclrtReserveMemAddressNoUCMemory": "as aclrtReserveMemAddress (every GPU access is cached)",
    "aclrtMemMapSelectedLink": "SIO/HCCS are Ascend's; maps as aclrtMapMem",
    "aclrtIpcMemImportPidInterServer": "one machine: the pid lists are added as local pids",
    "aclrtHostRegister": "ACL_HOST_REGISTER_MAPPED only (the others are reserved)",
    "aclrtHostRegisterV2": "MAPPED, PINNED and READONLY; IOMEMORY is reserved",
    "aclrtMemManagedGetAttr": "answers from the advice and prefetches acl-cuda recorded",
    "aclrtMemManagedGetAttrs": "answers from the advice and prefetches acl-cuda recorded",
    "aclrtMemPoolCreate": "device pools; handleType other than NONE is not supported",
    "aclrtAllocBuf": "the data area is page-locked host memory",
    "aclmdlRIExecuteAsync": "on a stream being captured: part of the capture's model on host; cuda refuses it (CUDA cannot capture a graph's launch)",
    "aclmdlRIAbort": "host: runs not begun are skipped and the running one stops between tasks; cuda: refused at run time, a launched CUDA graph always runs to its end",
    "aclmdlRIGetTasksByStream": "the tasks of the newest live captured or built model the stream took part in",
    "aclmdlRITaskGetParams": "a kernel's arguments are a host copy made at capture (isHostArgs 1); cfg is NULL (aclmdlRIKernelTaskGetAttribute)",
    "aclmdlRITaskSetParams": "kernel, value write and value wait tasks; device-memory arguments are read at the call; the scheduling mode cannot change",
    "aclmdlRITaskDisable": "event records and waits between captured streams are graph edges, not nodes: refused",
    "aclmdlRIKernelTaskGetAttribute": "timeouts, dump and profiling flags are given back as the launch gave them (CUDA has none)",
    "aclmdlRICondHandleCreate": "captured models only; cuda: CUDA conditional nodes, the word carried over by a one-thread kernel",
    "aclmdlRIAddCondTask": "IF (1 or 2 branches), WHILE, SWITCH; cuda: CUDA conditional nodes (CUDA 12.8 drivers on)",
    "aclrtBinarySetExceptionCallback": "CUDA does not say which kernel faulted: the callbacks of every binary of the faulting device are called",
    "aclrtTaskUpdateAsync": "reads its device memory at the call, after waiting for execStream; launches of the model queued afterwards see the update",
    "aclrtCacheLastTaskExtendInfo": "written to aclmdlRIDebugJsonPrint's file as text",
    # ---- profiling, logging, dumps (issue 29) ----
    "aclprofInit": "the directory is made if missing; the timeline, CSV summaries and SVG are written there (docs/profiling.md)",
    "aclprofStop": "writes timeline.json, api_summary.csv, task_summary.csv, stream_summary.csv and timeline.svg",
    "aclprofGetStepTimestamp": "a mark on the timeline, \"step N start/end\"",
    "aclprofRangePushEx": "a range named by the operator's ids and tensor count",
    "mstxRangeStartA": "the range is on the calling thread's track; stream is not used",
    "acllogRegisterCallback": "callbacks receive every record acl-cuda writes, as debug records; level ERROR when no level is set",
    "acldumpGetPath": "the exception dump path (ASCEND_DUMP_SCENE, ASCEND_DUMP_PATH) for AIC_ERR_*; NULL for data and overflow dumps",
    "acldumpSaveExceptionInfo": "device tensors with ACL_DUMP_ADDR_RAW are copied to the file after the text header",
    # ---- end of profiling, logging, dumps ----
}

# Why a REFUSED function has no meaning on acl-cuda: its message says so
# too. A function with a CUDA counterpart is implemented, never refused.
OVERFLOW = ("a GPU keeps no floating-point overflow status: its arithmetic is IEEE's, overflow gives inf or NaN in the results (ACL's INFNAN mode, the default); the stream switch (aclrtSetStreamOverflowSwitch, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK) can be set to 0 only and aclrtSetDeviceSatMode accepts INFNAN only, so a program that checks for the feature finds it absent")
DUMP = ("CANN's dumps record the tensors of its operators; acl-cuda runs no CANN operators (a kernel "
        "launched through it is the application's own code, with no tensor descriptions), so CUDA's "
        "tools (compute-sanitizer, Nsight Compute) take their place")
PROF_SUBSCRIBE = ("subscriptions deliver the operator records of offline models (aclmdlLoad*), which run "
                  "on Ascend's AI cores and which acl-cuda cannot load; aclprofStart's timeline "
                  "covers acl-cuda's streams and tasks (docs/profiling.md)")
REFUSALS = {
    "aclrtRegisterCpuFunc": "AI CPU operators are shared objects that the Ascend device's own CPU cores run; a GPU has none (binaries loaded with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE are refused as well): host code runs in stream order with aclrtLaunchHostFunc",
    "aclrtGetHardwareSyncAddr": "it is where the cube and vector units of an Ascend AI core synchronise; a GPU's multiprocessors have no such pair of units (a CUDA kernel synchronises its block with __syncthreads, and all blocks with a cooperative launch)",
    "aclmdlInitDump": DUMP,
    "aclmdlSetDump": DUMP,
    "aclmdlFinalizeDump": DUMP,
    "aclrtGetOverflowStatus": OVERFLOW,
    "aclrtResetOverflowStatus": OVERFLOW,
    "aclrtGetFloatOverflowStatus": OVERFLOW,
    "aclrtResetFloatOverflowStatus": OVERFLOW,
    "aclrtNpuGetFloatOverFlowStatus": OVERFLOW,
    "aclrtNpuClearFloatOverFlowStatus": OVERFLOW,
    "aclrtCtxGetFloatOverflowAddr": OVERFLOW,
    "aclrtStreamStop": "a CUDA device cannot stop a running kernel or hold a stream's queued work in place; aclrtStreamAbort moves a stream past its queued work",
    "aclrtNotifySetImportPidInterServer": "sharing with processes of other servers needs an Ascend super-node's inter-server links; aclrtNotifySetImportPid covers this machine",
    # ---- profiling, logging, dumps (issue 29) ----
    **{name: PROF_SUBSCRIBE for name in (
        "aclprofModelSubscribe", "aclprofModelUnSubscribe", "aclprofCreateSubscribeConfig",
        "aclprofDestroySubscribeConfig", "aclprofGetOpDescSize", "aclprofGetOpNum",
        "aclprofGetOpTypeLen", "aclprofGetOpType", "aclprofGetOpNameLen", "aclprofGetOpName",
        "aclprofGetOpStart", "aclprofGetOpEnd", "aclprofGetOpDuration", "aclprofGetModelId",
        "aclprofGetOpFlag", "aclprofGetOpAttriValue")},
    "aclopStartDumpArgs": DUMP,
    "aclopStopDumpArgs": DUMP,
    # ---- end of profiling, logging, dumps ----
}

# What an ACCEPTED function keeps, and why it changes nothing on a GPU or
# CPU: it checks its arguments and succeeds, and its getter (named here)
# gives back what was kept.
RES_LIMIT = ("every stream's kernels run on the whole device: nothing confines work to a share of "
             "its cores")
SYS_PARAM = ("kept per {} for {}; the options (deterministic computing, debug kernels, strong "
             "consistency, early kernel start) tune CANN's operators and Ascend's task scheduler, "
             "which acl-cuda does not run")
OP_TIMEOUT = ("kept, in steps of aclrtGetOpTimeOutInterval (254 at most), for "
              "aclrtGetOpExecuteTimeout; kernels are not timed out: neither backend can stop a "
              "running kernel (aclrtSynchronizeStreamWithTimeout bounds a wait for one)")
LINK = ("checked and kept with the {}, never read: SIO, HCCS and UB are Ascend's interconnects; "
        "the CUDA driver takes NVLink or PCIe as the devices are connected")
ACCEPTANCES = {
    "aclrtSetTsDevice": "checked, nothing kept: a GPU has one task scheduler for all its work, "
                        "with no AI Core and vector schedulers to choose between",
    "aclrtSetDeviceSatMode": "ACL_RT_OVERFLOW_MODE_INFNAN only, kept for aclrtGetDeviceSatMode: a "
                             "GPU's arithmetic always gives inf or NaN on overflow "
                             "(SATURATION is refused)",
    "aclrtSetSysParamOpt": SYS_PARAM.format("process", "aclrtGetSysParamOpt"),
    "aclrtCtxSetSysParamOpt": SYS_PARAM.format("context", "aclrtCtxGetSysParamOpt"),
    "aclrtSetDeviceResLimit": "kept per device, in multiprocessors, for aclrtGetDeviceResLimit; "
                              + RES_LIMIT,
    "aclrtResetDeviceResLimit": "clears what aclrtSetDeviceResLimit kept; " + RES_LIMIT,
    "aclrtSetStreamResLimit": "kept per stream, in multiprocessors, for aclrtGetStreamResLimit; "
                              + RES_LIMIT,
    "aclrtResetStreamResLimit": "clears what aclrtSetStreamResLimit kept; " + RES_LIMIT,
    "aclrtUseStreamResInCurrentThread": "the stream kept per thread, for aclrtGetResInCurrentThread; "
                                        + RES_LIMIT,
    "aclrtUnuseStreamResInCurrentThread": "clears what aclrtUseStreamResInCurrentThread kept; "
                                          + RES_LIMIT,
    "aclrtSetStreamFailureMode": "kept per stream for aclrtGetStreamAttribute; in either mode a "
                                 "stream goes on after a task that failed (a wait that timed out)",
    "aclrtSetStreamOverflowSwitch": "0 only, kept for aclrtGetStreamOverflowSwitch: a GPU keeps no "
                                    "overflow status to check (1 is refused)",
    "aclrtSetOpExecuteTimeOut": OP_TIMEOUT,
    "aclrtSetOpExecuteTimeOutV2": OP_TIMEOUT,
    "aclrtSetOpExecuteTimeOutWithMs": OP_TIMEOUT,
    "aclrtMemMapSetLink": LINK.format("physical memory handle"),
    "aclrtIpcMemSetAttr": LINK.format("key"),
    "aclrtAllocatorRegister": "kept per stream for aclrtAllocatorGetByStream; CANN calls a stream's "
                              "allocator for the workspace of single operators and dynamic-shape "
                              "models, which acl-cuda does not run",
    "aclrtAllocatorUnregister": "clears what aclrtAllocatorRegister kept; CANN calls a stream's "
                                "allocator for the workspace of single operators and dynamic-shape "
                                "models, which acl-cuda does not run",
    "aclprofSetConfig": "checked, nothing kept: the settings tune Ascend's collectors (system "
                        "sampling, storage limits, operator filters, their own output path); "
                        "aclprofInit's directory and aclprofStart's timeline need none of them",
    "aclrtCacheLastTaskOpInfo": "kept on the calling thread's last captured task, given back by "
                                "aclmdlRITaskGetParams; no profiler reads it: acl-cuda's timeline "
                                "records no operator information",
}

STATUSES = ("IMPLEMENTED", "ACCEPTED", "REFUSED", "UNSUPPORTED")
DEFINED_IN_AREA = ("IMPLEMENTED", "ACCEPTED", "REFUSED")
# The statuses of functions that succeed: callers may rely on them.
SUCCEEDS = ("IMPLEMENTED", "ACCEPTED")
ARGS = ("ARGS_NONE", "ARGS_PTR", "ARGS_HANDLE", "ARGS_HANDLE_PTR")
ROW = re.compile(r"^ACL_API\((\w+), (\w+), (\w+), (\w+), (\w+), ([^(),]+?), (\(.*\)), ([^(),]+)\)$")
DECL = re.compile(r"(?:ACL_FUNC_VISIBILITY|MSVP_PROF_API|ACL_DUMP_API|LOG_FUNC_VISIBILITY|MSTX_API)"
                  r"\s+[^;{}()]*?\b((?:acl|mstx)\w+)\s*\(")
# A C function name as the Python package spells it: acl, an optional prefix, a capital.
C_NAME = re.compile(r"acl(?:rt|sys|mdl|cuda|dvpp|op|prof|log|dump|tdt)?[A-Z]\w*")


class Row:
    def __init__(self, match, line_no):
        (self.name, self.header, self.area, self.status, self.args, self.ret, self.params,
         self.fail) = match.groups()
        self.line = line_no


def read_table(problems):
    rows = []
    for n, line in enumerate(TABLE.read_text().splitlines(), 1):
        if not line.startswith("ACL_API"):
            continue
        m = ROW.match(line)
        if not m:
            problems.append(f"api.def:{n}: not a row of the expected shape: {line[:80]}")
            continue
        row = Row(m, n)
        if row.status not in STATUSES:
            problems.append(f"api.def:{n}: {row.name}: status {row.status}")
        if row.args not in ARGS:
            problems.append(f"api.def:{n}: {row.name}: args {row.args}")
        if row.header not in HEADERS:
            problems.append(f"api.def:{n}: {row.name}: unknown header {row.header}")
        rows.append(row)
    return rows


def declared():
    """(name, header identifier) of every function the public headers declare."""
    found = []
    paths = sorted(INCLUDE.rglob("*.h"))
    for extra in EXTRA_INCLUDES:
        paths += sorted(extra.glob("*.h"))
    for path in paths:
        text = path.read_text()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        for m in DECL.finditer(text):
            found.append((m.group(1), path.stem))
    return found


def python_names():
    """Names of C functions the Python package uses: attribute accesses and
    string constants spelled like one, less the package's own definitions
    (its ctypes structures carry the C type names)."""
    used, defined = {}, set()
    for path in sorted(PYTHON.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
            elif isinstance(node, ast.Attribute) and C_NAME.fullmatch(node.attr):
                used.setdefault(node.attr, path.relative_to(ROOT))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and C_NAME.fullmatch(node.value):
                used.setdefault(node.value, path.relative_to(ROOT))
    return {name: where for name, where in used.items() if name not in defined}


def versions_listed():
    names = []
    for line in VERSIONS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            names.append(line.split()[0])
    return names


def render(rows):
    done = sum(1 for r in rows if r.status == "IMPLEMENTED")
    accepted = [r for r in rows if r.status == "ACCEPTED"]
    refused = [r for r in rows if r.status == "REFUSED"]
    lines = [
        "# API coverage",
        "",
        "Generated by `scripts/api-coverage.py` from the API table `src/api/api.def`;",
        "the test suite fails when this file is out of date. **implemented** functions follow",
        "ACL's documented behaviour on every backend; **accepted** ones check their arguments and",
        "succeed (a getter gives back what they keep), but what they set has no effect on a GPU",
        "or CPU (what each keeps and why is listed below); **refused** ones have no",
        "meaning on acl-cuda and always fail with `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` (207000) and",
        "a message saying why (the reasons are listed below); **not supported** ones exist so that",
        "programs link, and fail with `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` and a message naming the",
        "function in `aclGetRecentErrMsg`, until they are implemented.",
        "",
        f"{done} of {len(rows)} declared functions are implemented, {len(accepted)} accepted "
        f"with no effect, {len(refused)} refused.",
        "",
        "| header | declared | implemented | accepted | refused |",
        "|---|---|---|---|---|",
    ]
    for header, path in HEADERS.items():
        mine = [r for r in rows if r.header == header]
        if mine:
            counts = [sum(1 for r in mine if r.status == s)
                      for s in ("IMPLEMENTED", "ACCEPTED", "REFUSED")]
            lines.append(f"| `{path}` | {len(mine)} | " + " | ".join(map(str, counts)) + " |")
    lines.append("")
    if accepted:
        lines += ["## Accepted, with no effect here", "",
                  "They succeed and change nothing else; a program may call them as on CANN.", ""]
        for r in accepted:
            lines.append(f"- `{r.name}`: {ACCEPTANCES.get(r.name, '')}")
        lines.append("")
    if refused:
        lines += ["## Refused, and why", ""]
        for r in refused:
            lines.append(f"- `{r.name}`: {REFUSALS.get(r.name, '')}")
        lines.append("")
    for header, path in HEADERS.items():
        mine = [r for r in rows if r.header == header]
        if not mine:
            continue
        lines += [f"## `{path}`", "", "| function | status | notes |", "|---|---|---|"]
        for r in mine:
            status = {"IMPLEMENTED": "implemented", "ACCEPTED": "accepted",
                      "REFUSED": "refused"}.get(r.status, "not supported")
            note = {"REFUSED": REFUSALS, "ACCEPTED": ACCEPTANCES}.get(r.status, NOTES).get(r.name, '')
            lines.append(f"| `{r.name}` | {status} | {note} |")
        lines.append("")
    return "\n".join(lines)


def exports_text(rows):
    return "".join(name + "\n" for name in sorted(r.name for r in rows))


def check_consistency(rows, problems, notes):
    by_name = {}
    for r in rows:
        if r.name in by_name:
            problems.append(f"api.def:{r.line}: {r.name} has a second row (first at line {by_name[r.name].line})")
        by_name.setdefault(r.name, r)

    decls = declared()
    seen = {}
    for name, header in decls:
        if name in seen:
            problems.append(f"{name} is declared twice (in {seen[name]}.h and {header}.h)")
        seen.setdefault(name, header)
        row = by_name.get(name)
        if row is None:
            problems.append(f"{name} is declared in {header}.h but has no row in api.def")
        elif row.header != header:
            problems.append(f"api.def:{row.line}: {name} is declared in {header}.h, the row says {row.header}")
    for r in rows:
        if r.name not in seen:
            problems.append(f"api.def:{r.line}: {r.name} is declared in no public header")

    listed = versions_listed()
    dupes = sorted({n for n in listed if listed.count(n) > 1})
    if dupes:
        problems.append(f"docs/symbols-in-versions lists twice: {dupes}")
    if set(listed) - set(by_name):
        problems.append(f"docs/symbols-in-versions lists names with no row: {sorted(set(listed) - set(by_name))}")
    if set(by_name) - set(listed):
        problems.append("docs/symbols-in-versions lacks (give each the version that will first ship it): "
                        f"{sorted(set(by_name) - set(listed))}")

    not_implemented = []
    for name, where in sorted(python_names().items()):
        row = by_name.get(name)
        if row is None:
            problems.append(f"{where} names {name}, which is not in api.def")
        elif row.status not in SUCCEEDS:
            not_implemented.append(name)
    if not_implemented:
        notes.append(f"the Python package also wraps {len(not_implemented)} functions not implemented "
                     f"(refused or not supported; they return 207000 there too): "
                     f"{', '.join(not_implemented)}")

    defined = api_definitions()
    for row in rows:
        where = defined.get(row.name)
        if row.status in DEFINED_IN_AREA and where != row.area:
            problems.append(f"{row.name} is {row.status.lower()} in area {row.area!r} but defined in "
                            f"{'src/api/' + where + '.c' if where else 'no src/api file'}")
        elif row.status not in DEFINED_IN_AREA and where:
            problems.append(f"{row.name} is defined in src/api/{where}.c but its row says {row.status}")
        if row.status == "REFUSED" and not REFUSALS.get(row.name):
            problems.append(f"{row.name} is REFUSED without a reason in REFUSALS")
        if row.status == "ACCEPTED" and not ACCEPTANCES.get(row.name):
            problems.append(f"{row.name} is ACCEPTED without a reason in ACCEPTANCES")

    for name in NOTES:
        if by_name.get(name) is None or by_name[name].status != "IMPLEMENTED":
            problems.append(f"a note in scripts/api-coverage.py is about {name}, which is not implemented")
    for name in REFUSALS:
        if by_name.get(name) is None or by_name[name].status != "REFUSED":
            problems.append(f"a reason in REFUSALS is about {name}, which is not REFUSED")
    for name in ACCEPTANCES:
        if by_name.get(name) is None or by_name[name].status != "ACCEPTED":
            problems.append(f"a reason in ACCEPTANCES is about {name}, which is not ACCEPTED")


def api_definitions():
    """{function: area} for every public function defined in src/api/<area>.c."""
    found = {}
    for path in sorted((ROOT / "src" / "api").glob("*.c")):
        text = re.sub(r"\s+", " ", path.read_text())
        for m in re.finditer(r"ACL_EXPORT [\w\s\*]+?\b((?:acl|mstx)\w+)\s*\(", text):
            found[m.group(1)] = path.stem
    return found


# ---- libhccl ------------------------------------------------------------------

HCCL_HEADERS = {"hccl": "hccl/hccl.h", "hccl_comm": "hccl/hccl_comm.h",
                "hccl_types": "hccl/hccl_types.h"}
HCCL_EXPORTS = ROOT / "tests" / "abi" / "hccl-exports.txt"
HCCL_DECL = re.compile(r"\bextern\s+[^;{}()]*?\b(Hccl\w+)\s*\(")
HCCL_DEF = re.compile(r"HCCL_EXPORT\s+[\w\s\*]+?\b(Hccl\w+)\s*\(")
HCCL_REASON = re.compile(r"HCCL_(REFUSE|NOT_YET)\(((?:\s*\"(?:[^\"\\]|\\.)*\")+|\s*\w+)\s*\)")
HCCL_NOTES = {
    "HcclCommInitRootInfo": "one rank per device: the rank runs on the ACL device current at the call",
    "HcclCommInitRootInfoConfig": "honoured: hcclCommName, hcclExecTimeOut, hcclOpExpansionMode 0 or 1 (2, AI CPU, and 3, AIV, are refused); the other settings are accepted and not applied (docs/backends.md)",
    "HcclCommInitClusterInfo": "rank tables 1.0 (flat or grouped) and 1.2; the rank's device_id must be the current ACL device; rank 0 serves the root info on HCCL_IF_BASE_PORT (docs/porting.md)",
    "HcclCommInitClusterInfoConfig": "as HcclCommInitClusterInfo, with HcclCommInitRootInfoConfig's settings",
    "HcclCommInitAll": "one communicator per listed device, in this process",
    "HcclCreateSubCommConfig": "made by the sub-communicator's ranks alone, its rank 0 handing the others what they join with over the parent (NCCL send/receive, Gloo point-to-point); a rank outside need not call (rankIds NULL and subCommId 0xFFFFFFFF return at once); on the parent's device; a sub-communicator is split no further (HCCL_E_NOT_SUPPORT, as CANN)",
    "HcclSetConfig": "HCCL_DETERMINISTIC (0, 1, 2) is recorded and read back; NCCL's and Gloo's reduction order is their own",
    "HcclGetCommName": "hccl_world_group for rank tables, hccl_root_<id> for root info, or the config's name",
    "HcclCommGetHandleWithName": "prefers the communicator on the current device when several share the name",
    "HcclCommGetStatus": "HCCL_COMM_STATUS_READY for a live communicator's name (none is ever suspended)",
    "HcclCommRegCommStateCallback": "called with DESTROY_PRE and DESTROY_POST around every HcclCommDestroy",
    "HcclConfigGetInfo": "HCCL_OP_EXPANSION_MODE_HOST: the host issues every collective into its stream",
    "HcclGetCommConfigCapability": "HCCL_COMM_CONFIG_RESERVED: every setting of the header is read",
    "HcclGroupStart": "per thread, nesting",
    "HcclGroupEnd": "HCCL_E_PARA without a matching HcclGroupStart on the thread",
}


def c_string(text, macros):
    """The value of a C string literal sequence, or of a macro naming one."""
    text = text.strip()
    if not text.startswith('"'):
        text = macros.get(text, "")
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def hccl_functions(problems):
    """[(name, header, status, reason)] for every HCCL function declared."""
    declared = []
    for stem, rel in HCCL_HEADERS.items():
        text = (ROOT / "include" / rel).read_text()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        declared += [(m.group(1), stem) for m in HCCL_DECL.finditer(text)]
    defined = {}
    for path in sorted((ROOT / "src" / "hccl").glob("*.c")):
        text = path.read_text()
        macros = {m.group(1): m.group(2) for m in
                  re.finditer(r"#define\s+(\w+)\s+\\?\s*((?:\"(?:[^\"\\]|\\.)*\"\s*\\?\s*)+)", text)}
        for m in HCCL_DEF.finditer(text):
            start = text.index("{", m.end())
            depth, end = 0, start
            for end in range(start, len(text)):
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                if depth == 0:
                    break
            body = text[start:end]
            reason = HCCL_REASON.search(body)
            if reason:
                status = "refused" if reason.group(1) == "REFUSE" else "not supported yet"
                defined[m.group(1)] = (status, c_string(reason.group(2), macros))
            else:
                defined[m.group(1)] = ("implemented", "")
    rows = []
    for name, header in declared:
        if name not in defined:
            problems.append(f"{name} is declared in include/hccl/{header}.h but defined in no src/hccl file")
            continue
        rows.append((name, header) + defined[name])
    for name in sorted(set(defined) - {n for n, _ in declared}):
        problems.append(f"src/hccl defines {name}, which include/hccl declares nowhere")
    for name in HCCL_NOTES:
        if name not in defined or defined[name][0] != "implemented":
            problems.append(f"an HCCL note in scripts/api-coverage.py is about {name}, which is not implemented")
    return rows


def render_hccl(rows):
    count = {s: sum(1 for r in rows if r[2] == s) for s in ("implemented", "refused", "not supported yet")}
    lines = [
        "# HCCL (`libhccl`)",
        "",
        "Read by `scripts/api-coverage.py` from `include/hccl/*.h` and `src/hccl/*.c`. libhccl runs",
        "CANN's collectives on NCCL (cuda backend) and Gloo (host backend); see docs/porting.md,",
        "\"Multi-device and multi-machine\". Every collective checks its arguments in CANN's order: a",
        "zero count succeeds before any other check, then NULL pointers (`HCCL_E_PTR`, the stream",
        "included), the communicator (`HCCL_E_PARA` for one that is not live), counts and ranks",
        "(`HCCL_E_PARA`), data types and reduce ops (`HCCL_E_NOT_SUPPORT`, as CANN). **refused**",
        "functions have no meaning on acl-cuda and return `HCCL_E_NOT_SUPPORT` with the reason below;",
        "**not supported yet** ones return it too, until they are written.",
        "",
        f"{count['implemented']} of {len(rows)} declared functions are implemented, "
        f"{count['refused']} refused, {count['not supported yet']} not supported yet.",
        "",
        "| header | declared | implemented | refused | not supported yet |",
        "|---|---|---|---|---|",
    ]
    for stem, rel in HCCL_HEADERS.items():
        mine = [r for r in rows if r[1] == stem]
        if mine:
            lines.append(f"| `{rel}` | {len(mine)} | " + " | ".join(
                str(sum(1 for r in mine if r[2] == s)) for s in ("implemented", "refused", "not supported yet")) + " |")
    lines.append("")
    for stem, rel in HCCL_HEADERS.items():
        mine = [r for r in rows if r[1] == stem]
        if not mine:
            continue
        lines += [f"## `{rel}`", "", "| function | status | notes |", "|---|---|---|"]
        for name, _, status, reason in mine:
            lines.append(f"| `{name}` | {status} | {reason or HCCL_NOTES.get(name, '')} |")
        lines.append("")
    return "\n".join(lines)


def main():
    problems, notes = [], []
    rows = read_table(problems)
    check_consistency(rows, problems, notes)
    hccl = hccl_functions(problems)
    generated = {DOC: render(rows) + "\n" + render_hccl(hccl),
                 EXPORTS: exports_text(rows),
                 HCCL_EXPORTS: "".join(n + "\n" for n in sorted((r[0] for r in hccl), key=lambda n: n.encode()))}
    if "--check" in sys.argv:
        for path, text in generated.items():
            if not path.exists() or path.read_text() != text:
                problems.append(f"{path.relative_to(ROOT)} is out of date: run scripts/api-coverage.py")
        for note in notes:
            print("note:", note)
        for p in problems:
            print("FAIL:", p)
        print(f"{0 if problems else 1} passed, {1 if problems else 0} failed")
        return 1 if problems else 0
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    for path, text in generated.items():
        path.write_text(text)
    count = {s: sum(1 for r in rows if r.status == s) for s in STATUSES}
    print(f"wrote {DOC.relative_to(ROOT)}, {EXPORTS.relative_to(ROOT)} and {HCCL_EXPORTS.relative_to(ROOT)}: "
          f"{len(rows)} functions, {count['ACCEPTED']} accepted, {count['REFUSED']} refused, "
          f"{count['UNSUPPORTED']} not supported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
