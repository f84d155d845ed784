/* The collective engine of the cuda backend: NCCL. Every collective is an
 * NCCL call; this file only translates HCCL's ops, types and codes, and
 * keeps NCCL from hanging a caller.
 *
 * NCCL is loaded at run time, never linked: dlopen("libnccl.so.2"), or the
 * library the environment variable HCCL_NCCL_LIBRARY names (a path or a
 * soname), so that libhccl loads, and the host backend runs, where NCCL is
 * not installed. Without it every entry point answers HCCL_E_NOT_SUPPORT
 * with the loader's reason. nccl.h gives the types only; like the rest of
 * libhccl this file is a client of libascendcl's public API and links no
 * CUDA runtime.
 *
 * Ops are queued on the CUDA stream behind the ACL stream
 * (aclcudaGetNativeStream), so ACL events, callbacks, synchronisation and
 * aclmdlRI capture (on cuda, CUDA stream capture of that stream) order and
 * record them like any ACL task. Asking for the native stream marks the ACL
 * stream exported (core/stream.c stream_native, backend/cuda/stream.c
 * cuda_stream_native): its idle-stream shortcut no longer answers
 * aclrtSynchronizeStream and aclrtStreamQuery from ACL's own count of
 * submissions but asks CUDA, which sees NCCL's kernels, and the CUDA stream
 * is never recycled into ACL's pool while NCCL may still use it.
 *
 * Communicators are non-blocking (ncclConfig_t.blocking = 0): every NCCL
 * call returns at once, possibly ncclInProgress, and the engine polls
 * ncclCommGetAsyncError against a deadline (HCCL_CONNECT_TIMEOUT for
 * joining, HCCL_EXEC_TIMEOUT for the rest). A rank that never comes, or a
 * peer that never answers while NCCL connects, costs a timeout and an
 * ncclCommAbort, never a hang of the caller. An op is polled until NCCL has
 * queued it on the stream, so work the caller queues afterwards is ordered
 * after it. A collective already running on the GPU whose peer never comes
 * waits there, as with NCCL itself (NCCL times no kernel out); destroying
 * the communicator aborts it after HCCL_EXEC_TIMEOUT. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* nccl.h declares ncclGroupStart() and friends without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "acl/acl.h"
#include "acl/acl_cuda.h"
#include "hccl/engine.h"

_Static_assert(sizeof(ncclUniqueId) <= HCCL_ENGINE_ROOT_BYTES,
               "NCCL's unique id must fit in the engine's part of HcclRootInfo");

/* CANN's defaults for HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT, for a
 * timeout the caller left unset. */
#define DEFAULT_CONNECT_TIMEOUT_S 120.0
#define DEFAULT_EXEC_TIMEOUT_S 1836.0

/* What a barrier all-reduces: zeroed once, so it stays zero. */
#define BARRIER_BYTES 32

/* The NCCL this engine needs: non-blocking communicators, ncclCommFinalize
 * and ncclCommInitRankConfig came with 2.14; fp8 with 2.24. */
#define NCCL_OLDEST NCCL_VERSION(2, 14, 0)
#define NCCL_FP8 NCCL_VERSION(2, 24, 0)

/* ---- loading ------------------------------------------------------------------------------ */

#define NCCL_ENTRY_POINTS(X)                                                                       \
    X(ncclGetVersion)                                                                              \
    X(ncclGetUniqueId)                                                                             \
    X(ncclCommInitRankConfig)                                                                      \
    X(ncclCommInitAll)                                                                             \
    X(ncclCommFinalize)                                                                            \
    X(ncclCommDestroy)                                                                             \
    X(ncclCommAbort)                                                                               \
    X(ncclCommGetAsyncError)                                                                       \
    X(ncclCommCuDevice)                                                                            \
    X(ncclGetErrorString)                                                                          \
    X(ncclGetLastError)                                                                            \
    X(ncclAllReduce)                                                                               \
    X(ncclBroadcast)                                                                               \
    X(ncclReduce)                                                                                  \
    X(ncclAllGather)                                                                               \
    X(ncclReduceScatter)                                                                           \
    X(ncclSend)                                                                                    \
    X(ncclRecv)

static struct {
#define NCCL_MEMBER(name) __typeof__(name) *name;
    NCCL_ENTRY_POINTS(NCCL_MEMBER)
#undef NCCL_MEMBER
    ncclResult_t (*ncclGroupStart)(void);
    ncclResult_t (*ncclGroupEnd)(void);
} nccl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static int nccl_version; /* NCCL_VERSION_CODE of the library loaded */
static char load_failure[512];

static bool resolve(void *lib, const char *name, void **slot)
{
    *slot = dlsym(lib, name);
    if (*slot)
        return true;
    snprintf(load_failure, sizeof load_failure,
             "the NCCL library lacks %s (NCCL %d.%d or newer needed)", name, NCCL_OLDEST / 10000,
             NCCL_OLDEST / 100 % 100);
    return false;
}

static void load(void)
{
    const char *name = getenv("HCCL_NCCL_LIBRARY");
    if (!name || !*name)
        name = "libnccl.so.2";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_failure, sizeof load_failure,
                 "NCCL could not be loaded from %s (%s): install NCCL 2 or name it in "
                 "HCCL_NCCL_LIBRARY",
                 name, why ? why : "unknown reason");
        return;
    }
    bool found = true;
#define NCCL_RESOLVE(fn) found = found && resolve(lib, #fn, (void **)&nccl.fn);
    NCCL_ENTRY_POINTS(NCCL_RESOLVE)
    NCCL_RESOLVE(ncclGroupStart)
    NCCL_RESOLVE(ncclGroupEnd)
#undef NCCL_RESOLVE
    if (found && nccl.ncclGetVersion(&nccl_version) != ncclSuccess) {
        snprintf(load_failure, sizeof load_failure, "%s does not tell its version", name);
        found = false;
    }
    if (found && nccl_version < NCCL_OLDEST) {
        snprintf(load_failure, sizeof load_failure,
                 "%s is NCCL %d.%d.%d; libhccl needs %d.%d or newer", name, nccl_version / 10000,
                 nccl_version / 100 % 100, nccl_version % 100, NCCL_OLDEST / 10000,
                 NCCL_OLDEST / 100 % 100);
        found = false;
    }
    if (!found) {
        dlclose(lib); /* nothing of it ran but ncclGetVersion */
        return;
    }
    loaded = true;
}

/* HCCL_SUCCESS once NCCL is loaded; else the reason, recorded. */
static HcclResult nccl_require(void)
{
    pthread_once(&load_once, load);
    if (loaded)
        return HCCL_SUCCESS;
    hccl_set_error("%s", load_failure);
    return HCCL_E_NOT_SUPPORT;
}

/* ---- results ------------------------------------------------------------------------------ */

/* Records what failed with NCCL's own words and gives its HCCL code; the one
 * place NCCL results become HCCL codes. */
static HcclResult nccl_failure(ncclResult_t rc, const char *what)
{
    HcclResult code;
    switch (rc) {
    case ncclSuccess:
        return HCCL_SUCCESS;
    case ncclUnhandledCudaError:
        code = HCCL_E_RUNTIME;
        break;
    case ncclSystemError:
        code = HCCL_E_SYSCALL;
        break;
    case ncclInvalidArgument:
    case ncclInvalidUsage:
        code = HCCL_E_PARA;
        break;
    case ncclRemoteError:
        code = HCCL_E_REMOTE;
        break;
    case ncclInProgress:
        code = HCCL_E_AGAIN;
        break;
    case ncclInternalError:
    default:
        code = HCCL_E_INTERNAL;
        break;
    }
    /* ncclGetLastError ignores its argument: the message is the thread's. */
    const char *detail = nccl.ncclGetLastError(NULL);
    hccl_set_error("%s: NCCL error %d (%s)%s%s", what, (int)rc, nccl.ncclGetErrorString(rc),
                   detail && *detail ? ": " : "", detail && *detail ? detail : "");
    return code;
}

/* ---- waiting ------------------------------------------------------------------------------ */

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) * 1e-9;
}

static double timeout_or(double timeout_s, double fallback)
{
    return isfinite(timeout_s) && timeout_s > 0 ? timeout_s : fallback;
}

/* Polls a non-blocking communicator until its last call is done (NCCL's
 * documented protocol: ncclCommGetAsyncError stays ncclInProgress until
 * then). Gives the communicator's state; ncclInProgress with *expired set
 * when timeout_s passed first. Yields at first (queuing an op takes tens of
 * microseconds), then sleeps up to a millisecond at a time. */
static ncclResult_t settle(ncclComm_t comm, double timeout_s, bool *expired)
{
    struct timespec start, pause = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &start);
    *expired = false;
    for (unsigned round = 0;; round++) {
        ncclResult_t state;
        ncclResult_t rc = nccl.ncclCommGetAsyncError(comm, &state);
        if (rc != ncclSuccess)
            return rc;
        if (state != ncclInProgress)
            return state;
        if (seconds_since(&start) > timeout_s) {
            *expired = true;
            return ncclInProgress;
        }
        if (round < 64) {
            sched_yield();
            continue;
        }
        pause.tv_nsec = pause.tv_nsec ? pause.tv_nsec * 2 : 20000;
        if (pause.tv_nsec > 1000000)
            pause.tv_nsec = 1000000;
        nanosleep(&pause, NULL);
    }
}

/* ---- communicators ------------------------------------------------------------------------ */

struct hccl_engine_comm {
    /* NULL once aborted. The lock orders a swap to NULL against
     * async_error, which a watchdog thread may call at any time. */
    ncclComm_t nccl;
    pthread_mutex_t lock;
    _Atomic int broken; /* the HcclResult later ops fail with once aborted */
    uint32_t nranks;
    uint32_t rank;
    int32_t device;      /* ACL device id */
    int32_t cuda_device; /* its CUDA ordinal */
    bool device_held;    /* an aclrtSetDevice of ours, reset at destroy */
    void *barrier;       /* BARRIER_BYTES of device memory (aclrtMalloc) */
    double exec_timeout_s;
};

static hccl_engine_comm *comm_new(uint32_t nranks, uint32_t rank, int32_t device,
                                  double exec_timeout_s)
{
    hccl_engine_comm *c = calloc(1, sizeof *c);
    if (!c) {
        hccl_set_error("out of memory for a communicator");
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    atomic_init(&c->broken, HCCL_SUCCESS);
    c->nranks = nranks;
    c->rank = rank;
    c->device = device;
    c->exec_timeout_s = timeout_or(exec_timeout_s, DEFAULT_EXEC_TIMEOUT_S);
    return c;
}

/* Takes the NCCL communicator away from c and aborts it (ncclCommAbort
 * stops its kernels and joins its threads); later ops fail with why. */
static void comm_abort(hccl_engine_comm *c, HcclResult why)
{
    pthread_mutex_lock(&c->lock);
    ncclComm_t n = c->nccl;
    c->nccl = NULL;
    pthread_mutex_unlock(&c->lock);
    atomic_store(&c->broken, why);
    if (n)
        (void)nccl.ncclCommAbort(n);
}

static void comm_free(hccl_engine_comm *c)
{
    if (c->barrier)
        (void)aclrtFree(c->barrier);
    if (c->device_held)
        (void)aclrtResetDevice(c->device);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Holds the communicator's device (aclrtSetDevice) and allocates its barrier
 * buffer there. The hold keeps the buffer's memory alive, and not reused,
 * until the communicator is destroyed, even if the program resets the
 * device first. It also leaves the device current for CUDA on this thread
 * (binding a context makes its device current: src/core/current.c), as
 * NCCL's init needs; *previous gets the context the caller puts back with
 * context_restore (NULL when the thread had none). */
static HcclResult comm_attach(hccl_engine_comm *c, aclrtContext *previous)
{
    if (aclrtGetCurrentContext(previous) != ACL_SUCCESS)
        *previous = NULL;
    if (aclcudaGetNativeDevice(c->device, &c->cuda_device) != ACL_SUCCESS) {
        hccl_set_error("device %d is not a device of this process: %s", (int)c->device,
                       aclGetRecentErrMsg());
        return HCCL_E_PARA;
    }
    if (aclrtSetDevice(c->device) != ACL_SUCCESS) {
        hccl_set_error("setting device %d failed: %s", (int)c->device, aclGetRecentErrMsg());
        return HCCL_E_RUNTIME;
    }
    c->device_held = true;
    if (aclrtMalloc(&c->barrier, BARRIER_BYTES, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) {
        c->barrier = NULL;
        hccl_set_error("no device memory for the barrier on device %d: %s", (int)c->device,
                       aclGetRecentErrMsg());
        return HCCL_E_MEMORY;
    }
    if (aclrtMemset(c->barrier, BARRIER_BYTES, 0, BARRIER_BYTES) != ACL_SUCCESS) {
        hccl_set_error("clearing the barrier buffer on device %d failed: %s", (int)c->device,
                       aclGetRecentErrMsg());
        return HCCL_E_RUNTIME;
    }
    return HCCL_SUCCESS;
}

/* Puts back the thread's context (and, for CUDA, its device). */
static void context_restore(aclrtContext previous)
{
    if (previous)
        (void)aclrtSetCurrentContext(previous);
}

static HcclResult nccl_root_info(unsigned char *out)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    ncclUniqueId id;
    ncclResult_t n = nccl.ncclGetUniqueId(&id);
    if (n != ncclSuccess)
        return nccl_failure(n, "ncclGetUniqueId");
    memset(out, 0, HCCL_ENGINE_ROOT_BYTES);
    memcpy(out, &id, sizeof id);
    return HCCL_SUCCESS;
}

/* NCCL takes the device current on the calling thread as the rank's; a
 * communicator on another one would fail later and obscurely. */
static HcclResult check_cuda_device(hccl_engine_comm *c)
{
    int dev = -1;
    ncclResult_t n = nccl.ncclCommCuDevice(c->nccl, &dev);
    if (n != ncclSuccess)
        return nccl_failure(n, "ncclCommCuDevice");
    if (dev == c->cuda_device)
        return HCCL_SUCCESS;
    hccl_set_error("NCCL placed rank %u on CUDA device %d, not on device %d (CUDA device %d) "
                   "that is current in ACL",
                   c->rank, dev, (int)c->device, (int)c->cuda_device);
    return HCCL_E_INTERNAL;
}

/* A non-blocking communicator's init: NCCL answers at once and joins the
 * ranks in the background; settle() waits for it. */
static ncclResult_t init_rank(hccl_engine_comm *c, const ncclUniqueId *id)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    return nccl.ncclCommInitRankConfig(&c->nccl, (int)c->nranks, *id, (int)c->rank, &config);
}

/* Waits for a communicator's init; on a failure or past timeout_s, aborts
 * it (NCCL's abort also stops an init waiting for ranks) and says why. */
static HcclResult init_settle(hccl_engine_comm *c, ncclResult_t started, double timeout_s)
{
    bool expired = false;
    ncclResult_t n = started;
    if (c->nccl && (n == ncclSuccess || n == ncclInProgress))
        n = settle(c->nccl, timeout_s, &expired);
    HcclResult rc = HCCL_SUCCESS;
    if (expired) {
        rc = HCCL_E_TIMEOUT;
        hccl_set_error("rank %u of %u: not every rank joined within %.0f s (HCCL_CONNECT_TIMEOUT)",
                       c->rank, c->nranks, timeout_s);
    } else if (n != ncclSuccess || !c->nccl) {
        rc = nccl_failure(n != ncclSuccess ? n : ncclInternalError, "ncclCommInitRankConfig");
    } else {
        rc = check_cuda_device(c);
    }
    if (rc)
        comm_abort(c, rc);
    return rc;
}

static HcclResult nccl_comm_init(const hccl_join *join, hccl_engine_comm **out)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    if (join->nranks == 0 || join->nranks > INT32_MAX || join->rank >= join->nranks) {
        hccl_set_error("rank %u of %u ranks is not a rank NCCL can have", join->rank, join->nranks);
        return HCCL_E_PARA;
    }
    hccl_engine_comm *c = comm_new(join->nranks, join->rank, join->device, join->exec_timeout_s);
    if (!c)
        return HCCL_E_MEMORY;
    aclrtContext previous;
    rc = comm_attach(c, &previous);
    ncclResult_t started = ncclSuccess;
    if (!rc) {
        ncclUniqueId id;
        memcpy(&id, join->root_bytes, sizeof id);
        started = init_rank(c, &id);
    }
    context_restore(previous);
    if (!rc)
        rc =
            init_settle(c, started, timeout_or(join->connect_timeout_s, DEFAULT_CONNECT_TIMEOUT_S));
    if (rc) {
        comm_free(c);
        return rc;
    }
    *out = c;
    return HCCL_SUCCESS;
}

/* HcclCommInitAll has no timeouts of its own: HCCL's variables as the
 * environment gives them, else CANN's defaults. */
static double timeout_from_environment(const char *name, double fallback)
{
    const char *text = getenv(name);
    char *end = NULL;
    double s = text ? strtod(text, &end) : 0;
    return end && end != text && *end == '\0' ? timeout_or(s, fallback) : fallback;
}

/* One communicator per device, joined as NCCL's ncclCommInitAll joins them
 * (one unique id, one rank per device, each init with its device current,
 * in one group) but non-blocking like every communicator of this engine:
 * a blocking one could hang an op forever, and NCCL refuses groups that mix
 * the two kinds. */
static HcclResult nccl_comm_init_all(uint32_t ndev, const int32_t *devices,
                                     hccl_engine_comm **comms)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    if (ndev == 0 || ndev > INT32_MAX) {
        hccl_set_error("%u devices is not a count NCCL can take", ndev);
        return HCCL_E_PARA;
    }
    hccl_engine_comm **made = calloc(ndev, sizeof *made);
    if (!made) {
        hccl_set_error("out of memory for %u communicators", ndev);
        return HCCL_E_MEMORY;
    }
    ncclUniqueId id;
    ncclResult_t n = nccl.ncclGetUniqueId(&id);
    if (n != ncclSuccess) {
        free(made);
        return nccl_failure(n, "ncclGetUniqueId");
    }
    if ((n = nccl.ncclGroupStart()) != ncclSuccess) {
        free(made);
        return nccl_failure(n, "ncclGroupStart");
    }
    double exec_timeout_s = timeout_from_environment("HCCL_EXEC_TIMEOUT", DEFAULT_EXEC_TIMEOUT_S);
    aclrtContext previous = NULL;
    for (uint32_t i = 0; i < ndev && !rc && (n == ncclSuccess || n == ncclInProgress); i++) {
        aclrtContext before;
        if (!(made[i] = comm_new(ndev, i, devices[i], exec_timeout_s))) {
            rc = HCCL_E_MEMORY;
            break;
        }
        rc = comm_attach(made[i], &before);
        if (i == 0)
            previous = before;
        if (!rc)
            n = init_rank(made[i], &id);
    }
    ncclResult_t ended = nccl.ncclGroupEnd(); /* launches the inits, in the background */
    if (n == ncclSuccess)
        n = ended;
    context_restore(previous);
    if (!rc && n != ncclSuccess && n != ncclInProgress)
        rc = nccl_failure(n, "ncclCommInitRankConfig");
    double timeout_s = timeout_from_environment("HCCL_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT_S);
    for (uint32_t i = 0; i < ndev && made[i] && !rc; i++)
        rc = init_settle(made[i], ncclInProgress, timeout_s);
    for (uint32_t i = 0; i < ndev && made[i]; i++) {
        if (rc) {
            comm_abort(made[i], rc);
            comm_free(made[i]);
        } else {
            comms[i] = made[i];
        }
    }
    free(made);
    return rc;
}

/* ncclCommFinalize flushes what was queued (and waits while a CUDA graph
 * captured with the communicator lives: a captured model must be destroyed
 * first), then ncclCommDestroy frees without blocking. */
static HcclResult nccl_comm_destroy(hccl_engine_comm *c)
{
    HcclResult rc = HCCL_SUCCESS;
    if (c->nccl) {
        ncclResult_t n = nccl.ncclCommFinalize(c->nccl);
        bool expired = false;
        if (n == ncclSuccess || n == ncclInProgress)
            n = settle(c->nccl, c->exec_timeout_s, &expired);
        if (expired) {
            hccl_set_error("rank %u: the communicator's work did not finish within %.0f s "
                           "(HCCL_EXEC_TIMEOUT); aborted",
                           c->rank, c->exec_timeout_s);
            rc = HCCL_E_TIMEOUT;
            comm_abort(c, rc);
        } else if (n != ncclSuccess) {
            rc = nccl_failure(n, "ncclCommFinalize");
            comm_abort(c, rc);
        } else if ((n = nccl.ncclCommDestroy(c->nccl)) != ncclSuccess) {
            rc = nccl_failure(n, "ncclCommDestroy");
            comm_abort(c, rc);
        }
    }
    comm_free(c);
    return rc;
}

static HcclResult nccl_async_error(hccl_engine_comm *c, HcclResult *error)
{
    pthread_mutex_lock(&c->lock);
    ncclResult_t state = ncclSuccess, n = ncclSuccess;
    if (c->nccl)
        n = nccl.ncclCommGetAsyncError(c->nccl, &state);
    pthread_mutex_unlock(&c->lock);
    HcclResult broken = atomic_load(&c->broken);
    if (broken) {
        *error = broken;
        return HCCL_SUCCESS;
    }
    if (n != ncclSuccess)
        return nccl_failure(n, "ncclCommGetAsyncError");
    /* An op still being queued is no error. */
    *error = state == ncclSuccess || state == ncclInProgress
                 ? HCCL_SUCCESS
                 : nccl_failure(state, "the communicator failed asynchronously");
    return HCCL_SUCCESS;
}

/* ---- types -------------------------------------------------------------------------------- */

static bool nccl_type(HcclDataType dtype, ncclDataType_t *out)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8:
        *out = ncclInt8;
        return true;
    case HCCL_DATA_TYPE_UINT8:
        *out = ncclUint8;
        return true;
    case HCCL_DATA_TYPE_INT32:
        *out = ncclInt32;
        return true;
    case HCCL_DATA_TYPE_UINT32:
        *out = ncclUint32;
        return true;
    case HCCL_DATA_TYPE_INT64:
        *out = ncclInt64;
        return true;
    case HCCL_DATA_TYPE_UINT64:
        *out = ncclUint64;
        return true;
    case HCCL_DATA_TYPE_FP16:
        *out = ncclFloat16;
        return true;
    case HCCL_DATA_TYPE_FP32:
        *out = ncclFloat32;
        return true;
    case HCCL_DATA_TYPE_FP64:
        *out = ncclFloat64;
        return true;
    case HCCL_DATA_TYPE_BFP16:
        *out = ncclBfloat16;
        return true;
#if NCCL_VERSION_CODE >= NCCL_FP8
    case HCCL_DATA_TYPE_FP8E4M3:
        *out = ncclFloat8e4m3;
        return nccl_version >= NCCL_FP8;
    case HCCL_DATA_TYPE_FP8E5M2:
        *out = ncclFloat8e5m2;
        return nccl_version >= NCCL_FP8;
#endif
    default:
        return false;
    }
}

static bool nccl_reduce_op(HcclReduceOp op, ncclRedOp_t *out)
{
    switch (op) {
    case HCCL_REDUCE_SUM:
        *out = ncclSum;
        return true;
    case HCCL_REDUCE_PROD:
        *out = ncclProd;
        return true;
    case HCCL_REDUCE_MAX:
        *out = ncclMax;
        return true;
    case HCCL_REDUCE_MIN:
        *out = ncclMin;
        return true;
    default:
        return false;
    }
}

static const char *nccl_unsupported(HcclDataType dtype, HcclReduceOp op)
{
    ncclRedOp_t rop;
    ncclDataType_t type;
    if (!nccl_reduce_op(op, &rop))
        return "NCCL reduces with sum, prod, max and min only";
    pthread_once(&load_once, load); /* the fp8 types depend on the NCCL loaded */
    if (!loaded)
        return load_failure;
    if (nccl_type(dtype, &type))
        return NULL;
    switch (dtype) {
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
        return "NCCL has no 16-bit integer type to reduce; int16 and uint16 data move only in "
               "collectives that copy (broadcast, all-gather, scatter, all-to-all, send/receive)";
    case HCCL_DATA_TYPE_INT128:
        return "NCCL has no 128-bit integer type to reduce; int128 data move only in "
               "collectives that copy";
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E8M0:
        return "NCCL has no hif8 or fp8 e8m0 type to reduce; such data move only in "
               "collectives that copy";
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
        return "the NCCL loaded (or built against) is older than 2.24 and has no fp8 types to "
               "reduce; fp8 data move only in collectives that copy";
    default:
        return "NCCL cannot reduce this data type";
    }
}

/* ---- groups ------------------------------------------------------------------------------- */

/* HcclGroupStart/End nest per thread as NCCL's groups do. The communicators
 * given ops inside are polled once the outermost group has ended: until
 * then NCCL has queued nothing. */
static _Thread_local unsigned group_depth;
static _Thread_local hccl_engine_comm **group_comms;
static _Thread_local size_t group_count, group_capacity;

static HcclResult group_note(hccl_engine_comm *c)
{
    for (size_t i = 0; i < group_count; i++)
        if (group_comms[i] == c)
            return HCCL_SUCCESS;
    if (group_count == group_capacity) {
        size_t capacity = group_capacity ? group_capacity * 2 : 8;
        hccl_engine_comm **grown = realloc(group_comms, capacity * sizeof *grown);
        if (!grown) {
            hccl_set_error("out of memory for the communicators of a group");
            return HCCL_E_MEMORY;
        }
        group_comms = grown;
        group_capacity = capacity;
    }
    group_comms[group_count++] = c;
    return HCCL_SUCCESS;
}

static HcclResult nccl_group_start(void)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    ncclResult_t n = nccl.ncclGroupStart();
    if (n != ncclSuccess)
        return nccl_failure(n, "ncclGroupStart");
    group_depth++;
    return HCCL_SUCCESS;
}

/* Polls c until NCCL queued its last call, aborting it past its exec
 * timeout. */
static HcclResult comm_settle(hccl_engine_comm *c, const char *what)
{
    bool expired;
    ncclResult_t n = settle(c->nccl, c->exec_timeout_s, &expired);
    if (expired) {
        comm_abort(c, HCCL_E_TIMEOUT);
        hccl_set_error("rank %u: %s was not queued within %.0f s (HCCL_EXEC_TIMEOUT): a peer "
                       "did not take part; the communicator is aborted",
                       c->rank, what, c->exec_timeout_s);
        return HCCL_E_TIMEOUT;
    }
    return nccl_failure(n, what);
}

static HcclResult nccl_group_end(void)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    if (group_depth == 0) {
        hccl_set_error("a group ends that has not started");
        return HCCL_E_PARA;
    }
    ncclResult_t n = nccl.ncclGroupEnd();
    if (--group_depth > 0)
        return nccl_failure(n, "ncclGroupEnd");
    if (n != ncclSuccess && n != ncclInProgress)
        rc = nccl_failure(n, "ncclGroupEnd");
    for (size_t i = 0; i < group_count; i++) {
        hccl_engine_comm *c = group_comms[i];
        HcclResult settled = c->nccl ? comm_settle(c, "the group's ops") : HCCL_SUCCESS;
        if (!rc)
            rc = settled;
    }
    /* Nothing kept past a group: a thread's exit leaks nothing. */
    free(group_comms);
    group_comms = NULL;
    group_count = group_capacity = 0;
    return rc;
}

/* ---- ops ---------------------------------------------------------------------------------- */

/* What one op needs while its NCCL calls are made. */
typedef struct enqueue {
    hccl_engine_comm *c;
    const hccl_op *op;
    cudaStream_t stream;
    size_t elem; /* bytes per element of op->dtype */
} enqueue;

static bool bytes_of(uint64_t count, size_t elem, size_t *out)
{
    if (elem != 0 && count > SIZE_MAX / elem) {
        hccl_set_error("%llu elements of %zu bytes do not fit in memory", (unsigned long long)count,
                       elem);
        return false;
    }
    *out = (size_t)(count * elem);
    return true;
}

/* A send and a receive of raw bytes: any HCCL type moves so. */
static ncclResult_t send_bytes(const enqueue *q, const void *buf, uint64_t count, size_t elem,
                               uint32_t peer)
{
    if (count == 0)
        return ncclSuccess;
    return nccl.ncclSend(buf, (size_t)(count * elem), ncclUint8, (int)peer, q->c->nccl, q->stream);
}

static ncclResult_t recv_bytes(const enqueue *q, void *buf, uint64_t count, size_t elem,
                               uint32_t peer)
{
    if (count == 0)
        return ncclSuccess;
    return nccl.ncclRecv(buf, (size_t)(count * elem), ncclUint8, (int)peer, q->c->nccl, q->stream);
}

static const unsigned char *at(const void *base, uint64_t displ, size_t elem)
{
    return (const unsigned char *)base + displ * elem;
}

/* The calls of an op that NCCL runs as one group of point-to-point
 * transfers or reductions; the caller wraps them in ncclGroupStart/End. A
 * lone send or receive is grouped too: some NCCL versions (2.23, NVIDIA/nccl
 * issue 1495) let one on a non-blocking communicator answer before its
 * kernel was queued. */
static ncclResult_t enqueue_grouped(const enqueue *q, ncclDataType_t type, ncclRedOp_t rop)
{
    const hccl_op *op = q->op;
    const hccl_engine_comm *c = q->c;
    ncclResult_t n = ncclSuccess;
    switch (op->kind) {
    case HCCL_OP_ALLGATHERV:
        for (uint32_t r = 0; r < c->nranks && n == ncclSuccess; r++) {
            n = send_bytes(q, op->send, op->count, q->elem, r);
            if (n == ncclSuccess)
                n = recv_bytes(q, (void *)at(op->recv, op->recv_displs[r], q->elem),
                               op->recv_counts[r], q->elem, r);
        }
        return n;
    case HCCL_OP_REDUCE_SCATTERV:
        /* One reduction per rank, rooted at the rank its block goes to. */
        for (uint32_t r = 0; r < c->nranks && n == ncclSuccess; r++)
            if (op->send_counts[r] != 0)
                n = nccl.ncclReduce(at(op->send, op->send_displs[r], q->elem),
                                    r == c->rank ? op->recv : NULL, (size_t)op->send_counts[r],
                                    type, rop, (int)r, c->nccl, q->stream);
        return n;
    case HCCL_OP_SCATTER:
        if (c->rank == op->root)
            for (uint32_t r = 0; r < c->nranks && n == ncclSuccess; r++)
                n = send_bytes(q, at(op->send, (uint64_t)r * op->count, q->elem), op->count,
                               q->elem, r);
        return n == ncclSuccess ? recv_bytes(q, op->recv, op->count, q->elem, op->root) : n;
    case HCCL_OP_ALLTOALL:
    case HCCL_OP_ALLTOALLV:
        for (uint32_t r = 0; r < c->nranks && n == ncclSuccess; r++) {
            n = send_bytes(q, at(op->send, op->send_displs[r], q->elem), op->send_counts[r],
                           q->elem, r);
            if (n == ncclSuccess)
                n = recv_bytes(q, (void *)at(op->recv, op->recv_displs[r], q->elem),
                               op->recv_counts[r], q->elem, r);
        }
        return n;
    case HCCL_OP_SEND:
        return send_bytes(q, op->send, op->count, q->elem, op->peer);
    case HCCL_OP_RECV:
        return recv_bytes(q, op->recv, op->count, q->elem, op->peer);
    case HCCL_OP_BATCH_SEND_RECV:
        for (uint32_t i = 0; i < op->item_count && n == ncclSuccess; i++) {
            const HcclSendRecvItem *item = &op->items[i];
            size_t elem = hccl_dtype_size(item->dataType);
            n = item->sendRecvType == HCCL_SEND
                    ? send_bytes(q, item->buf, item->count, elem, item->remoteRank)
                    : recv_bytes(q, item->buf, item->count, elem, item->remoteRank);
        }
        return n;
    default:
        return ncclInvalidUsage;
    }
}

/* The arrays an op kind reads (the API layer fills them), present. */
static bool op_arrays_present(const hccl_op *op)
{
    switch (op->kind) {
    case HCCL_OP_ALLGATHERV:
        return op->recv_counts && op->recv_displs;
    case HCCL_OP_REDUCE_SCATTERV:
        return op->send_counts && op->send_displs;
    case HCCL_OP_ALLTOALL:
    case HCCL_OP_ALLTOALLV:
        return op->send_counts && op->send_displs && op->recv_counts && op->recv_displs;
    case HCCL_OP_BATCH_SEND_RECV:
        return op->items || op->item_count == 0;
    default:
        return true;
    }
}

/* Every byte count and offset of an op, checked to fit size_t. */
static bool op_sizes_fit(const enqueue *q)
{
    const hccl_op *op = q->op;
    size_t bytes;
    if (!bytes_of(op->count, q->elem, &bytes))
        return false;
    if (op->kind == HCCL_OP_SCATTER && !bytes_of(op->count, q->elem * q->c->nranks, &bytes))
        return false;
    const uint64_t *arrays[] = {op->send_counts, op->send_displs, op->recv_counts, op->recv_displs};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
        for (uint32_t r = 0; arrays[a] && r < q->c->nranks; r++)
            if (!bytes_of(arrays[a][r], q->elem, &bytes))
                return false;
    for (uint32_t i = 0; i < op->item_count; i++) {
        size_t elem = hccl_dtype_size(op->items[i].dataType);
        if (elem == 0) {
            hccl_set_error("item %u: data type %d is not one HCCL defines", i,
                           (int)op->items[i].dataType);
            return false;
        }
        if (!bytes_of(op->items[i].count, elem, &bytes))
            return false;
    }
    return true;
}

static const char *op_name(hccl_op_kind kind)
{
    switch (kind) {
    case HCCL_OP_ALLREDUCE:
        return "all-reduce";
    case HCCL_OP_BROADCAST:
        return "broadcast";
    case HCCL_OP_REDUCE:
        return "reduce";
    case HCCL_OP_ALLGATHER:
        return "all-gather";
    case HCCL_OP_ALLGATHERV:
        return "all-gather-v";
    case HCCL_OP_REDUCE_SCATTER:
        return "reduce-scatter";
    case HCCL_OP_REDUCE_SCATTERV:
        return "reduce-scatter-v";
    case HCCL_OP_SCATTER:
        return "scatter";
    case HCCL_OP_ALLTOALL:
        return "all-to-all";
    case HCCL_OP_ALLTOALLV:
        return "all-to-all-v";
    case HCCL_OP_SEND:
        return "send";
    case HCCL_OP_RECV:
        return "receive";
    case HCCL_OP_BATCH_SEND_RECV:
        return "batch send/receive";
    case HCCL_OP_BARRIER:
        return "barrier";
    }
    return "op";
}

static bool op_reduces(hccl_op_kind kind)
{
    return kind == HCCL_OP_ALLREDUCE || kind == HCCL_OP_REDUCE || kind == HCCL_OP_REDUCE_SCATTER ||
           kind == HCCL_OP_REDUCE_SCATTERV;
}

/* The stream NCCL queues on: the CUDA stream behind an ACL stream of the
 * communicator's device. */
static HcclResult native_stream(const hccl_engine_comm *c, aclrtStream stream, cudaStream_t *out)
{
    int32_t device = -1;
    void *native = NULL;
    if (aclcudaStreamGetDevice(stream, &device) != ACL_SUCCESS ||
        aclcudaGetNativeStream(stream, &native) != ACL_SUCCESS) {
        hccl_set_error("stream %p is not a live stream: %s", stream, aclGetRecentErrMsg());
        return HCCL_E_PARA;
    }
    if (device != c->device) {
        hccl_set_error("stream %p belongs to device %d, the communicator to device %d", stream,
                       (int)device, (int)c->device);
        return HCCL_E_PARA;
    }
    if (!native) {
        hccl_set_error("the %s backend has no CUDA streams for NCCL", aclcudaGetBackendName());
        return HCCL_E_NOT_SUPPORT;
    }
    *out = native;
    return HCCL_SUCCESS;
}

static HcclResult submit_op(hccl_engine_comm *c, const hccl_op *op, aclrtStream stream)
{
    HcclResult rc = atomic_load(&c->broken);
    if (rc || !c->nccl) {
        hccl_set_error("rank %u: the communicator was aborted after an earlier failure; "
                       "destroy it",
                       c->rank);
        return rc ? rc : HCCL_E_INTERNAL;
    }
    enqueue q = {.c = c, .op = op, .elem = hccl_dtype_size(op->dtype)};
    if ((rc = native_stream(c, stream, &q.stream)))
        return rc;
    ncclDataType_t type = ncclUint8;
    ncclRedOp_t rop = ncclSum;
    if (op_reduces(op->kind)) {
        const char *why = nccl_unsupported(op->dtype, op->reduce);
        if (why) {
            hccl_set_error("%s: %s", op_name(op->kind), why);
            return HCCL_E_NOT_SUPPORT;
        }
        (void)nccl_type(op->dtype, &type);
        (void)nccl_reduce_op(op->reduce, &rop);
    } else if (op->kind != HCCL_OP_BATCH_SEND_RECV && op->kind != HCCL_OP_BARRIER && q.elem == 0) {
        hccl_set_error("%s: data type %d is not one HCCL defines", op_name(op->kind),
                       (int)op->dtype);
        return HCCL_E_PARA;
    }
    if (!op_arrays_present(op)) {
        hccl_set_error("%s: the op lacks its counts, displacements or items", op_name(op->kind));
        return HCCL_E_PARA;
    }
    if (op->kind != HCCL_OP_BARRIER && !op_sizes_fit(&q))
        return HCCL_E_PARA;

    /* Data-moving collectives move bytes: any HCCL type, NCCL's or not. */
    size_t bytes = (size_t)op->count * q.elem;
    const void *send = op->send ? op->send : op->recv;
    void *recv = op->recv ? op->recv : (void *)op->send;
    ncclComm_t n = c->nccl;
    ncclResult_t r;
    switch (op->kind) {
    case HCCL_OP_ALLREDUCE:
        r = nccl.ncclAllReduce(op->send, op->recv, (size_t)op->count, type, rop, n, q.stream);
        break;
    case HCCL_OP_BROADCAST: /* HCCL's broadcast is in place: one buffer */
        r = nccl.ncclBroadcast(send, recv, bytes, ncclUint8, (int)op->root, n, q.stream);
        break;
    case HCCL_OP_REDUCE:
        r = nccl.ncclReduce(op->send, op->recv, (size_t)op->count, type, rop, (int)op->root, n,
                            q.stream);
        break;
    case HCCL_OP_ALLGATHER:
        r = nccl.ncclAllGather(op->send, op->recv, bytes, ncclUint8, n, q.stream);
        break;
    case HCCL_OP_REDUCE_SCATTER:
        r = nccl.ncclReduceScatter(op->send, op->recv, (size_t)op->count, type, rop, n, q.stream);
        break;
    case HCCL_OP_BARRIER:
        r = nccl.ncclAllReduce(c->barrier, c->barrier, BARRIER_BYTES, ncclUint8, ncclSum, n,
                               q.stream);
        break;
    default: {
        /* A failed call inside still needs the group ended (NCCL keeps the
         * first error for ncclGroupEnd to return). */
        r = nccl.ncclGroupStart();
        if (r != ncclSuccess)
            break;
        ncclResult_t calls = enqueue_grouped(&q, type, rop);
        r = nccl.ncclGroupEnd();
        if (calls != ncclSuccess)
            r = calls;
        break;
    }
    }
    if (r != ncclSuccess && r != ncclInProgress)
        return nccl_failure(r, op_name(op->kind));
    if (group_depth > 0)
        return HCCL_SUCCESS; /* queued at the group's end, and polled then */
    return comm_settle(c, op_name(op->kind));
}

static HcclResult nccl_submit(hccl_engine_comm *c, hccl_op *op, aclrtStream stream)
{
    HcclResult rc = nccl_require();
    if (!rc) {
        /* Noted before its calls: a group must poll every communicator it
         * gave work to. */
        if (group_depth > 0)
            rc = group_note(c);
        if (!rc)
            rc = submit_op(c, op, stream);
    }
    /* NCCL took what it needs at the call (buffers are the caller's). */
    hccl_op_free(op);
    return rc;
}

/* ---- sub-communicators ------------------------------------------------------------------- */

/* Waits up to timeout_s for what was queued on stream. */
static aclError stream_wait(aclrtStream stream, double timeout_s)
{
    double ms = timeout_s * 1000;
    return aclrtSynchronizeStreamWithTimeout(stream, ms < INT32_MAX ? (int32_t)ms : INT32_MAX);
}

/* Hands the sub-communicator's unique id from its rank 0 to its other ranks
 * over the parent: NCCL sends and receives between those ranks alone, on a
 * stream of the engine's own, waited for up to timeout_s. The device
 * current is the parent's. A transfer that cannot finish (a rank that never
 * comes) leaves the parent aborted: its kernel would wait on the GPU for
 * ever otherwise. */
static HcclResult share_unique_id(hccl_engine_comm *parent, const hccl_split *split,
                                  ncclUniqueId *id, double timeout_s)
{
    void *buf = NULL;
    aclrtStream stream = NULL;
    cudaStream_t native = NULL;
    HcclResult rc = HCCL_SUCCESS;
    if (aclrtMalloc(&buf, sizeof *id, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) {
        buf = NULL;
        hccl_set_error("no device memory to share a sub-communicator's id on device %d: %s",
                       (int)parent->device, aclGetRecentErrMsg());
        rc = HCCL_E_MEMORY;
    } else if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
        stream = NULL;
        hccl_set_error("no stream to share a sub-communicator's id on device %d: %s",
                       (int)parent->device, aclGetRecentErrMsg());
        rc = HCCL_E_RUNTIME;
    } else if (!(rc = native_stream(parent, stream, &native)) && split->rank == 0 &&
               aclrtMemcpy(buf, sizeof *id, id, sizeof *id, ACL_MEMCPY_HOST_TO_DEVICE) !=
                   ACL_SUCCESS) {
        hccl_set_error("copying a sub-communicator's id to device %d failed: %s",
                       (int)parent->device, aclGetRecentErrMsg());
        rc = HCCL_E_RUNTIME;
    }
    if (!rc) {
        ncclResult_t n = nccl.ncclGroupStart();
        if (n == ncclSuccess) {
            ncclResult_t calls = ncclSuccess;
            if (split->rank != 0)
                calls = nccl.ncclRecv(buf, sizeof *id, ncclUint8, (int)split->ranks[0],
                                      parent->nccl, native);
            for (uint32_t i = 1; split->rank == 0 && i < split->nranks && calls == ncclSuccess; i++)
                calls = nccl.ncclSend(buf, sizeof *id, ncclUint8, (int)split->ranks[i],
                                      parent->nccl, native);
            n = nccl.ncclGroupEnd();
            if (calls != ncclSuccess)
                n = calls;
        }
        if (n != ncclSuccess && n != ncclInProgress)
            rc = nccl_failure(n, "sharing a sub-communicator's id over its parent");
        else
            rc = comm_settle(parent, "sharing a sub-communicator's id over its parent");
    }
    aclError waited = rc ? ACL_SUCCESS : stream_wait(stream, timeout_s);
    if (waited == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
        comm_abort(parent, HCCL_E_TIMEOUT);
        hccl_set_error("rank %u of sub-communicator %llu: its id did not %s within %.0f s "
                       "(HCCL_CONNECT_TIMEOUT): a rank of it did not take part; the parent "
                       "communicator is aborted",
                       split->rank, (unsigned long long)split->id,
                       split->rank == 0 ? "reach every rank" : "arrive from its rank 0", timeout_s);
        rc = HCCL_E_TIMEOUT;
    } else if (waited != ACL_SUCCESS) {
        comm_abort(parent, HCCL_E_RUNTIME);
        hccl_set_error("rank %u of sub-communicator %llu: sharing its id failed on the stream "
                       "(%d: %s); the parent communicator is aborted",
                       split->rank, (unsigned long long)split->id, (int)waited,
                       aclGetRecentErrMsg());
        rc = HCCL_E_RUNTIME;
    }
    if (!rc && split->rank != 0 &&
        aclrtMemcpy(id, sizeof *id, buf, sizeof *id, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
        hccl_set_error("copying a sub-communicator's id from device %d failed: %s",
                       (int)parent->device, aclGetRecentErrMsg());
        rc = HCCL_E_RUNTIME;
    }
    if (stream)
        (void)aclrtDestroyStream(stream);
    if (buf)
        (void)aclrtFree(buf);
    return rc;
}

/* Not ncclCommSplit, which every rank of the parent must call: CANN's ranks
 * outside a sub-communicator need not. Its rank 0 makes a unique id, hands
 * it over the parent, and the ranks join with it as any communicator's. */
static HcclResult nccl_comm_split(hccl_engine_comm *parent, const hccl_split *split,
                                  hccl_engine_comm **out)
{
    HcclResult rc = nccl_require();
    if (rc)
        return rc;
    if (split->nranks == 0 || split->rank >= split->nranks || split->nranks > parent->nranks) {
        hccl_set_error("rank %u of %u ranks is not a rank of a sub-communicator of %u", split->rank,
                       split->nranks, parent->nranks);
        return HCCL_E_PARA;
    }
    for (uint32_t i = 0; i < split->nranks; i++)
        if (split->ranks[i] >= parent->nranks) {
            hccl_set_error("sub-rank %u is rank %u of the parent, which has %u", i, split->ranks[i],
                           parent->nranks);
            return HCCL_E_PARA;
        }
    if ((rc = atomic_load(&parent->broken)) || !parent->nccl) {
        hccl_set_error("rank %u: the parent communicator was aborted after an earlier failure",
                       parent->rank);
        return rc ? rc : HCCL_E_INTERNAL;
    }
    hccl_engine_comm *c =
        comm_new(split->nranks, split->rank, parent->device, split->exec_timeout_s);
    if (!c)
        return HCCL_E_MEMORY;
    double connect_s = timeout_or(split->connect_timeout_s, DEFAULT_CONNECT_TIMEOUT_S);
    aclrtContext previous;
    rc = comm_attach(c, &previous);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t n;
    if (!rc && split->rank == 0 && (n = nccl.ncclGetUniqueId(&id)) != ncclSuccess)
        rc = nccl_failure(n, "ncclGetUniqueId");
    if (!rc && split->nranks > 1)
        rc = share_unique_id(parent, split, &id, connect_s);
    ncclResult_t started = ncclSuccess;
    if (!rc)
        started = init_rank(c, &id);
    context_restore(previous);
    if (!rc)
        rc = init_settle(c, started, connect_s);
    if (rc) {
        comm_free(c);
        return rc;
    }
    *out = c;
    return HCCL_SUCCESS;
}

const hccl_engine hccl_engine_nccl = {
    .name = "nccl",
    .root_info = nccl_root_info,
    .comm_init = nccl_comm_init,
    .comm_init_all = nccl_comm_init_all,
    .comm_split = nccl_comm_split,
    .comm_destroy = nccl_comm_destroy,
    .submit = nccl_submit,
    .group_start = nccl_group_start,
    .group_end = nccl_group_end,
    .async_error = nccl_async_error,
    .unsupported = nccl_unsupported,
};
