/* Robustness: every public function that takes a handle or a pointer answers
 * bad ones (NULL, destroyed, another kind of handle, garbage, foreign memory)
 * with an error code and a message, never a crash. One table row per such
 * function, and a test that the table covers the implemented functions of
 * the API table (src/api/api.def). Also: bad calls leave queued work alone,
 * exhausted resources are survived, and a child process forked after the
 * library started either works or fails with error codes. */
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"
#include "acl/acl_cuda.h"

/* The table calls deprecated functions too: they are still part of the API. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

enum { BUF_SIZE = 4096, MAX_BAD = 16, GARBAGE_BYTES = 256 };

#define ANY_ERROR ((aclError)-1)

static bool on_host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

/* Deterministic bytes for garbage handles (xorshift64). */
static void fill_random(void *buf, size_t n, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 32);
    }
}

/* Checks a rejected call: the code (or any error) and a message. The pending
 * messages are cleared first, so the message is this call's. */
static void check_rejected(aclError ret, aclError code, const char *call, const char *what)
{
    const char *msg = aclGetRecentErrMsg();
    if (code == ANY_ERROR)
        ck_assert_msg(ret != ACL_SUCCESS, "%s with %s succeeded", call, what);
    else
        ck_assert_msg(ret == code, "%s with %s returned %d, expected %d", call, what, (int)ret,
                      (int)code);
    ck_assert_msg(msg != NULL, "%s with %s left no error message", call, what);
}

#define REJECTS(expr, code, what)                                                            \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        check_rejected((expr), (code), #expr, (what));                                       \
    } while (0)

/* For functions that return a value instead of an aclError. */
#define REJECTS_VALUE(expr, failed, what)                                                    \
    do {                                                                                     \
        (void)aclGetRecentErrMsg();                                                          \
        bool rejected_ = (expr) == (failed);                                                 \
        const char *msg_ = aclGetRecentErrMsg();                                             \
        ck_assert_msg(rejected_, "%s with %s did not return %s", #expr, (what), #failed);    \
        ck_assert_msg(msg_ != NULL, "%s with %s left no error message", #expr, (what));      \
    } while (0)

/* ---- bad handles ----------------------------------------------------------------- */

typedef enum handle_kind { KIND_STREAM, KIND_EVENT, KIND_CONTEXT, KIND_BUFFER } handle_kind;

/* Handles that are not live handles of one kind, with what each one is. The
 * set lives in the caller's frame: `local` is a local variable's address. */
typedef struct bad_set {
    void *handle[MAX_BAD];
    const char *what[MAX_BAD];
    size_t count;
    aclrtStream stream; /* live handles, lent where another kind is wanted */
    aclrtEvent event;
    aclrtContext context;
    aclDataBuffer *buffer;
    unsigned char local[GARBAGE_BYTES];
    unsigned char *heap_random;
    unsigned char *heap_forged; /* starts like a live handle of the wanted kind */
} bad_set;

static void bad_add(bad_set *b, void *handle, const char *what)
{
    ck_assert_uint_lt(b->count, MAX_BAD);
    b->handle[b->count] = handle;
    b->what[b->count] = what;
    b->count++;
}

/* A live handle of `kind` made and destroyed. Made after every other
 * allocation of the set, so that nothing reuses its address meanwhile. */
static void *destroyed_handle(handle_kind kind, aclrtContext current)
{
    void *h = NULL;
    switch (kind) {
    case KIND_STREAM:
        h = acltest_new_stream();
        ACL_OK(aclrtDestroyStream(h));
        break;
    case KIND_EVENT:
        ACL_OK(aclrtCreateEvent(&h));
        ACL_OK(aclrtDestroyEvent(h));
        break;
    case KIND_CONTEXT:
        ACL_OK(aclrtCreateContext(&h, 0));
        ACL_OK(aclrtDestroyContext(h));
        ACL_OK(aclrtSetCurrentContext(current));
        break;
    case KIND_BUFFER:
        h = aclCreateDataBuffer(NULL, 0);
        ck_assert_ptr_nonnull(h);
        ACL_OK(aclDestroyDataBuffer(h));
        break;
    }
    return h;
}

/* Everything that is not a live `kind` handle; NULL too unless NULL means
 * something (the default stream). */
static void bad_set_make(bad_set *b, handle_kind kind)
{
    memset(b, 0, sizeof *b);
    b->stream = acltest_new_stream();
    ACL_OK(aclrtCreateEvent(&b->event));
    ACL_OK(aclrtGetCurrentContext(&b->context));
    b->buffer = aclCreateDataBuffer(NULL, 0);
    ck_assert_ptr_nonnull(b->buffer);

    fill_random(b->local, sizeof b->local, 0x5eed0001);
    b->heap_random = malloc(GARBAGE_BYTES);
    b->heap_forged = malloc(GARBAGE_BYTES);
    ck_assert(b->heap_random && b->heap_forged);
    fill_random(b->heap_random, GARBAGE_BYTES, 0x5eed0002);
    fill_random(b->heap_forged, GARBAGE_BYTES, 0x5eed0003);
    /* Handles are values, not addresses: a block holding a live handle's
     * value, and that value with another generation, are not handles. */
    void *model[] = {b->stream, b->event, b->context, b->buffer};
    memcpy(b->heap_forged, &model[kind], sizeof model[kind]);

    if (kind != KIND_STREAM) {
        bad_add(b, NULL, "NULL");
        bad_add(b, b->stream, "a stream");
    }
    if (kind != KIND_EVENT)
        bad_add(b, b->event, "an event");
    if (kind != KIND_CONTEXT)
        bad_add(b, b->context, "a context");
    if (kind != KIND_BUFFER)
        bad_add(b, b->buffer, "a data buffer");
    bad_add(b, b->local, "a local variable's address");
    bad_add(b, b->heap_random, "a heap block of random bytes");
    bad_add(b, b->heap_forged, "a heap block holding a live handle's value");
    bad_add(b, (void *)((uintptr_t)model[kind] ^ ((uintptr_t)1 << 40)), "a live handle's value, another generation");
    bad_add(b, (void *)(uintptr_t)16, "address 16");
    bad_add(b, (void *)(UINTPTR_MAX - 15), "the top of the address space");
    bad_add(b, destroyed_handle(kind, b->context), "a destroyed handle");
}

static void bad_set_free(bad_set *b)
{
    ACL_OK(aclrtDestroyStream(b->stream));
    ACL_OK(aclrtDestroyEvent(b->event));
    ACL_OK(aclDestroyDataBuffer(b->buffer));
    free(b->heap_random);
    free(b->heap_forged);
}

/* Runs `call` (an expression using `h`) with every bad handle of `kind`. */
#define FOR_EACH_BAD(kind, h, code, call)                                                    \
    do {                                                                                     \
        bad_set set_;                                                                        \
        bad_set_make(&set_, (kind));                                                         \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                         \
            void *h = set_.handle[i_];                                                       \
            REJECTS(call, (code), set_.what[i_]);                                            \
        }                                                                                    \
        bad_set_free(&set_);                                                                 \
    } while (0)

#define FOR_EACH_BAD_VALUE(kind, h, failed, call)                                            \
    do {                                                                                     \
        bad_set set_;                                                                        \
        bad_set_make(&set_, (kind));                                                         \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                         \
            void *h = set_.handle[i_];                                                       \
            REJECTS_VALUE(call, (failed), set_.what[i_]);                                    \
        }                                                                                    \
        bad_set_free(&set_);                                                                 \
    } while (0)

/* ---- bad pointers for frees --------------------------------------------------------- */

typedef struct bad_pointers {
    void *ptr[MAX_BAD];
    const char *what[MAX_BAD];
    size_t count;
    void *device, *pinned;
    unsigned char *heap;
    aclrtStream stream;
    unsigned char local[GARBAGE_BYTES];
} bad_pointers;

static void bad_ptr_add(bad_pointers *b, void *p, const char *what)
{
    ck_assert_uint_lt(b->count, MAX_BAD);
    b->ptr[b->count] = p;
    b->what[b->count] = what;
    b->count++;
}

/* Pointers that the device (or, with !device, the page-locked host) free
 * functions must refuse. */
static void bad_pointers_make(bad_pointers *b, bool device)
{
    memset(b, 0, sizeof *b);
    ACL_OK(aclrtMalloc(&b->device, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&b->pinned, BUF_SIZE));
    b->heap = malloc(BUF_SIZE);
    ck_assert_ptr_nonnull(b->heap);
    b->stream = acltest_new_stream();
    void *freed = NULL;
    if (device) {
        ACL_OK(aclrtMalloc(&freed, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtFree(freed));
    } else {
        ACL_OK(aclrtMallocHost(&freed, BUF_SIZE));
        ACL_OK(aclrtFreeHost(freed));
    }
    bad_ptr_add(b, NULL, "NULL");
    bad_ptr_add(b, b->heap, "malloc'd memory");
    bad_ptr_add(b, b->local, "a local variable's address");
    bad_ptr_add(b, b->stream, "a stream handle");
    bad_ptr_add(b, (void *)(uintptr_t)16, "address 16");
    bad_ptr_add(b, (void *)(UINTPTR_MAX - 15), "the top of the address space");
    bad_ptr_add(b, (char *)b->device + 64, "a pointer inside device memory");
    bad_ptr_add(b, (char *)b->pinned + 64, "a pointer inside page-locked memory");
    bad_ptr_add(b, device ? b->pinned : b->device,
                device ? "page-locked host memory" : "device memory");
    bad_ptr_add(b, freed, "memory already freed");
}

static void bad_pointers_free(bad_pointers *b)
{
    ACL_OK(aclrtFree(b->device));
    ACL_OK(aclrtFreeHost(b->pinned));
    ACL_OK(aclrtDestroyStream(b->stream));
    free(b->heap);
}

#define FOR_EACH_BAD_POINTER(device, p, call)                                                \
    do {                                                                                     \
        bad_pointers set_;                                                                   \
        bad_pointers_make(&set_, (device));                                                  \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                         \
            void *p = set_.ptr[i_];                                                          \
            REJECTS(call, ACL_ERROR_INVALID_PARAM, set_.what[i_]);                           \
        }                                                                                    \
        bad_pointers_free(&set_);                                                            \
    } while (0)

/* ---- helpers for the rows --------------------------------------------------------------- */

static void host_func_noop(void *arg)
{
    (void)arg;
}

static aclError init_callback(const char *config, size_t len, void *user)
{
    (void)config;
    (void)len;
    (void)user;
    return ACL_SUCCESS;
}

static aclError finalize_callback(void *user)
{
    (void)user;
    return ACL_SUCCESS;
}

static aclrtEvent new_event(uint32_t flags)
{
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, flags));
    return e;
}

/* Memory for the copy rows. */
typedef struct buffers {
    void *device, *pinned;
} buffers;

static buffers buffers_make(void)
{
    buffers b;
    ACL_OK(aclrtMalloc(&b.device, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&b.pinned, BUF_SIZE));
    return b;
}

static void buffers_free(buffers *b)
{
    ACL_OK(aclrtFree(b->device));
    ACL_OK(aclrtFreeHost(b->pinned));
}

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* ---- the rows ------------------------------------------------------------------------------ */

#define ROW(name) static void row_##name(void)

ROW(aclAppLog)
{
    /* No error channel: the call must simply return. */
    aclAppLog(ACL_ERROR, NULL, NULL, 0, NULL);
    aclAppLog(ACL_ERROR, NULL, NULL, 0, "%s", "text");
    aclAppLog((aclLogLevel)99, "f", "file", 1, NULL);
}

ROW(aclCreateDataBuffer)
{
    /* The data pointer is only stored: any value is accepted and returned. */
    unsigned char local[8];
    void *values[] = {NULL, local, (void *)(uintptr_t)16, (void *)(UINTPTR_MAX - 15)};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        aclDataBuffer *b = aclCreateDataBuffer(values[i], SIZE_MAX);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_eq(aclGetDataBufferAddr(b), values[i]);
        ck_assert_uint_eq(aclGetDataBufferSizeV2(b), SIZE_MAX);
        ACL_OK(aclDestroyDataBuffer(b));
    }
}

ROW(aclDestroyDataBuffer)
{
    FOR_EACH_BAD(KIND_BUFFER, h, ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(h));
}

ROW(aclUpdateDataBuffer)
{
    FOR_EACH_BAD(KIND_BUFFER, h, ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(h, NULL, 8));
}

ROW(aclGetDataBufferAddr)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, NULL, aclGetDataBufferAddr(h));
}

ROW(aclGetDataBufferSize)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, 0u, aclGetDataBufferSize(h));
}

ROW(aclGetDataBufferSizeV2)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, 0u, aclGetDataBufferSizeV2(h));
}

ROW(aclInit)
{
    /* NULL is "no configuration"; bad paths fail before the reference count
     * moves, so the fixture's aclFinalize still balances. */
    char dir_path[512], junk_path[512];
    snprintf(dir_path, sizeof dir_path, "%s", temp_dir());
    snprintf(junk_path, sizeof junk_path, "%s/acl-robustness-XXXXXX", temp_dir());
    int fd = mkstemp(junk_path);
    ck_assert_int_ge(fd, 0);
    unsigned char junk[GARBAGE_BYTES];
    fill_random(junk, sizeof junk, 0x5eed0004);
    ck_assert_int_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    REJECTS(aclInit(""), ACL_ERROR_INVALID_FILE, "an empty path");
    REJECTS(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE, "a missing file");
    REJECTS(aclInit(dir_path), ACL_ERROR_INVALID_FILE, "a directory");
    REJECTS(aclInit(junk_path), ACL_ERROR_PARSE_FILE, "a file of random bytes");
    unlink(junk_path);
}

ROW(aclInitCallbackRegister)
{
    REJECTS(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclInitCallbackUnRegister)
{
    REJECTS(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
    REJECTS(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, init_callback), ACL_ERROR_INVALID_PARAM,
            "a function never registered");
}

ROW(aclFinalizeCallbackRegister)
{
    REJECTS(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclFinalizeCallbackUnRegister)
{
    REJECTS(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
    REJECTS(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, finalize_callback),
            ACL_ERROR_INVALID_PARAM, "a function never registered");
}

ROW(aclFinalizeReference)
{
    /* refCount may be NULL. One extra reference is taken so that the
     * library is not torn down under the fixture. */
    ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    ACL_OK(aclFinalizeReference(NULL));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtDestroyStream(s));
}

ROW(aclGetDeviceCapability)
{
    REJECTS(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclcudaGetNativeEvent)
{
    void *native;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeEvent(h, &native));
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclcudaGetNativeEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclcudaGetNativeStream)
{
    void *native;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeStream(h, &native));
    REJECTS(aclcudaGetNativeStream(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
}

ROW(aclcudaSynchronizeStreamSlice)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaSynchronizeStreamSlice(h, 1));
    REJECTS(aclcudaSynchronizeStreamSlice(NULL, -1), ACL_ERROR_INVALID_PARAM, "a negative slice");
}

ROW(aclcudaSynchronizeEventSlice)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclcudaSynchronizeEventSlice(h, 1));
}

ROW(aclrtCreateContext)
{
    REJECTS(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL context");
}

ROW(aclrtCreateEvent)
{
    REJECTS(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM, "a NULL event");
}

ROW(aclrtCreateEventWithFlag)
{
    REJECTS(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM,
            "a NULL event");
}

ROW(aclrtCreateEventExWithFlag)
{
    REJECTS(aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM,
            "a NULL event");
}

ROW(aclrtCreateStream)
{
    REJECTS(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtCreateStreamWithConfig)
{
    REJECTS(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtCtxGetCurrentDefaultStream)
{
    REJECTS(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtCtxGetSysParamOpt)
{
    REJECTS(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtDestroyContext)
{
    FOR_EACH_BAD(KIND_CONTEXT, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(h));
}

ROW(aclrtSetCurrentContext)
{
    FOR_EACH_BAD(KIND_CONTEXT, h, ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(h));
    int32_t device = -1;
    ACL_OK(aclrtGetDevice(&device)); /* the current context survived */
    ck_assert_int_eq(device, 0);
}

ROW(aclrtGetCurrentContext)
{
    REJECTS(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM, "a NULL context");
}

ROW(aclrtDestroyStream)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(h));
    REJECTS(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
}

ROW(aclrtDestroyStreamForce)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(h));
    REJECTS(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM, "NULL");
}

ROW(aclrtDestroyEvent)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(h));
}

ROW(aclrtDeviceCanAccessPeer)
{
    REJECTS(aclrtDeviceCanAccessPeer(NULL, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtDevicePeerAccessStatus)
{
    REJECTS(aclrtDevicePeerAccessStatus(0, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtDeviceGetStreamPriorityRange)
{
    int32_t value;
    REJECTS(aclrtDeviceGetStreamPriorityRange(NULL, &value), ACL_ERROR_INVALID_PARAM,
            "a NULL leastPriority");
    REJECTS(aclrtDeviceGetStreamPriorityRange(&value, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL greatestPriority");
}

ROW(aclrtDeviceGetUuid)
{
    REJECTS(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL uuid");
}

ROW(aclrtEventElapsedTime)
{
    float ms;
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEvent(&e));
    ACL_OK(aclrtRecordEvent(e, NULL));
    ACL_OK(aclrtSynchronizeEvent(e));
    REJECTS(aclrtEventElapsedTime(NULL, e, e), ANY_ERROR, "a NULL ms");
    FOR_EACH_BAD(KIND_EVENT, h, ANY_ERROR, aclrtEventElapsedTime(&ms, h, e));
    FOR_EACH_BAD(KIND_EVENT, h, ANY_ERROR, aclrtEventElapsedTime(&ms, e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtFree)
{
    FOR_EACH_BAD_POINTER(true, p, aclrtFree(p));
}

ROW(aclrtFreeWithDevSync)
{
    FOR_EACH_BAD_POINTER(true, p, aclrtFreeWithDevSync(p));
}

ROW(aclrtFreeHost)
{
    FOR_EACH_BAD_POINTER(false, p, aclrtFreeHost(p));
}

ROW(aclrtFreeHostWithDevSync)
{
    FOR_EACH_BAD_POINTER(false, p, aclrtFreeHostWithDevSync(p));
}

ROW(aclrtGetDevice)
{
    REJECTS(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM, "a NULL deviceId");
}

ROW(aclrtGetDeviceCapability)
{
    REJECTS(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtGetDeviceCount)
{
    REJECTS(aclrtGetDeviceCount(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetDeviceInfo)
{
    REJECTS(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtGetDeviceSatMode)
{
    REJECTS(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM, "a NULL mode");
}

ROW(aclrtGetDeviceUtilizationRate)
{
    REJECTS(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
}

/* The exception-info getters: the library hands out no exception info, so
 * every pointer is foreign and must not be read. */
static void check_exception_getter(uint32_t (*getter)(const aclrtExceptionInfo *))
{
    unsigned char local[GARBAGE_BYTES];
    fill_random(local, sizeof local, 0x5eed0005);
    REJECTS_VALUE(getter(NULL), UINT32_MAX, "NULL");
    REJECTS_VALUE(getter((const aclrtExceptionInfo *)local), UINT32_MAX, "a local variable");
    REJECTS_VALUE(getter((const aclrtExceptionInfo *)(uintptr_t)16), UINT32_MAX, "address 16");
}

ROW(aclrtGetDeviceIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetDeviceIdFromExceptionInfo);
}

ROW(aclrtGetErrorCodeFromExceptionInfo)
{
    check_exception_getter(aclrtGetErrorCodeFromExceptionInfo);
}

ROW(aclrtGetStreamIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetStreamIdFromExceptionInfo);
}

ROW(aclrtGetTaskIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetTaskIdFromExceptionInfo);
}

ROW(aclrtGetThreadIdFromExceptionInfo)
{
    check_exception_getter(aclrtGetThreadIdFromExceptionInfo);
}

ROW(aclrtSetExceptionInfoCallback)
{
    /* NULL removes the callback; it is a valid argument. */
    ACL_OK(aclrtSetExceptionInfoCallback(NULL));
}

ROW(aclrtGetEventAvailNum)
{
    REJECTS(aclrtGetEventAvailNum(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetEventId)
{
    uint32_t id;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtGetEventId(h, &id));
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclrtGetEventId(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtGetLogicDevIdByPhyDevId)
{
    REJECTS(aclrtGetLogicDevIdByPhyDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetLogicDevIdByUserDevId)
{
    REJECTS(aclrtGetLogicDevIdByUserDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetPhyDevIdByLogicDevId)
{
    REJECTS(aclrtGetPhyDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetUserDevIdByLogicDevId)
{
    REJECTS(aclrtGetUserDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetMemInfo)
{
    size_t value;
    REJECTS(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &value), ACL_ERROR_INVALID_PARAM, "a NULL free");
    REJECTS(aclrtGetMemInfo(ACL_HBM_MEM, &value, NULL), ACL_ERROR_INVALID_PARAM, "a NULL total");
}

ROW(aclrtGetOpExecuteTimeout)
{
    REJECTS(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM, "a NULL timeout");
}

ROW(aclrtGetOpTimeOutInterval)
{
    REJECTS(aclrtGetOpTimeOutInterval(NULL), ACL_ERROR_INVALID_PARAM, "a NULL interval");
}

ROW(aclrtSetOpExecuteTimeOutV2)
{
    REJECTS(aclrtSetOpExecuteTimeOutV2(10, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

ROW(aclrtGetPrimaryCtxState)
{
    uint32_t flags;
    REJECTS(aclrtGetPrimaryCtxState(0, &flags, NULL), ACL_ERROR_INVALID_PARAM, "a NULL active");
}

ROW(aclrtGetRunMode)
{
    REJECTS(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM, "a NULL mode");
}

ROW(aclrtGetStreamAttribute)
{
    aclrtStreamAttrValue value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtGetStreamAttribute(h, ACL_STREAM_ATTR_FAILURE_MODE, &value));
    REJECTS(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtSetStreamAttribute)
{
    aclrtStreamAttrValue value = {.failureMode = ACL_STOP_ON_FAILURE};
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamAttribute(h, ACL_STREAM_ATTR_FAILURE_MODE, &value));
    REJECTS(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
}

ROW(aclrtGetStreamAvailableNum)
{
    REJECTS(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclrtGetStreamOverflowSwitch)
{
    uint32_t flag;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(h, &flag));
    REJECTS(aclrtGetStreamOverflowSwitch(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL flag");
}

ROW(aclrtSetStreamOverflowSwitch)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(h, 1));
}

ROW(aclrtSetStreamFailureMode)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtSetStreamFailureMode(h, ACL_STOP_ON_FAILURE));
}

ROW(aclrtGetSysParamOpt)
{
    REJECTS(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtGetVersion)
{
    int32_t a, b;
    REJECTS(aclrtGetVersion(NULL, &a, &b), ACL_ERROR_INVALID_PARAM, "a NULL major");
    REJECTS(aclrtGetVersion(&a, NULL, &b), ACL_ERROR_INVALID_PARAM, "a NULL minor");
    REJECTS(aclrtGetVersion(&a, &b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL patch");
}

ROW(aclrtLaunchCallback)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtLaunchCallback(host_func_noop, NULL, ACL_CALLBACK_BLOCK, h));
    REJECTS(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL function");
}

ROW(aclrtLaunchHostFunc)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtLaunchHostFunc(h, host_func_noop, NULL));
    REJECTS(aclrtLaunchHostFunc(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL function");
}

ROW(aclrtSubscribeReport)
{
    uint64_t self = (uint64_t)pthread_self();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSubscribeReport(self, h));
}

ROW(aclrtUnSubscribeReport)
{
    uint64_t self = (uint64_t)pthread_self();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtUnSubscribeReport(self, h));
}

ROW(aclrtMalloc)
{
    REJECTS(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocAlign32)
{
    REJECTS(aclrtMallocAlign32(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocCached)
{
    REJECTS(aclrtMallocCached(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
}

ROW(aclrtMallocWithCfg)
{
    void *p = NULL;
    aclrtMallocConfig no_attrs = {.attrs = NULL, .numAttrs = 3};
    REJECTS(aclrtMallocWithCfg(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
    REJECTS(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &no_attrs),
            ACL_ERROR_INVALID_PARAM, "a config whose attrs is NULL");
}

ROW(aclrtMallocHost)
{
    REJECTS(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL hostPtr");
}

ROW(aclrtMallocHostWithCfg)
{
    void *p = NULL;
    aclrtMallocConfig no_attrs = {.attrs = NULL, .numAttrs = 3};
    REJECTS(aclrtMallocHostWithCfg(NULL, 64, NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMallocHostWithCfg(&p, 64, &no_attrs), ACL_ERROR_INVALID_PARAM,
            "a config whose attrs is NULL");
}

ROW(aclrtMemFlush)
{
    REJECTS(aclrtMemFlush(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(aclrtMemInvalidate)
{
    REJECTS(aclrtMemInvalidate(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

/* Copies that name device memory where there is none: pageable host memory
 * is legal where host memory is, but never as the device side. */
ROW(aclrtMemcpy)
{
    buffers b = buffers_make();
    unsigned char local[BUF_SIZE];
    void *freed = NULL;
    ACL_OK(aclrtMalloc(&freed, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtFree(freed));
    REJECTS(aclrtMemcpy(freed, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "freed device memory as dst");
    REJECTS(aclrtMemcpy(b.pinned, BUF_SIZE, freed, 64, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM, "freed device memory as src");
    REJECTS(aclrtMemcpy(NULL, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy(b.device, BUF_SIZE, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS(aclrtMemcpy(local, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    REJECTS(aclrtMemcpy(b.pinned, BUF_SIZE, local, 64, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM, "a local variable as device src");
    buffers_free(&b);
}

ROW(aclrtMemcpyAsync)
{
    buffers b = buffers_make();
    unsigned char local[BUF_SIZE];
    REJECTS(aclrtMemcpyAsync(NULL, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpyAsync(b.device, BUF_SIZE, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS(aclrtMemcpyAsync(b.pinned, BUF_SIZE, local, 64, ACL_MEMCPY_DEVICE_TO_HOST, NULL),
            ACL_ERROR_INVALID_PARAM, "a local variable as device src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsync(b.device, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE, h));
    buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithCondition)
{
    buffers b = buffers_make();
    REJECTS(aclrtMemcpyAsyncWithCondition(NULL, BUF_SIZE, b.pinned, 64, ACL_MEMCPY_HOST_TO_DEVICE,
                                          NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsyncWithCondition(b.device, BUF_SIZE, b.pinned, 64,
                                               ACL_MEMCPY_HOST_TO_DEVICE, h));
    buffers_free(&b);
}

ROW(aclrtMemcpy2d)
{
    buffers b = buffers_make();
    unsigned char local[BUF_SIZE];
    REJECTS(aclrtMemcpy2d(NULL, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy2d(b.device, 64, NULL, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS(aclrtMemcpy2d(local, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    buffers_free(&b);
}

ROW(aclrtMemcpy2dAsync)
{
    buffers b = buffers_make();
    REJECTS(aclrtMemcpy2dAsync(NULL, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpy2dAsync(b.device, 64, NULL, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpy2dAsync(b.device, 64, b.pinned, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE,
                                    h));
    buffers_free(&b);
}

ROW(aclrtMemset)
{
    REJECTS(aclrtMemset(NULL, 64, 0, 64), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

ROW(aclrtMemsetAsync)
{
    buffers b = buffers_make();
    REJECTS(aclrtMemsetAsync(NULL, 64, 0, 64, NULL), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemsetAsync(b.device, BUF_SIZE, 0, 64, h));
    buffers_free(&b);
}

ROW(aclrtPointerGetAttributes)
{
    aclrtPtrAttributes attributes;
    int local = 0;
    REJECTS(aclrtPointerGetAttributes(NULL, &attributes), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtPointerGetAttributes(&local, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL attributes");
}

ROW(aclrtQueryDeviceStatus)
{
    REJECTS(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtQueryEvent)
{
    aclrtEventStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(h, &status));
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtQueryEventStatus)
{
    aclrtEventRecordedStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(h, &status));
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEventStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtQueryEventWaitStatus)
{
    aclrtEventWaitStatus status;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(h, &status));
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclrtQueryEventWaitStatus(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtRecordEvent)
{
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(h, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtResetEvent)
{
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtResetEvent(h, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtResetEvent(e, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtStreamGetId)
{
    int32_t id;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(h, &id));
    REJECTS(aclrtStreamGetId(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL id");
}

ROW(aclrtStreamGetPriority)
{
    uint32_t value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(h, &value));
    REJECTS(aclrtStreamGetPriority(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL priority");
}

ROW(aclrtStreamGetFlags)
{
    uint32_t value;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(h, &value));
    REJECTS(aclrtStreamGetFlags(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL flags");
}

ROW(aclrtStreamQuery)
{
    aclrtStreamStatus status;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(h, &status));
    REJECTS(aclrtStreamQuery(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL status");
}

ROW(aclrtStreamWaitEvent)
{
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(e, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(h, e));
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(NULL, h));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtStreamWaitEventWithTimeout)
{
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    ACL_OK(aclrtRecordEvent(e, NULL));
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithTimeout(h, e, 1));
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM,
                 aclrtStreamWaitEventWithTimeout(NULL, h, 1));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtSynchronizeEvent)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(h));
}

ROW(aclrtSynchronizeEventWithTimeout)
{
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(h, 10));
}

ROW(aclrtSynchronizeStream)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(h));
}

ROW(aclrtSynchronizeStreamWithTimeout)
{
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStreamWithTimeout(h, 10));
}

ROW(aclsysGetCANNVersion)
{
    REJECTS(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL version");
}

ROW(aclsysGetVersionNum)
{
    int32_t num;
    char name[] = "runtime";
    REJECTS(aclsysGetVersionNum(NULL, &num), ACL_ERROR_INVALID_PARAM, "a NULL pkgName");
    REJECTS(aclsysGetVersionNum(name, NULL), ACL_ERROR_INVALID_PARAM, "a NULL versionNum");
}

ROW(aclsysGetVersionStr)
{
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char name[] = "runtime";
    REJECTS(aclsysGetVersionStr(NULL, version), ACL_ERROR_INVALID_PARAM, "a NULL pkgName");
    REJECTS(aclsysGetVersionStr(name, NULL), ACL_ERROR_INVALID_PARAM, "a NULL versionStr");
}

/* ---- memory, complete (#15): copies and fills ---- */

static aclrtMemcpyBatchAttr h2d_attr(void)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    a.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    return a;
}

/* The pointer arrays of a batch, one by one NULL or bad, then bad streams. */
#define BATCH_ROW(call_with)                                                                 \
    do {                                                                                     \
        buffers b = buffers_make();                                                          \
        unsigned char local[64];                                                             \
        void *dsts[1] = {b.device}, *srcs[1] = {b.pinned}, *bad_dst[1] = {local};            \
        size_t sizes[1] = {64}, maxs[1] = {64}, idx[1] = {0}, fail = 0;                      \
        aclrtMemcpyBatchAttr attr = h2d_attr();                                              \
        (void)fail;                                                                          \
        call_with(NULL, maxs, srcs, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL dsts"); \
        call_with(dsts, NULL, srcs, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM,              \
                  "NULL destMaxs");                                                          \
        call_with(dsts, maxs, NULL, sizes, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL srcs"); \
        call_with(dsts, maxs, srcs, NULL, &attr, idx, ACL_ERROR_INVALID_PARAM, "NULL sizes"); \
        call_with(dsts, maxs, srcs, sizes, NULL, idx, ACL_ERROR_INVALID_PARAM, "NULL attrs"); \
        call_with(dsts, maxs, srcs, sizes, &attr, NULL, ACL_ERROR_INVALID_PARAM,             \
                  "NULL attrsIndexes");                                                      \
        call_with(bad_dst, maxs, srcs, sizes, &attr, idx, ANY_ERROR,                         \
                  "a local variable as device dst");                                         \
        buffers_free(&b);                                                                    \
    } while (0)

#define CALL_BATCH(d, m, s, z, a, i, code, what)                                             \
    REJECTS(aclrtMemcpyBatch(d, m, s, z, 1, a, i, 1, &fail), code, what)
#define CALL_BATCH_V2(d, m, s, z, a, i, code, what)                                          \
    REJECTS(aclrtMemcpyBatchV2(d, m, s, z, 1, a, i, 1), code, what)
#define CALL_BATCH_ASYNC(d, m, s, z, a, i, code, what)                                       \
    REJECTS(aclrtMemcpyBatchAsync(d, m, s, z, 1, a, i, 1, &fail, NULL), code, what)
#define CALL_BATCH_ASYNC_V2(d, m, s, z, a, i, code, what)                                    \
    REJECTS(aclrtMemcpyBatchAsyncV2(d, m, s, z, 1, a, i, 1, NULL), code, what)

ROW(aclrtMemcpyBatch)
{
    BATCH_ROW(CALL_BATCH);
    buffers b = buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0};
    aclrtMemcpyBatchAttr attr = h2d_attr();
    REJECTS(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL failIndex");
    buffers_free(&b);
}

ROW(aclrtMemcpyBatchV2)
{
    BATCH_ROW(CALL_BATCH_V2);
}

ROW(aclrtMemcpyBatchAsync)
{
    BATCH_ROW(CALL_BATCH_ASYNC);
    buffers b = buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0}, fail;
    aclrtMemcpyBatchAttr attr = h2d_attr();
    REJECTS(aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL failIndex");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, &fail, h));
    buffers_free(&b);
}

ROW(aclrtMemcpyBatchAsyncV2)
{
    BATCH_ROW(CALL_BATCH_ASYNC_V2);
    buffers b = buffers_make();
    void *dsts[1] = {b.device}, *srcs[1] = {b.pinned};
    size_t sizes[1] = {64}, idx[1] = {0};
    aclrtMemcpyBatchAttr attr = h2d_attr();
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyBatchAsyncV2(dsts, sizes, srcs, sizes, 1, &attr, idx, 1, h));
    buffers_free(&b);
}

ROW(aclrtMemsetD32)
{
    unsigned char local[64];
    REJECTS(aclrtMemsetD32(NULL, 64, 0, 4), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemsetD32(local, 64, 0, 4), ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtMemsetD32Async)
{
    buffers b = buffers_make();
    REJECTS(aclrtMemsetD32Async(NULL, 64, 0, 4, NULL), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemsetD32Async(b.device, BUF_SIZE, 0, 4, h));
    buffers_free(&b);
}

ROW(aclrtGetMemcpyDescSize)
{
    REJECTS(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL descSize");
}

ROW(aclrtSetMemcpyDesc)
{
    buffers b = buffers_make();
    unsigned char local[64];
    REJECTS(aclrtSetMemcpyDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, b.device, b.device, 8,
                               NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL desc");
    REJECTS(aclrtSetMemcpyDesc(b.device, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL, b.device, 8,
                               NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL srcAddr");
    REJECTS(aclrtSetMemcpyDesc(local, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, b.device, b.device, 8,
                               NULL),
            ANY_ERROR, "a local variable as desc");
    buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithDesc)
{
    buffers b = buffers_make();
    REJECTS(aclrtMemcpyAsyncWithDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL desc");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemcpyAsyncWithDesc(b.device, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, h));
    buffers_free(&b);
}

ROW(aclrtMemcpyAsyncWithOffset)
{
    buffers b = buffers_make();
    unsigned char local[64];
    void *slot = local;
    REJECTS(aclrtMemcpyAsyncWithOffset(NULL, 64, 0, (const void **)b.device, 8, 0,
                                       ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ANY_ERROR, "a NULL dst");
    REJECTS(aclrtMemcpyAsyncWithOffset(&slot, 64, 0, (const void **)b.device, 8, 0,
                                       ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
            ANY_ERROR, "a host slot");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtMemcpyAsyncWithOffset((void **)b.device, 64, 0, (const void **)b.device, 8,
                                            0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, h));
    buffers_free(&b);
}

ROW(aclrtCmoAsync)
{
    buffers b = buffers_make();
    REJECTS(aclrtCmoAsync(NULL, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL src");
    REJECTS(aclrtCmoAsync(b.pinned, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL), ANY_ERROR,
            "host memory");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsync(b.device, 64, ACL_RT_CMO_TYPE_PREFETCH, h));
    buffers_free(&b);
}

ROW(aclrtCmoAsyncWithBarrier)
{
    buffers b = buffers_make();
    REJECTS(aclrtCmoAsyncWithBarrier(NULL, 64, ACL_RT_CMO_TYPE_INVALID, 1, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsyncWithBarrier(b.device, 64, ACL_RT_CMO_TYPE_INVALID, 1, h));
    buffers_free(&b);
}

ROW(aclrtCmoWaitBarrier)
{
    aclrtBarrierTaskInfo info;
    memset(&info, 0, sizeof info);
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 1;
    REJECTS(aclrtCmoWaitBarrier(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL taskInfo");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&info, h, 0));
}

ROW(aclrtCmoGetDescSize)
{
    REJECTS(aclrtCmoGetDescSize(NULL), ACL_ERROR_INVALID_PARAM, "a NULL size");
}

ROW(aclrtCmoSetDesc)
{
    buffers b = buffers_make();
    unsigned char local[64];
    REJECTS(aclrtCmoSetDesc(NULL, b.device, 8), ACL_ERROR_INVALID_PARAM, "a NULL cmoDesc");
    REJECTS(aclrtCmoSetDesc(b.device, NULL, 8), ACL_ERROR_INVALID_PARAM, "a NULL src");
    REJECTS(aclrtCmoSetDesc(local, b.device, 8), ANY_ERROR, "a local variable as cmoDesc");
    buffers_free(&b);
}

ROW(aclrtCmoAsyncWithDesc)
{
    buffers b = buffers_make();
    REJECTS(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, NULL, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL cmoDesc");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtCmoAsyncWithDesc(b.device, ACL_RT_CMO_TYPE_PREFETCH, h, NULL));
    buffers_free(&b);
}

ROW(aclrtDeviceL2CacheFlush)
{
    int local;
    REJECTS(aclrtDeviceL2CacheFlush(&local), ACL_ERROR_INVALID_PARAM, "a non-NULL rsv");
}

ROW(aclrtGetMemUsageInfo)
{
    aclrtMemUsageInfo info[2];
    size_t n;
    REJECTS(aclrtGetMemUsageInfo(0, NULL, 2, &n), ACL_ERROR_INVALID_PARAM, "a NULL memUsageInfo");
    REJECTS(aclrtGetMemUsageInfo(0, info, 2, NULL), ACL_ERROR_INVALID_PARAM, "a NULL outputNum");
}

ROW(aclrtGetMemUceInfo)
{
    aclrtMemUceInfo info[2];
    size_t n;
    REJECTS(aclrtGetMemUceInfo(0, NULL, 2, &n), ACL_ERROR_INVALID_PARAM, "a NULL array");
    REJECTS(aclrtGetMemUceInfo(0, info, 2, NULL), ACL_ERROR_INVALID_PARAM, "a NULL retSize");
}

ROW(aclrtMemUceRepair)
{
    REJECTS(aclrtMemUceRepair(0, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL array");
}

/* ---- memory, complete (#15): virtual memory ---- */

static aclrtPhysicalMemProp vmm_prop(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    return prop;
}

/* Pointers that are no mapping or reservation of ours. */
#define FOR_EACH_BAD_VA(va, call)                                                            \
    do {                                                                                     \
        buffers b_ = buffers_make();                                                         \
        unsigned char local_[64];                                                            \
        void *bad_[] = {NULL, local_, b_.device, b_.pinned, (void *)(uintptr_t)16};          \
        const char *what_[] = {"NULL", "a local variable", "device memory",                  \
                               "page-locked memory", "address 16"};                          \
        for (size_t i_ = 0; i_ < sizeof bad_ / sizeof bad_[0]; i_++) {                       \
            void *va = bad_[i_];                                                             \
            REJECTS(call, ANY_ERROR, what_[i_]);                                             \
        }                                                                                    \
        buffers_free(&b_);                                                                   \
    } while (0)

/* Handles that are no physical memory handle. */
#define FOR_EACH_BAD_PHYS(h, call)                                                           \
    do {                                                                                     \
        aclrtStream s_ = acltest_new_stream();                                               \
        unsigned char local_[64];                                                            \
        aclrtPhysicalMemProp p_ = vmm_prop();                                                \
        aclrtDrvMemHandle freed_;                                                            \
        size_t g_;                                                                           \
        ACL_OK(aclrtMemGetAllocationGranularity(&p_, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g_)); \
        ACL_OK(aclrtMallocPhysical(&freed_, g_, &p_, 0));                                    \
        ACL_OK(aclrtFreePhysical(freed_));                                                   \
        void *bad_[] = {NULL, local_, s_, freed_, (void *)(uintptr_t)16};                    \
        const char *what_[] = {"NULL", "a local variable", "a stream", "a freed handle",     \
                               "address 16"};                                                \
        for (size_t i_ = 0; i_ < sizeof bad_ / sizeof bad_[0]; i_++) {                       \
            aclrtDrvMemHandle h = bad_[i_];                                                  \
            REJECTS(call, ACL_ERROR_INVALID_PARAM, what_[i_]);                               \
        }                                                                                    \
        ACL_OK(aclrtDestroyStream(s_));                                                      \
    } while (0)

ROW(aclrtReserveMemAddress)
{
    REJECTS(aclrtReserveMemAddress(NULL, 4096, 0, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL virPtr");
}

ROW(aclrtReserveMemAddressNoUCMemory)
{
    void *p;
    REJECTS(aclrtReserveMemAddressNoUCMemory(NULL, (size_t)1 << 30, 0, NULL, 0),
            ACL_ERROR_INVALID_PARAM, "a NULL virPtr");
    REJECTS(aclrtReserveMemAddressNoUCMemory(&p, (size_t)1 << 30, 0, NULL, 0),
            ACL_ERROR_INVALID_PARAM, "a NULL expectPtr");
}

ROW(aclrtReleaseMemAddress)
{
    FOR_EACH_BAD_VA(va, aclrtReleaseMemAddress(va));
}

ROW(aclrtMallocPhysical)
{
    aclrtPhysicalMemProp prop = vmm_prop();
    aclrtDrvMemHandle h;
    REJECTS(aclrtMallocPhysical(NULL, 4096, &prop, 0), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(aclrtMallocPhysical(&h, 4096, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL prop");
}

ROW(aclrtFreePhysical)
{
    FOR_EACH_BAD_PHYS(h, aclrtFreePhysical(h));
}

ROW(aclrtMemGetAllocationGranularity)
{
    aclrtPhysicalMemProp prop = vmm_prop();
    size_t g;
    REJECTS(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
            ACL_ERROR_INVALID_PARAM, "a NULL prop");
    REJECTS(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL granularity");
}

ROW(aclrtMapMem)
{
    void *va;
    ACL_OK(aclrtReserveMemAddress(&va, (size_t)2 << 20, 0, NULL, 0));
    FOR_EACH_BAD_PHYS(h, aclrtMapMem(va, (size_t)2 << 20, 0, h, 0));
    aclrtPhysicalMemProp prop = vmm_prop();
    aclrtDrvMemHandle h;
    size_t g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    FOR_EACH_BAD_VA(bad, aclrtMapMem(bad, g, 0, h, 0));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
}

ROW(aclrtMemMapNoAccess)
{
    void *va;
    ACL_OK(aclrtReserveMemAddress(&va, (size_t)2 << 20, 0, NULL, 0));
    FOR_EACH_BAD_PHYS(h, aclrtMemMapNoAccess(va, (size_t)2 << 20, 0, h, 0));
    ACL_OK(aclrtReleaseMemAddress(va));
}

ROW(aclrtUnmapMem)
{
    FOR_EACH_BAD_VA(va, aclrtUnmapMem(va));
}

ROW(aclrtMemSetAccess)
{
    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    FOR_EACH_BAD_VA(va, aclrtMemSetAccess(va, 4096, &desc, 1));
}

ROW(aclrtMemGetAccess)
{
    aclrtMemLocation loc = {.id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flags;
    FOR_EACH_BAD_VA(va, aclrtMemGetAccess(va, &loc, &flags));
}

ROW(aclrtMemRetainAllocationHandle)
{
    aclrtDrvMemHandle h;
    FOR_EACH_BAD_VA(va, aclrtMemRetainAllocationHandle(va, &h));
}

ROW(aclrtMemGetAllocationPropertiesFromHandle)
{
    aclrtPhysicalMemProp prop;
    FOR_EACH_BAD_PHYS(h, aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
}

ROW(aclrtMemGetAddressRange)
{
    void *base;
    size_t size;
    unsigned char local[16];
    REJECTS(aclrtMemGetAddressRange(NULL, &base, &size), ACL_ERROR_INVALID_PARAM, "a NULL ptr");
    REJECTS(aclrtMemGetAddressRange(local, &base, &size), ACL_ERROR_INVALID_PARAM,
            "a local variable");
}

ROW(aclrtMemP2PMap)
{
    unsigned char local[16];
    REJECTS(aclrtMemP2PMap(NULL, 16, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    REJECTS(aclrtMemP2PMap(local, 16, 0, 0), ACL_ERROR_INVALID_PARAM, "a local variable");
}

ROW(aclrtMemMapSelectedLink)
{
    FOR_EACH_BAD_VA(va, aclrtMemMapSelectedLink(va, 4096, va, 0));
}

ROW(aclrtMemMapSetLink)
{
    FOR_EACH_BAD_PHYS(h, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_SIO));
}

ROW(aclrtCheckMemType)
{
    uint32_t result;
    void *addrs[1] = {NULL};
    REJECTS(aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL addrList");
    REJECTS(aclrtCheckMemType(addrs, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL checkResult");
}

ROW(aclrtMallocForTaskScheduler)
{
    REJECTS(aclrtMallocForTaskScheduler(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
}

/* ---- memory, complete (#15): IPC and shareable handles ---- */

ROW(aclrtDeviceGetBareTgid)
{
    REJECTS(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM, "a NULL pid");
}

ROW(aclrtIpcMemGetExportKey)
{
    buffers b = buffers_make();
    unsigned char local[64];
    char key[65];
    REJECTS(aclrtIpcMemGetExportKey(NULL, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    REJECTS(aclrtIpcMemGetExportKey(b.device, 64, NULL, 65, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL key");
    REJECTS(aclrtIpcMemGetExportKey(local, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM,
            "a local variable");
    REJECTS(aclrtIpcMemGetExportKey(b.pinned, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM,
            "page-locked memory");
    buffers_free(&b);
}

/* Keys that are none of ours. */
static const char *const bad_keys[] = {"", "x", "acl-cuda-ipc:1:2:3",
                                       "acl-cuda-ipc:2147483647:ffffffffff:ffffffffffffffff"};

ROW(aclrtIpcMemSetImportPid)
{
    int32_t pid = 1;
    REJECTS(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS(aclrtIpcMemSetImportPid(bad_keys[i], &pid, 1), ACL_ERROR_INVALID_PARAM,
                bad_keys[i]);
}

ROW(aclrtIpcMemImportPidInterServer)
{
    int32_t pid = 1;
    aclrtServerPid servers = {.sdid = 0, .pid = &pid, .num = 1};
    REJECTS(aclrtIpcMemImportPidInterServer(NULL, &servers, 1), ANY_ERROR, "a NULL key");
    REJECTS(aclrtIpcMemImportPidInterServer("x", NULL, 1), ANY_ERROR, "NULL serverPids");
    REJECTS(aclrtIpcMemImportPidInterServer("x", &servers, 1), ACL_ERROR_INVALID_PARAM,
            "an unknown key");
}

ROW(aclrtIpcMemImportByKey)
{
    void *p;
    REJECTS(aclrtIpcMemImportByKey(NULL, "x", 0), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    REJECTS(aclrtIpcMemImportByKey(&p, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS(aclrtIpcMemImportByKey(&p, bad_keys[i], 0), ACL_ERROR_INVALID_PARAM, bad_keys[i]);
}

ROW(aclrtIpcMemSetAttr)
{
    REJECTS(aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0), ANY_ERROR, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS(aclrtIpcMemSetAttr(bad_keys[i], ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0),
                ACL_ERROR_INVALID_PARAM, bad_keys[i]);
}

ROW(aclrtIpcMemClose)
{
    REJECTS(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS(aclrtIpcMemClose(bad_keys[i]), ACL_ERROR_INVALID_PARAM, bad_keys[i]);
}

ROW(aclrtIpcGetEventHandle)
{
    aclrtIpcEventHandle handle;
    aclrtEvent e = new_event(ACL_EVENT_SYNC);
    REJECTS(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(aclrtIpcGetEventHandle(e, &handle), ACL_ERROR_INVALID_PARAM, "an event without IPC");
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(h, &handle));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtIpcOpenEventHandle)
{
    aclrtIpcEventHandle handle;
    aclrtEvent e;
    memset(&handle, 0, sizeof handle);
    REJECTS(aclrtIpcOpenEventHandle(handle, NULL), ACL_ERROR_INVALID_PARAM, "a NULL event");
    REJECTS(aclrtIpcOpenEventHandle(handle, &e), ANY_ERROR, "a handle of zeros");
    memset(&handle, 0x5A, sizeof handle);
    REJECTS(aclrtIpcOpenEventHandle(handle, &e), ANY_ERROR, "a handle of garbage");
}

ROW(aclrtMemExportToShareableHandle)
{
    uint64_t shareable;
    FOR_EACH_BAD_PHYS(h, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0,
                                                         &shareable));
}

ROW(aclrtMemExportToShareableHandleV2)
{
    uint64_t shareable;
    FOR_EACH_BAD_PHYS(h, aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT,
                                                           &shareable));
}

ROW(aclrtMemImportFromShareableHandle)
{
    aclrtDrvMemHandle h;
    REJECTS(aclrtMemImportFromShareableHandle(1, 0, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL handle");
    REJECTS(aclrtMemImportFromShareableHandle(UINT64_MAX, 0, &h), ANY_ERROR,
            "a shareable handle of nobody");
}

ROW(aclrtMemImportFromShareableHandleV2)
{
    aclrtDrvMemHandle h;
    uint64_t shareable = UINT64_MAX;
    REJECTS(aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h),
            ACL_ERROR_INVALID_PARAM, "a NULL shareableHandle");
    REJECTS(aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0,
                                                NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS(aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0,
                                                &h),
            ANY_ERROR, "a shareable handle of nobody");
}

ROW(aclrtMemSetPidToShareableHandle)
{
    int32_t pid = 1;
    REJECTS(aclrtMemSetPidToShareableHandle(1, NULL, 1), ACL_ERROR_INVALID_PARAM, "a NULL pid");
    REJECTS(aclrtMemSetPidToShareableHandle(UINT64_MAX, &pid, 1), ACL_ERROR_INVALID_PARAM,
            "a shareable handle of nobody");
}

ROW(aclrtMemSetPidToShareableHandleV2)
{
    int32_t pid = 1;
    uint64_t shareable = UINT64_MAX;
    REJECTS(aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1),
            ACL_ERROR_INVALID_PARAM, "a NULL shareableHandle");
    REJECTS(aclrtMemSetPidToShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL,
                                              1),
            ACL_ERROR_INVALID_PARAM, "a NULL pid");
    REJECTS(aclrtMemSetPidToShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid,
                                              1),
            ACL_ERROR_INVALID_PARAM, "a shareable handle of nobody");
}

typedef struct row {
    const char *name;
    void (*run)(void);
} row;

#define ROW_ENTRY(name) {#name, row_##name}

static const row rows[] = {
    ROW_ENTRY(aclAppLog),
    ROW_ENTRY(aclCreateDataBuffer),
    ROW_ENTRY(aclDestroyDataBuffer),
    ROW_ENTRY(aclFinalizeCallbackRegister),
    ROW_ENTRY(aclFinalizeCallbackUnRegister),
    ROW_ENTRY(aclFinalizeReference),
    ROW_ENTRY(aclGetDataBufferAddr),
    ROW_ENTRY(aclGetDataBufferSize),
    ROW_ENTRY(aclGetDataBufferSizeV2),
    ROW_ENTRY(aclGetDeviceCapability),
    ROW_ENTRY(aclInit),
    ROW_ENTRY(aclInitCallbackRegister),
    ROW_ENTRY(aclInitCallbackUnRegister),
    ROW_ENTRY(aclUpdateDataBuffer),
    ROW_ENTRY(aclcudaGetNativeEvent),
    ROW_ENTRY(aclcudaGetNativeStream),
    ROW_ENTRY(aclcudaSynchronizeEventSlice),
    ROW_ENTRY(aclcudaSynchronizeStreamSlice),
    ROW_ENTRY(aclrtCreateContext),
    ROW_ENTRY(aclrtCreateEvent),
    ROW_ENTRY(aclrtCreateEventExWithFlag),
    ROW_ENTRY(aclrtCreateEventWithFlag),
    ROW_ENTRY(aclrtCreateStream),
    ROW_ENTRY(aclrtCreateStreamWithConfig),
    ROW_ENTRY(aclrtCtxGetCurrentDefaultStream),
    ROW_ENTRY(aclrtCtxGetSysParamOpt),
    ROW_ENTRY(aclrtDestroyContext),
    ROW_ENTRY(aclrtDestroyEvent),
    ROW_ENTRY(aclrtDestroyStream),
    ROW_ENTRY(aclrtDestroyStreamForce),
    ROW_ENTRY(aclrtDeviceCanAccessPeer),
    ROW_ENTRY(aclrtDeviceGetStreamPriorityRange),
    ROW_ENTRY(aclrtDeviceGetUuid),
    ROW_ENTRY(aclrtDevicePeerAccessStatus),
    ROW_ENTRY(aclrtEventElapsedTime),
    ROW_ENTRY(aclrtFree),
    ROW_ENTRY(aclrtFreeHost),
    ROW_ENTRY(aclrtFreeHostWithDevSync),
    ROW_ENTRY(aclrtFreeWithDevSync),
    ROW_ENTRY(aclrtGetCurrentContext),
    ROW_ENTRY(aclrtGetDevice),
    ROW_ENTRY(aclrtGetDeviceCapability),
    ROW_ENTRY(aclrtGetDeviceCount),
    ROW_ENTRY(aclrtGetDeviceIdFromExceptionInfo),
    ROW_ENTRY(aclrtGetDeviceInfo),
    ROW_ENTRY(aclrtGetDeviceSatMode),
    ROW_ENTRY(aclrtGetDeviceUtilizationRate),
    ROW_ENTRY(aclrtGetErrorCodeFromExceptionInfo),
    ROW_ENTRY(aclrtGetEventAvailNum),
    ROW_ENTRY(aclrtGetEventId),
    ROW_ENTRY(aclrtGetLogicDevIdByPhyDevId),
    ROW_ENTRY(aclrtGetLogicDevIdByUserDevId),
    ROW_ENTRY(aclrtGetMemInfo),
    ROW_ENTRY(aclrtGetOpExecuteTimeout),
    ROW_ENTRY(aclrtGetOpTimeOutInterval),
    ROW_ENTRY(aclrtGetPhyDevIdByLogicDevId),
    ROW_ENTRY(aclrtGetPrimaryCtxState),
    ROW_ENTRY(aclrtGetRunMode),
    ROW_ENTRY(aclrtGetStreamAttribute),
    ROW_ENTRY(aclrtGetStreamAvailableNum),
    ROW_ENTRY(aclrtGetStreamIdFromExceptionInfo),
    ROW_ENTRY(aclrtGetStreamOverflowSwitch),
    ROW_ENTRY(aclrtGetSysParamOpt),
    ROW_ENTRY(aclrtGetTaskIdFromExceptionInfo),
    ROW_ENTRY(aclrtGetThreadIdFromExceptionInfo),
    ROW_ENTRY(aclrtGetUserDevIdByLogicDevId),
    ROW_ENTRY(aclrtGetVersion),
    ROW_ENTRY(aclrtLaunchCallback),
    ROW_ENTRY(aclrtLaunchHostFunc),
    ROW_ENTRY(aclrtMalloc),
    ROW_ENTRY(aclrtMallocAlign32),
    ROW_ENTRY(aclrtMallocCached),
    ROW_ENTRY(aclrtMallocHost),
    ROW_ENTRY(aclrtMallocHostWithCfg),
    ROW_ENTRY(aclrtMallocWithCfg),
    ROW_ENTRY(aclrtMemFlush),
    ROW_ENTRY(aclrtMemInvalidate),
    ROW_ENTRY(aclrtMemcpy),
    ROW_ENTRY(aclrtMemcpy2d),
    ROW_ENTRY(aclrtMemcpy2dAsync),
    ROW_ENTRY(aclrtMemcpyAsync),
    ROW_ENTRY(aclrtMemcpyAsyncWithCondition),
    ROW_ENTRY(aclrtMemset),
    ROW_ENTRY(aclrtMemsetAsync),
    ROW_ENTRY(aclrtPointerGetAttributes),
    ROW_ENTRY(aclrtQueryDeviceStatus),
    ROW_ENTRY(aclrtQueryEvent),
    ROW_ENTRY(aclrtQueryEventStatus),
    ROW_ENTRY(aclrtQueryEventWaitStatus),
    ROW_ENTRY(aclrtRecordEvent),
    ROW_ENTRY(aclrtResetEvent),
    ROW_ENTRY(aclrtSetCurrentContext),
    ROW_ENTRY(aclrtSetExceptionInfoCallback),
    ROW_ENTRY(aclrtSetOpExecuteTimeOutV2),
    ROW_ENTRY(aclrtSetStreamAttribute),
    ROW_ENTRY(aclrtSetStreamFailureMode),
    ROW_ENTRY(aclrtSetStreamOverflowSwitch),
    ROW_ENTRY(aclrtStreamGetFlags),
    ROW_ENTRY(aclrtStreamGetId),
    ROW_ENTRY(aclrtStreamGetPriority),
    ROW_ENTRY(aclrtStreamQuery),
    ROW_ENTRY(aclrtStreamWaitEvent),
    ROW_ENTRY(aclrtStreamWaitEventWithTimeout),
    ROW_ENTRY(aclrtSubscribeReport),
    ROW_ENTRY(aclrtSynchronizeEvent),
    ROW_ENTRY(aclrtSynchronizeEventWithTimeout),
    ROW_ENTRY(aclrtSynchronizeStream),
    ROW_ENTRY(aclrtSynchronizeStreamWithTimeout),
    ROW_ENTRY(aclrtUnSubscribeReport),
    ROW_ENTRY(aclsysGetCANNVersion),
    ROW_ENTRY(aclsysGetVersionNum),
    ROW_ENTRY(aclsysGetVersionStr),
    /* memory, complete (#15) */
    ROW_ENTRY(aclrtMemcpyBatch),
    ROW_ENTRY(aclrtMemcpyBatchV2),
    ROW_ENTRY(aclrtMemcpyBatchAsync),
    ROW_ENTRY(aclrtMemcpyBatchAsyncV2),
    ROW_ENTRY(aclrtMemsetD32),
    ROW_ENTRY(aclrtMemsetD32Async),
    ROW_ENTRY(aclrtGetMemcpyDescSize),
    ROW_ENTRY(aclrtSetMemcpyDesc),
    ROW_ENTRY(aclrtMemcpyAsyncWithDesc),
    ROW_ENTRY(aclrtMemcpyAsyncWithOffset),
    ROW_ENTRY(aclrtCmoAsync),
    ROW_ENTRY(aclrtCmoAsyncWithBarrier),
    ROW_ENTRY(aclrtCmoWaitBarrier),
    ROW_ENTRY(aclrtCmoGetDescSize),
    ROW_ENTRY(aclrtCmoSetDesc),
    ROW_ENTRY(aclrtCmoAsyncWithDesc),
    ROW_ENTRY(aclrtDeviceL2CacheFlush),
    ROW_ENTRY(aclrtGetMemUsageInfo),
    ROW_ENTRY(aclrtGetMemUceInfo),
    ROW_ENTRY(aclrtMemUceRepair),
    ROW_ENTRY(aclrtReserveMemAddress),
    ROW_ENTRY(aclrtReserveMemAddressNoUCMemory),
    ROW_ENTRY(aclrtReleaseMemAddress),
    ROW_ENTRY(aclrtMallocPhysical),
    ROW_ENTRY(aclrtFreePhysical),
    ROW_ENTRY(aclrtMemGetAllocationGranularity),
    ROW_ENTRY(aclrtMapMem),
    ROW_ENTRY(aclrtMemMapNoAccess),
    ROW_ENTRY(aclrtUnmapMem),
    ROW_ENTRY(aclrtMemSetAccess),
    ROW_ENTRY(aclrtMemGetAccess),
    ROW_ENTRY(aclrtMemRetainAllocationHandle),
    ROW_ENTRY(aclrtMemGetAllocationPropertiesFromHandle),
    ROW_ENTRY(aclrtMemGetAddressRange),
    ROW_ENTRY(aclrtMemP2PMap),
    ROW_ENTRY(aclrtMemMapSelectedLink),
    ROW_ENTRY(aclrtMemMapSetLink),
    ROW_ENTRY(aclrtCheckMemType),
    ROW_ENTRY(aclrtMallocForTaskScheduler),
    ROW_ENTRY(aclrtDeviceGetBareTgid),
    ROW_ENTRY(aclrtIpcMemGetExportKey),
    ROW_ENTRY(aclrtIpcMemSetImportPid),
    ROW_ENTRY(aclrtIpcMemImportPidInterServer),
    ROW_ENTRY(aclrtIpcMemImportByKey),
    ROW_ENTRY(aclrtIpcMemSetAttr),
    ROW_ENTRY(aclrtIpcMemClose),
    ROW_ENTRY(aclrtIpcGetEventHandle),
    ROW_ENTRY(aclrtIpcOpenEventHandle),
    ROW_ENTRY(aclrtMemExportToShareableHandle),
    ROW_ENTRY(aclrtMemExportToShareableHandleV2),
    ROW_ENTRY(aclrtMemImportFromShareableHandle),
    ROW_ENTRY(aclrtMemImportFromShareableHandleV2),
    ROW_ENTRY(aclrtMemSetPidToShareableHandle),
    ROW_ENTRY(aclrtMemSetPidToShareableHandleV2),
};

enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

/* ---- tests ------------------------------------------------------------------------------- */

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

START_TEST(bad_arguments)
{
    rows[_i].run();
    /* The library is still whole: a stream, a copy and a sync work. */
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
    (void)aclGetRecentErrMsg();
}
END_TEST

/* The API table (src/api/api.def): name, status and argument kinds of every
 * public function. */
struct api_row {
    const char *name;
    const char *status;
    const char *args;
};

#define ACL_API(name, header, area, status, args, ret, params, fail) {#name, #status, #args},
static const struct api_row api_rows[] = {
#include "api/api.def"
};
#undef ACL_API

enum { API_ROW_COUNT = sizeof api_rows / sizeof api_rows[0] };

static const struct api_row *api_row(const char *name)
{
    for (size_t i = 0; i < API_ROW_COUNT; i++)
        if (strcmp(name, api_rows[i].name) == 0)
            return &api_rows[i];
    return NULL;
}

static bool in_table(const char *name)
{
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (strcmp(name, rows[i].name) == 0)
            return true;
    return false;
}

/* Every implemented function with a handle or pointer parameter (args other
 * than ARGS_NONE in the API table) has a row, and every row names an
 * implemented function that takes one. */
START_TEST(table_covers_implemented_functions)
{
    size_t implemented = 0;
    for (size_t i = 0; i < API_ROW_COUNT; i++) {
        const struct api_row *api = &api_rows[i];
        if (strcmp(api->status, "IMPLEMENTED") != 0)
            continue;
        implemented++;
        bool needs_row = strcmp(api->args, "ARGS_NONE") != 0;
        ck_assert_msg(!needs_row || in_table(api->name),
                      "%s is implemented and takes a handle or pointer (%s) but has no row in the "
                      "robustness table",
                      api->name, api->args);
        ck_assert_msg(needs_row || !in_table(api->name),
                      "%s has a row but its API table row says ARGS_NONE", api->name);
    }
    ck_assert_uint_gt(implemented, ROW_COUNT);
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const struct api_row *api = api_row(rows[i].name);
        ck_assert_msg(api != NULL, "row %s names no function of src/api/api.def", rows[i].name);
        ck_assert_msg(strcmp(api->status, "IMPLEMENTED") == 0,
                      "row %s names a function that is not implemented", rows[i].name);
    }
}
END_TEST

static void assert_filled(const unsigned char *buf, size_t n, unsigned char value)
{
    size_t i = 0;
    while (i < n && buf[i] == value)
        i++;
    ck_assert_msg(i == n, "byte %zu is 0x%02x, expected 0x%02x", i, i < n ? buf[i] : 0, value);
}

/* Work queued behind a closed gate survives a barrage of bad calls, many of
 * them naming its stream or its memory, and then runs with the right data. */
START_TEST(bad_calls_keep_queued_work)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    aclrtEvent done = new_event(ACL_EVENT_SYNC);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0x5A, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtRecordEvent(done, stream));
    acltest_gate_wait_reached(&gate);

    unsigned char local[BUF_SIZE];
    REJECTS(aclrtMemcpyAsync(dev, BUF_SIZE, host, 2 * BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ANY_ERROR, "a count beyond destMax");
    REJECTS(aclrtMemcpyAsync(dev, 2 * BUF_SIZE, host, 2 * BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE,
                             stream),
            ACL_ERROR_INVALID_PARAM, "a copy past the end of both buffers");
    REJECTS(aclrtMemcpyAsync(local, BUF_SIZE, dev, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
            ACL_ERROR_INVALID_PARAM, "a local variable as device dst");
    REJECTS(aclrtMemcpyAsync(NULL, BUF_SIZE, dev, 16, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtMemcpyAsync(host, BUF_SIZE, dev, 16, (aclrtMemcpyKind)77, stream),
            ACL_ERROR_INVALID_PARAM, "an unknown kind");
    REJECTS(aclrtMemsetAsync((char *)dev + 64, BUF_SIZE, 1, BUF_SIZE, stream),
            ACL_ERROR_INVALID_PARAM, "a fill past the end");
    REJECTS(aclrtMemcpy2dAsync(dev, 16, host, 16, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_ERROR_INVALID_PARAM, "a width beyond the pitch");
    REJECTS(aclrtLaunchHostFunc(stream, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL function");
    REJECTS(aclrtLaunchCallback(host_func_noop, NULL, ACL_CALLBACK_BLOCK, stream),
            ACL_ERROR_RT_STREAM_NO_CB_REG, "no report thread");
    REJECTS(aclrtStreamWaitEvent(stream, (aclrtEvent)stream), ACL_ERROR_INVALID_PARAM,
            "the stream as an event");
    REJECTS(aclrtRecordEvent((aclrtEvent)stream, stream), ACL_ERROR_INVALID_PARAM,
            "the stream as an event");
    REJECTS(aclrtSetStreamFailureMode(stream, 99), ACL_ERROR_INVALID_PARAM, "an unknown mode");
    REJECTS(aclrtFree(host), ACL_ERROR_INVALID_PARAM, "page-locked memory");
    REJECTS(aclrtFree((char *)dev + 32), ACL_ERROR_INVALID_PARAM, "an interior pointer");
    REJECTS(aclrtFreeHost(dev), ACL_ERROR_INVALID_PARAM, "device memory");
    REJECTS(aclrtFree(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtDestroyEvent(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtDestroyContext(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclrtSetCurrentContext(stream), ACL_ERROR_INVALID_PARAM, "a stream handle");
    REJECTS(aclDestroyDataBuffer((aclDataBuffer *)stream), ACL_ERROR_INVALID_PARAM,
            "a stream handle");
    REJECTS(aclrtDestroyStream(dev), ACL_ERROR_INVALID_PARAM, "device memory");
    REJECTS(aclrtSynchronizeStreamWithTimeout(stream, -5), ANY_ERROR, "a timeout below -1");

    /* The whole table as well, where that cannot wait on the gate: on CUDA
     * freeing device memory waits for the device, which the gate holds. */
    if (on_host_backend())
        for (size_t i = 0; i < ROW_COUNT; i++)
            rows[i].run();

    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    ACL_OK(aclrtStreamQuery(stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    acltest_gate_open(&gate);
    ACL_OK(aclrtSynchronizeEvent(done));
    assert_filled(host, BUF_SIZE, 0x5A);

    /* The stream still takes work. */
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, 0xA5, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0xA5);
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    (void)aclGetRecentErrMsg();
}
END_TEST

/* Queues "fill dev with value, copy it to host" on stream. */
static void queue_fill_and_read(aclrtStream stream, void *dev, void *host, unsigned char value)
{
    ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, stream));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
}

/* aclrtDestroyStreamForce does not wait for queued work. Whether that work
 * still runs is the backend's affair, but the handle is gone at once, a
 * record queued before it is not left half-done, and nothing else breaks. */
START_TEST(stream_destroyed_with_work_queued)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    aclrtEvent done = new_event(ACL_EVENT_SYNC);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    queue_fill_and_read(stream, dev, host, 0x3C);
    ACL_OK(aclrtRecordEvent(done, stream));
    acltest_gate_wait_reached(&gate);

    ACL_OK(aclrtDestroyStreamForce(stream));
    REJECTS(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM, "the destroyed stream");
    REJECTS(aclrtMemsetAsync(dev, BUF_SIZE, 0, BUF_SIZE, stream), ACL_ERROR_INVALID_PARAM,
            "the destroyed stream");
    acltest_gate_open(&gate);
    if (aclrtSynchronizeEventWithTimeout(done, 30000) == ACL_SUCCESS)
        assert_filled(host, BUF_SIZE, 0x3C);
    (void)aclGetRecentErrMsg();

    aclrtStream next = acltest_new_stream();
    queue_fill_and_read(next, dev, host, 0xC3);
    ACL_OK(aclrtSynchronizeStream(next));
    assert_filled(host, BUF_SIZE, 0xC3);
    ACL_OK(aclrtDestroyStream(next));
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

/* A stream made after another was destroyed with work still held never
 * waits for that work (the cuda backend hands out only idle streams again). */
START_TEST(new_stream_does_not_inherit_held_work)
{
    aclrtStream held = acltest_new_stream();
    /* Static: nothing can wait for the destroyed stream, so the gate body
     * may still be returning when this test has. */
    static acltest_gate gate;
    acltest_gate_close(&gate, held);
    acltest_gate_wait_reached(&gate);
    ACL_OK(aclrtDestroyStreamForce(held));

    void *dev = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 4; i++) {
        aclrtStream fresh = acltest_new_stream();
        ACL_OK(aclrtMemsetAsync(dev, BUF_SIZE, i, BUF_SIZE, fresh));
        ACL_OK(aclrtSynchronizeStreamWithTimeout(fresh, 10000));
        ACL_OK(aclrtDestroyStream(fresh));
    }
    acltest_gate_open(&gate);
    ACL_OK(aclrtFree(dev));
}
END_TEST

typedef struct context_destroyer {
    aclrtContext context;
    aclError result;
} context_destroyer;

static void *destroy_context(void *arg)
{
    context_destroyer *d = arg;
    d->result = aclrtSetCurrentContext(d->context);
    if (d->result == ACL_SUCCESS)
        d->result = aclrtDestroyContext(d->context);
    return NULL;
}

/* A context destroyed (on another thread) while its stream holds work:
 * the destroy waits for the work, which completes with the right data. */
START_TEST(context_destroyed_with_work_queued)
{
    aclrtContext primary = NULL, context = NULL;
    ACL_OK(aclrtGetCurrentContext(&primary));
    ACL_OK(aclrtCreateContext(&context, 0));
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    memset(host, 0, BUF_SIZE);
    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    queue_fill_and_read(stream, dev, host, 0x77);
    acltest_gate_wait_reached(&gate);

    context_destroyer d = {context, ACL_ERROR_INVALID_PARAM};
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, destroy_context, &d), 0);
    acltest_gate_open(&gate);
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    ck_assert_int_eq(d.result, ACL_SUCCESS);
    assert_filled(host, BUF_SIZE, 0x77);

    REJECTS(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM, "a stream of a destroyed context");
    REJECTS(aclrtSetCurrentContext(context), ACL_ERROR_INVALID_PARAM, "a destroyed context");
    ACL_OK(aclrtSetCurrentContext(primary));
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0x12, BUF_SIZE));
    ACL_OK(aclrtMemcpy(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_filled(host, BUF_SIZE, 0x12);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

/* ---- exhaustion ------------------------------------------------------------------------- */

/* Device memory runs out: allocations fail with a message, other work goes
 * on, and freeing makes room again. The host backend's "device" memory is
 * capped by ACLCUDA_HOST_DEVICE_MEMORY, read before the first ACL call;
 * elsewhere only an absurd request is sure to fail. */
START_TEST(memory_exhausted)
{
    enum { BLOCK = 64 * 1024, MAX_BLOCKS = 64 };
    ck_assert_int_eq(setenv("ACLCUDA_HOST_DEVICE_MEMORY", "1M", 1), 0);
    ACL_OK(aclrtSetDevice(0));
    void *blocks[MAX_BLOCKS];
    size_t n = 0;
    if (on_host_backend()) {
        aclError ret = ACL_SUCCESS;
        while (n < MAX_BLOCKS && ret == ACL_SUCCESS) {
            (void)aclGetRecentErrMsg();
            ret = aclrtMalloc(&blocks[n], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY);
            if (ret == ACL_SUCCESS)
                n++;
        }
        ck_assert_int_eq(ret, ACL_ERROR_RT_MEMORY_ALLOCATION);
        ck_assert_ptr_nonnull(aclGetRecentErrMsg());
        ck_assert_uint_gt(n, 1);
        void *p = NULL;
        REJECTS(aclrtMallocAlign32(&p, BLOCK, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory left");
        ACL_OK(aclrtFree(blocks[--n]));
        ACL_OK(aclrtMalloc(&blocks[n++], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY));
    } else {
        ACL_OK(aclrtMalloc(&blocks[n++], BLOCK, ACL_MEM_MALLOC_NORMAL_ONLY));
    }
    void *p = NULL;
    REJECTS(aclrtMalloc(&p, (size_t)1 << 50, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION, "a petabyte");
    REJECTS(aclrtMallocHost(&p, (size_t)1 << 50), ANY_ERROR, "a petabyte of host memory");

    /* Still usable with the memory full. */
    void *host = NULL;
    ACL_OK(aclrtMallocHost(&host, BLOCK));
    aclrtStream stream = acltest_new_stream();
    ACL_OK(aclrtMemsetAsync(blocks[0], BLOCK, 0x42, BLOCK, stream));
    ACL_OK(aclrtMemcpyAsync(host, BLOCK, blocks[0], BLOCK, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BLOCK, 0x42);
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFreeHost(host));
    while (n > 0)
        ACL_OK(aclrtFree(blocks[--n]));
    size_t free_bytes = 0, total_bytes = 0;
    ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
    if (on_host_backend())
        ck_assert_uint_eq(free_bytes, total_bytes);
    ACL_OK(aclrtResetDevice(0));
}
END_TEST

/* Thousands of live handles: all usable, all destroyed in an interleaved
 * order, and every one of them rejected afterwards. */
START_TEST(thousands_of_handles)
{
    enum { STREAMS = 1000, EVENTS = 4000, BUFFERS = 4000, BUSY = 8 };
    uint32_t events_before = 0, events_after = 0;
    ACL_OK(aclrtGetEventAvailNum(&events_before));
    aclrtStream *streams = calloc(STREAMS, sizeof *streams);
    aclrtEvent *events = calloc(EVENTS, sizeof *events);
    aclDataBuffer **data = calloc(BUFFERS, sizeof *data);
    ck_assert(streams && events && data);
    for (size_t i = 0; i < STREAMS; i++)
        streams[i] = acltest_new_stream();
    for (size_t i = 0; i < EVENTS; i++)
        events[i] = new_event(ACL_EVENT_SYNC);
    for (size_t i = 0; i < BUFFERS; i++) {
        data[i] = aclCreateDataBuffer(&data[i], i);
        ck_assert_ptr_nonnull(data[i]);
    }

    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUSY * BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUSY * BUF_SIZE));
    for (size_t i = 0; i < BUSY; i++) {
        aclrtStream s = streams[i * (STREAMS / BUSY)];
        queue_fill_and_read(s, (char *)dev + i * BUF_SIZE, (char *)host + i * BUF_SIZE,
                            (unsigned char)(i + 1));
    }
    for (size_t i = 0; i < EVENTS; i++)
        ACL_OK(aclrtRecordEvent(events[i], streams[(i % BUSY) * (STREAMS / BUSY)]));
    for (size_t i = 0; i < EVENTS; i++)
        ACL_OK(aclrtSynchronizeEvent(events[i]));
    for (size_t i = 0; i < BUSY; i++)
        assert_filled((unsigned char *)host + i * BUF_SIZE, BUF_SIZE, (unsigned char)(i + 1));

    /* Odd ones first: the survivors must still be found among the holes. */
    for (size_t pass = 0; pass < 2; pass++) {
        for (size_t i = 1 - pass; i < EVENTS; i += 2)
            ACL_OK(aclrtDestroyEvent(events[i]));
        for (size_t i = 1 - pass; i < BUFFERS; i += 2)
            ACL_OK(aclDestroyDataBuffer(data[i]));
        for (size_t i = 1 - pass; i < STREAMS; i += 2)
            ACL_OK(aclrtDestroyStream(streams[i]));
        if (pass == 0) {
            uint32_t id;
            int32_t stream_id;
            for (size_t i = 0; i < EVENTS; i += 2)
                ACL_OK(aclrtGetEventId(events[i], &id));
            for (size_t i = 0; i < BUFFERS; i += 2)
                ck_assert_uint_eq(aclGetDataBufferSizeV2(data[i]), i);
            for (size_t i = 0; i < STREAMS; i += 2)
                ACL_OK(aclrtStreamGetId(streams[i], &stream_id));
        }
    }
    for (size_t i = 0; i < EVENTS; i++)
        REJECTS(aclrtDestroyEvent(events[i]), ACL_ERROR_INVALID_PARAM, "a destroyed event");
    for (size_t i = 0; i < BUFFERS; i++)
        REJECTS(aclDestroyDataBuffer(data[i]), ACL_ERROR_INVALID_PARAM, "a destroyed buffer");
    for (size_t i = 0; i < STREAMS; i++)
        REJECTS(aclrtDestroyStream(streams[i]), ACL_ERROR_INVALID_PARAM, "a destroyed stream");
    ACL_OK(aclrtGetEventAvailNum(&events_after));
    ck_assert_uint_eq(events_after, events_before);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
    free(streams);
    free(events);
    free(data);
}
END_TEST

/* A program that never reads its error messages does not grow without
 * bound, and reading them afterwards still works. */
START_TEST(unread_error_messages_stay_bounded)
{
    enum { FAILURES = 5000 };
    (void)aclGetRecentErrMsg();
    size_t failed = 0;
    for (size_t i = 0; i < FAILURES; i++)
        failed += aclrtDestroyStream(NULL) != ACL_SUCCESS;
    ck_assert_uint_eq(failed, FAILURES);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_lt(strlen(msg), (size_t)1 << 20);
    ck_assert_ptr_null(aclGetRecentErrMsg());
}
END_TEST

/* ---- fork ---------------------------------------------------------------------------------- */

/* What the forked child reports through its exit status (other statuses
 * come from a checker such as valgrind finding errors in the child). */
enum { CHILD_WORKED = 0, CHILD_FAILED_CLEANLY = 10, CHILD_NO_MESSAGE = 11, CHILD_WRONG_DATA = 12,
       CHILD_SECONDS = 20 };

/* The worse of two child outcomes. */
static int worse(int a, int b)
{
    return a >= b ? a : b; /* the codes are in order of badness */
}

/* A step in the child: it works, or it fails with a message. */
static int child_step(aclError ret)
{
    if (ret == ACL_SUCCESS)
        return CHILD_WORKED;
    return aclGetRecentErrMsg() ? CHILD_FAILED_CLEANLY : CHILD_NO_MESSAGE;
}

/* Fill and read back through a stream; the data must be right if every
 * step claimed success. */
static int child_round_trip(aclrtStream stream, void *dev, unsigned char *host, unsigned char value)
{
    memset(host, 0, BUF_SIZE);
    int result = child_step(aclrtMemsetAsync(dev, BUF_SIZE, value, BUF_SIZE, stream));
    if (result == CHILD_WORKED)
        result = child_step(aclrtMemcpyAsync(host, BUF_SIZE, dev, BUF_SIZE,
                                             ACL_MEMCPY_DEVICE_TO_HOST, stream));
    if (result == CHILD_WORKED)
        result = child_step(aclrtSynchronizeStream(stream));
    if (result == CHILD_WORKED)
        for (size_t i = 0; i < BUF_SIZE; i++)
            if (host[i] != value)
                return CHILD_WRONG_DATA;
    return result;
}

/* Runs in the child; an alarm turns a hang into SIGALRM. No Check calls:
 * the child must leave through _exit with its verdict. Check's own SIGALRM
 * handler (inherited) would kill the whole process group instead. */
static int child_body(aclrtStream inherited, void *dev, unsigned char *host)
{
    signal(SIGALRM, SIG_DFL);
    alarm(CHILD_SECONDS);
    int result = child_step(aclrtSetDevice(0));
    if (result != CHILD_WORKED)
        return result;
    aclrtStream fresh = NULL;
    int step = child_step(aclrtCreateStream(&fresh));
    result = worse(result, step);
    if (step == CHILD_WORKED) {
        result = worse(result, child_round_trip(fresh, dev, host, 0x33));
        result = worse(result, child_step(aclrtDestroyStream(fresh)));
    }
    result = worse(result, child_round_trip(NULL, dev, host, 0x44));
    result = worse(result, child_round_trip(inherited, dev, host, 0x55));
    result = worse(result, child_step(aclrtSynchronizeDevice()));
    result = worse(result, child_step(aclrtResetDevice(0)));
    return result;
}

/* The parent has a stream whose worker is busy (inside a host function,
 * holding no lock) when it forks. The child sets the device and uses a new
 * stream, the default stream and the inherited one: each must work with the
 * right data or fail with an error code and a message; it must not hang or
 * crash. The parent is unaffected. */
START_TEST(forked_child_works_or_fails_cleanly)
{
    aclrtStream stream = acltest_new_stream();
    void *dev = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    queue_fill_and_read(stream, dev, host, 0x11);
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0x11);
    ACL_OK(aclrtMemset(dev, BUF_SIZE, 0, BUF_SIZE));

    acltest_gate gate;
    acltest_gate_close(&gate, stream);
    acltest_gate_wait_reached(&gate);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(child_body(stream, dev, host));

    acltest_gate_open(&gate);
    queue_fill_and_read(stream, dev, host, 0x22);
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, 0x22);

    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        ck_abort_msg("the child %s (signal %d)",
                     WTERMSIG(status) == SIGALRM ? "hung" : "crashed", WTERMSIG(status));
    ck_assert(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    ck_assert_msg(code != CHILD_WRONG_DATA, "a copy in the child claimed success with wrong data");
    ck_assert_msg(code != CHILD_NO_MESSAGE, "a call in the child failed without a message");
    ck_assert_msg(code == CHILD_WORKED || code == CHILD_FAILED_CLEANLY,
                  "the child exited with status %d (errors found in it by a checker?)", code);
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(host));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("robustness");

    TCase *table = tcase_create("table");
    tcase_add_checked_fixture(table, set_up, tear_down);
    tcase_add_loop_test(table, bad_arguments, 0, ROW_COUNT);
    suite_add_tcase(s, table);

    TCase *coverage = tcase_create("coverage");
    tcase_add_test(coverage, table_covers_implemented_functions);
    suite_add_tcase(s, coverage);

    TCase *queued = tcase_create("queued work");
    tcase_add_checked_fixture(queued, set_up, tear_down);
    tcase_set_timeout(queued, 60);
    tcase_add_test(queued, bad_calls_keep_queued_work);
    tcase_add_test(queued, context_destroyed_with_work_queued);
    suite_add_tcase(s, queued);

    /* The stream is destroyed while a gate holds it, which times out
     * under compute-sanitizer; the sanitizer run skips the tag. */
    TCase *forced = tcase_create("forced destroy");
    tcase_set_tags(forced, "concurrent");
    tcase_add_checked_fixture(forced, set_up, tear_down);
    tcase_set_timeout(forced, 60);
    tcase_add_test(forced, stream_destroyed_with_work_queued);
    tcase_add_test(forced, new_stream_does_not_inherit_held_work);
    suite_add_tcase(s, forced);

    TCase *exhaustion = tcase_create("exhaustion");
    tcase_set_timeout(exhaustion, 120);
    tcase_add_test(exhaustion, memory_exhausted);
    suite_add_tcase(s, exhaustion);

    TCase *scale = tcase_create("scale");
    tcase_add_checked_fixture(scale, set_up, tear_down);
    tcase_set_timeout(scale, 120);
    tcase_add_test(scale, thousands_of_handles);
    tcase_add_test(scale, unread_error_messages_stay_bounded);
    suite_add_tcase(s, scale);

    TCase *forked = tcase_create("fork");
    tcase_set_tags(forked, "fork"); /* sanitizers that cannot follow a fork skip it */
    tcase_add_checked_fixture(forked, set_up, tear_down);
    tcase_set_timeout(forked, 2 * CHILD_SECONDS + 10);
    tcase_add_test(forked, forked_child_works_or_fails_cleanly);
    suite_add_tcase(s, forked);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
