/* Bad-argument rows: one per public function that takes a handle or a
 * pointer, in the test file of the function's area (test_stream.c holds
 * aclrtCreateStream's row, and so on). A row calls its function with
 * arguments it must refuse and checks the error code and the message.
 *
 * Each row runs at two levels, as two test cases of its area:
 *
 *  - "bad arguments" (COMPAT_DOCUMENTED): what ACL documents, i.e. NULL
 *    where a pointer or handle is required (ACL_ERROR_INVALID_PARAM from
 *    the ACL layer's checks), file and flag errors.
 *  - "hostile arguments" (COMPAT_HOSTILE, Check tag "hostile"): the above
 *    plus inputs outside ACL's contract: destroyed handles, a handle of
 *    another kind, garbage, forged handles, foreign or freed memory. ACL
 *    leaves these undefined (CANN may crash on them); acl-cuda promises an
 *    error code and a message. The runner includes the group only for
 *    acl-cuda or when asked (HOSTILE=yes).
 *
 * Registration: each area file lists its rows with COMPAT_ROW(name) and
 * exports the list with COMPAT_BAD_ARGS(area, rows). bad_args_areas.h names
 * every area that has rows; acl-cuda's coverage check
 * (tests/check/test_robustness.c) compiles the area files with
 * COMPAT_NO_MAIN and reads all lists through it. */
#ifndef COMPAT_BAD_ARGS_H
#define COMPAT_BAD_ARGS_H

#include <stdint.h>

#include "compat.h"

/* The rows call deprecated functions too: they are still part of the API. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

typedef enum compat_level { COMPAT_DOCUMENTED, COMPAT_HOSTILE } compat_level;

typedef struct compat_row {
    const char *name; /* the function the row calls */
    void (*run)(compat_level level);
} compat_row;

typedef struct compat_area_rows {
    const char *area;
    const compat_row *rows;
    size_t count;
} compat_area_rows;

#define COMPAT_AREA(area) extern const compat_area_rows compat_rows_##area;
#include "bad_args_areas.h"
#undef COMPAT_AREA

/* A row's body; `level` says which arguments to try. */
#define ROW(name) static void row_##name(compat_level level CK_ATTRIBUTE_UNUSED)
#define COMPAT_ROW(name)                                                                           \
    {                                                                                              \
#name, row_##name                                                                          \
    }
#define COMPAT_BAD_ARGS(area, rows)                                                                \
    const compat_area_rows compat_rows_##area = {#area, rows, sizeof rows / sizeof rows[0]}

enum { COMPAT_BAD_BUF = 4096, COMPAT_MAX_BAD = 16, COMPAT_GARBAGE = 256 };

#define ANY_ERROR ((aclError)-1)

/* Deterministic bytes for garbage handles (xorshift64). */
static inline void compat_fill_random(void *buf, size_t n, uint64_t seed)
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
static inline void compat_check_rejected(aclError ret, aclError code, const char *call,
                                         const char *what)
{
    const char *msg = aclGetRecentErrMsg();
    if (code == ANY_ERROR)
        ck_assert_msg(ret != ACL_SUCCESS, "%s with %s succeeded", call, what);
    else
        ck_assert_msg(ret == code, "%s with %s returned %d, expected %d", call, what, (int)ret,
                      (int)code);
    ck_assert_msg(msg != NULL, "%s with %s left no error message", call, what);
}

/* At every level. */
#define REJECTS(expr, code, what)                                                                  \
    do {                                                                                           \
        (void)aclGetRecentErrMsg();                                                                \
        compat_check_rejected((expr), (code), #expr, (what));                                      \
    } while (0)

/* Only with hostile arguments enabled. */
#define REJECTS_HOSTILE(expr, code, what)                                                          \
    do {                                                                                           \
        if (level == COMPAT_HOSTILE)                                                               \
            REJECTS(expr, code, what);                                                             \
    } while (0)

/* For functions that return a value instead of an aclError. */
#define REJECTS_VALUE(expr, failed, what)                                                          \
    do {                                                                                           \
        (void)aclGetRecentErrMsg();                                                                \
        bool rejected_ = (expr) == (failed);                                                       \
        const char *msg_ = aclGetRecentErrMsg();                                                   \
        ck_assert_msg(rejected_, "%s with %s did not return %s", #expr, (what), #failed);          \
        ck_assert_msg(msg_ != NULL, "%s with %s left no error message", #expr, (what));            \
    } while (0)

#define REJECTS_VALUE_HOSTILE(expr, failed, what)                                                  \
    do {                                                                                           \
        if (level == COMPAT_HOSTILE)                                                               \
            REJECTS_VALUE(expr, failed, what);                                                     \
    } while (0)

/* ---- bad handles ----------------------------------------------------------------- */

typedef enum compat_kind {
    KIND_STREAM,
    KIND_EVENT,
    KIND_CONTEXT,
    KIND_BUFFER,
    KIND_MODEL,  /* aclmdlRI */
    KIND_BINARY, /* aclrtBinary */
    /* Kinds whose live handle is made only when a set of them is wanted. */
    KIND_NOTIFY,
    KIND_CNT_NOTIFY,
    KIND_STREAM_CONFIG,
    KIND_GROUP_INFO,
    KIND_LABEL,
    /* Kinds the suite cannot make a live one of without a device binary of
     * the implementation's own: their sets lack the three entries that
     * start from a live handle of the kind. */
    KIND_MODULE,   /* aclrtBinHandle */
    KIND_FUNCTION, /* aclrtFuncHandle */
    KIND_ARGS,     /* aclrtArgsHandle */
    /* Kinds whose live handle only a capture makes. */
    KIND_TASK, /* aclmdlRITask */
    KIND_COND, /* aclmdlRICondHandle */
    /* A label list's live handle needs labels of its own: left out. */
    KIND_LABEL_LIST,
} compat_kind;

/* Handles that are not live handles of one kind, with what each one is. The
 * set lives in the caller's frame: `local` is a local variable's address. */
typedef struct compat_bad_set {
    void *handle[COMPAT_MAX_BAD];
    const char *what[COMPAT_MAX_BAD];
    size_t count;
    bool made; /* the live handles below exist */
    compat_kind kind;
    aclrtStream stream; /* live handles, lent where another kind is wanted */
    aclrtEvent event;
    aclrtContext context;
    aclDataBuffer *buffer;
    aclmdlRI model;
    aclrtBinary binary;
    void *own; /* a live handle of a kind KIND_NOTIFY .. KIND_LABEL, when wanted */
    unsigned char local[COMPAT_GARBAGE];
    unsigned char *heap_random;
    unsigned char *heap_forged; /* holds a live handle of the wanted kind */
} compat_bad_set;

static inline void compat_bad_add(compat_bad_set *b, void *handle, const char *what)
{
    ck_assert_uint_lt(b->count, COMPAT_MAX_BAD);
    b->handle[b->count] = handle;
    b->what[b->count] = what;
    b->count++;
}

/* Making and destroying a handle of the kinds KIND_NOTIFY .. KIND_LABEL. */
static inline void *compat_new_handle(compat_kind kind)
{
    void *h = NULL;
    switch (kind) {
    case KIND_NOTIFY:
        ACL_OK(aclrtCreateNotify(&h, 0));
        break;
    case KIND_CNT_NOTIFY:
        ACL_OK(aclrtCntNotifyCreate(&h, 0));
        break;
    case KIND_STREAM_CONFIG:
        h = aclrtCreateStreamConfigHandle();
        break;
    case KIND_GROUP_INFO:
        h = aclrtCreateGroupInfo();
        break;
    case KIND_LABEL:
        ACL_OK(aclrtCreateLabel(&h));
        break;
    default:
        break;
    }
    ck_assert_ptr_nonnull(h);
    return h;
}

static inline void compat_destroy_handle(compat_kind kind, void *h)
{
    switch (kind) {
    case KIND_NOTIFY:
        ACL_OK(aclrtDestroyNotify(h));
        break;
    case KIND_CNT_NOTIFY:
        ACL_OK(aclrtCntNotifyDestroy(h));
        break;
    case KIND_STREAM_CONFIG:
        ACL_OK(aclrtDestroyStreamConfigHandle(h));
        break;
    case KIND_GROUP_INFO:
        ACL_OK(aclrtDestroyGroupInfo(h));
        break;
    case KIND_LABEL:
        ACL_OK(aclrtDestroyLabel(h));
        break;
    default:
        break;
    }
}

/* A live handle of `kind` made and destroyed. Made after every other
 * allocation of the set, so that nothing reuses its address meanwhile. */
static inline void *compat_destroyed_handle(compat_kind kind, aclrtContext current)
{
    void *h = NULL;
    switch (kind) {
    case KIND_STREAM:
        h = compat_new_stream();
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
    case KIND_MODEL:
        ACL_OK(aclmdlRIBuildBegin(&h, 0));
        ACL_OK(aclmdlRIDestroy(h));
        break;
    case KIND_BINARY:
        h = aclrtCreateBinary("compat", 6);
        ck_assert_ptr_nonnull(h);
        ACL_OK(aclrtDestroyBinary(h));
        break;
    case KIND_NOTIFY:
    case KIND_CNT_NOTIFY:
    case KIND_STREAM_CONFIG:
    case KIND_GROUP_INFO:
    case KIND_LABEL:
        h = compat_new_handle(kind);
        compat_destroy_handle(kind, h);
        break;
    default:
        break;
    }
    return h;
}

/* What a `kind` parameter must refuse. Documented: NULL, unless NULL means
 * something (the default stream). Hostile: NULL too, and everything that
 * is not a live `kind` handle. */
static inline void compat_bad_set_make(compat_bad_set *b, compat_kind kind, compat_level level)
{
    memset(b, 0, sizeof *b);
    b->kind = kind;
    if (kind != KIND_STREAM)
        compat_bad_add(b, NULL, "NULL");
    if (level != COMPAT_HOSTILE)
        return;
    b->made = true;
    b->stream = compat_new_stream();
    ACL_OK(aclrtCreateEvent(&b->event));
    ACL_OK(aclrtGetCurrentContext(&b->context));
    b->buffer = aclCreateDataBuffer(NULL, 0);
    ck_assert_ptr_nonnull(b->buffer);
    ACL_OK(aclmdlRIBuildBegin(&b->model, 0));
    b->binary = aclrtCreateBinary("compat", 6);
    ck_assert_ptr_nonnull(b->binary);

    compat_fill_random(b->local, sizeof b->local, 0x5eed0001);
    b->heap_random = malloc(COMPAT_GARBAGE);
    b->heap_forged = malloc(COMPAT_GARBAGE);
    ck_assert(b->heap_random && b->heap_forged);
    compat_fill_random(b->heap_random, COMPAT_GARBAGE, 0x5eed0002);
    compat_fill_random(b->heap_forged, COMPAT_GARBAGE, 0x5eed0003);
    /* A handle is an opaque value: it need not be an address (acl-cuda's
     * are slot and generation numbers), so nothing reads through it. A
     * block holding a live handle's value, and that value with bit 40
     * flipped (another generation of the same slot in acl-cuda; an address
     * nothing maps elsewhere), are not handles. */
    if (kind >= KIND_NOTIFY && kind <= KIND_LABEL)
        b->own = compat_new_handle(kind);
    void *model[] = {b->stream, b->event, b->context, b->buffer, b->model, b->binary,
                     b->own,    b->own,   b->own,     b->own,    b->own};
    bool has_live = kind <= KIND_LABEL;
    if (has_live)
        memcpy(b->heap_forged, &model[kind], sizeof model[kind]);

    if (kind != KIND_STREAM)
        compat_bad_add(b, b->stream, "a stream");
    if (kind != KIND_EVENT)
        compat_bad_add(b, b->event, "an event");
    if (kind != KIND_CONTEXT)
        compat_bad_add(b, b->context, "a context");
    if (kind != KIND_BUFFER)
        compat_bad_add(b, b->buffer, "a data buffer");
    if (kind != KIND_MODEL)
        compat_bad_add(b, b->model, "a model run instance");
    if (kind != KIND_BINARY)
        compat_bad_add(b, b->binary, "a binary (aclrtCreateBinary)");
    compat_bad_add(b, b->local, "a local variable's address");
    compat_bad_add(b, b->heap_random, "a heap block of random bytes");
    if (has_live) {
        compat_bad_add(b, b->heap_forged, "a heap block holding a live handle's value");
        compat_bad_add(b, (void *)((uintptr_t)model[kind] ^ ((uintptr_t)1 << 40)),
                       "a live handle's value, another generation");
    }
    compat_bad_add(b, (void *)(uintptr_t)16, "address 16");
    compat_bad_add(b, (void *)(UINTPTR_MAX - 15), "the top of the address space");
    if (has_live)
        compat_bad_add(b, compat_destroyed_handle(kind, b->context), "a destroyed handle");
}

static inline void compat_bad_set_free(compat_bad_set *b)
{
    if (!b->made)
        return;
    ACL_OK(aclrtDestroyStream(b->stream));
    ACL_OK(aclrtDestroyEvent(b->event));
    ACL_OK(aclDestroyDataBuffer(b->buffer));
    if (b->own)
        compat_destroy_handle(b->kind, b->own);
    ACL_OK(aclmdlRIDestroy(b->model));
    ACL_OK(aclrtDestroyBinary(b->binary));
    free(b->heap_random);
    free(b->heap_forged);
}

/* Runs `call` (an expression using `h`) with every bad handle of `kind`. */
#define FOR_EACH_BAD(kind, h, code, call)                                                          \
    do {                                                                                           \
        compat_bad_set set_;                                                                       \
        compat_bad_set_make(&set_, (kind), level);                                                 \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                               \
            void *h = set_.handle[i_];                                                             \
            REJECTS(call, (code), set_.what[i_]);                                                  \
        }                                                                                          \
        compat_bad_set_free(&set_);                                                                \
    } while (0)

#define FOR_EACH_BAD_VALUE(kind, h, failed, call)                                                  \
    do {                                                                                           \
        compat_bad_set set_;                                                                       \
        compat_bad_set_make(&set_, (kind), level);                                                 \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                               \
            void *h = set_.handle[i_];                                                             \
            REJECTS_VALUE(call, (failed), set_.what[i_]);                                          \
        }                                                                                          \
        compat_bad_set_free(&set_);                                                                \
    } while (0)

/* ---- bad pointers for frees --------------------------------------------------------- */

typedef struct compat_bad_pointers {
    void *ptr[COMPAT_MAX_BAD];
    const char *what[COMPAT_MAX_BAD];
    size_t count;
    bool made;
    void *device, *pinned;
    unsigned char *heap;
    aclrtStream stream;
    unsigned char local[COMPAT_GARBAGE];
} compat_bad_pointers;

static inline void compat_bad_ptr_add(compat_bad_pointers *b, void *p, const char *what)
{
    ck_assert_uint_lt(b->count, COMPAT_MAX_BAD);
    b->ptr[b->count] = p;
    b->what[b->count] = what;
    b->count++;
}

/* Pointers that the device (or, with !device, the page-locked host) free
 * functions must refuse: NULL (documented), and with hostile arguments
 * everything ACL did not allocate for them. */
static inline void compat_bad_pointers_make(compat_bad_pointers *b, bool device, compat_level level)
{
    memset(b, 0, sizeof *b);
    compat_bad_ptr_add(b, NULL, "NULL");
    if (level != COMPAT_HOSTILE)
        return;
    b->made = true;
    ACL_OK(aclrtMalloc(&b->device, COMPAT_BAD_BUF, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&b->pinned, COMPAT_BAD_BUF));
    b->heap = malloc(COMPAT_BAD_BUF);
    ck_assert_ptr_nonnull(b->heap);
    b->stream = compat_new_stream();
    void *freed = NULL;
    if (device) {
        ACL_OK(aclrtMalloc(&freed, COMPAT_BAD_BUF, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtFree(freed));
    } else {
        ACL_OK(aclrtMallocHost(&freed, COMPAT_BAD_BUF));
        ACL_OK(aclrtFreeHost(freed));
    }
    compat_bad_ptr_add(b, b->heap, "malloc'd memory");
    compat_bad_ptr_add(b, b->local, "a local variable's address");
    compat_bad_ptr_add(b, b->stream, "a stream handle");
    compat_bad_ptr_add(b, (void *)(uintptr_t)16, "address 16");
    compat_bad_ptr_add(b, (void *)(UINTPTR_MAX - 15), "the top of the address space");
    compat_bad_ptr_add(b, (char *)b->device + 64, "a pointer inside device memory");
    compat_bad_ptr_add(b, (char *)b->pinned + 64, "a pointer inside page-locked memory");
    compat_bad_ptr_add(b, device ? b->pinned : b->device,
                       device ? "page-locked host memory" : "device memory");
    compat_bad_ptr_add(b, freed, "memory already freed");
}

static inline void compat_bad_pointers_free(compat_bad_pointers *b)
{
    if (!b->made)
        return;
    ACL_OK(aclrtFree(b->device));
    ACL_OK(aclrtFreeHost(b->pinned));
    ACL_OK(aclrtDestroyStream(b->stream));
    free(b->heap);
}

#define FOR_EACH_BAD_POINTER(device, p, call)                                                      \
    do {                                                                                           \
        compat_bad_pointers set_;                                                                  \
        compat_bad_pointers_make(&set_, (device), level);                                          \
        for (size_t i_ = 0; i_ < set_.count; i_++) {                                               \
            void *p = set_.ptr[i_];                                                                \
            REJECTS(call, ACL_ERROR_INVALID_PARAM, set_.what[i_]);                                 \
        }                                                                                          \
        compat_bad_pointers_free(&set_);                                                           \
    } while (0)

/* Device and page-locked memory for the copy rows. */
typedef struct compat_buffers {
    void *device, *pinned;
} compat_buffers;

static inline compat_buffers compat_buffers_make(void)
{
    compat_buffers b;
    ACL_OK(aclrtMalloc(&b.device, COMPAT_BAD_BUF, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&b.pinned, COMPAT_BAD_BUF));
    return b;
}

static inline void compat_buffers_free(compat_buffers *b)
{
    ACL_OK(aclrtFree(b->device));
    ACL_OK(aclrtFreeHost(b->pinned));
}

/* ---- the two test cases of an area ------------------------------------------------------- */

/* A file that only reads the rows (acl-cuda's coverage check) defines
 * COMPAT_BAD_ARGS_NO_CASES first. */
#ifndef COMPAT_BAD_ARGS_NO_CASES

static const compat_area_rows *compat_bad_args_rows;

static inline void compat_run_row(int i, compat_level level)
{
    const compat_row *row = &compat_bad_args_rows->rows[i];
    char behaviour[256], ref[256];
    if (level == COMPAT_HOSTILE) {
        snprintf(behaviour, sizeof behaviour,
                 "%s answers handles and pointers ACL never gave out (destroyed, another kind, "
                 "garbage, foreign memory) with an error code and a message, never a crash",
                 row->name);
        snprintf(ref, sizeof ref,
                 "acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)");
    } else {
        snprintf(behaviour, sizeof behaviour,
                 "%s refuses NULL where it needs a pointer or handle (and its other documented "
                 "argument errors) with an error code and a message",
                 row->name);
        snprintf(ref, sizeof ref,
                 "%s parameter description (API ref); ACL-layer checks return "
                 "ACL_ERROR_INVALID_PARAM [impl]",
                 row->name);
    }
    compat_pin(__FILE__, level == COMPAT_HOSTILE ? "hostile_arguments" : "bad_arguments", behaviour,
               ref);
    row->run(level);
    /* The library is still whole: a stream and a sync work. */
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
    (void)aclGetRecentErrMsg();
}

START_TEST(bad_arguments)
{
    compat_run_row(_i, COMPAT_DOCUMENTED);
}
END_TEST

START_TEST(hostile_arguments)
{
    compat_run_row(_i, COMPAT_HOSTILE);
}
END_TEST

/* Adds the area's "bad arguments" case and its "hostile arguments" case
 * (tagged "hostile") to s, with aclInit and device 0 around every row.
 * Returns the hostile case, for the area's other hostile tests. */
static inline TCase *compat_add_bad_args(Suite *s, const compat_area_rows *rows)
{
    compat_bad_args_rows = rows;
    TCase *documented = tcase_create("bad arguments");
    tcase_add_checked_fixture(documented, compat_set_up, compat_tear_down);
    tcase_add_loop_test(documented, bad_arguments, 0, (int)rows->count);
    suite_add_tcase(s, documented);

    TCase *hostile = tcase_create("hostile arguments");
    tcase_set_tags(hostile, "hostile");
    tcase_add_checked_fixture(hostile, compat_set_up, compat_tear_down);
    tcase_add_loop_test(hostile, hostile_arguments, 0, (int)rows->count);
    suite_add_tcase(s, hostile);
    return hostile;
}

#endif /* COMPAT_BAD_ARGS_NO_CASES */

#endif
