/* Contexts: binding to the calling thread, their own default streams,
 * switching, sharing across threads, destruction, and the bad-argument rows
 * of the context functions. */
#include "bad_args.h"

static void init(void)
{
    ACL_OK(aclInit(NULL));
}

static void finalize(void)
{
    ACL_OK(aclFinalize());
}

static aclrtContext current_context(void)
{
    aclrtContext ctx = NULL;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    ck_assert_ptr_nonnull(ctx);
    return ctx;
}

static aclrtStream current_default_stream(void)
{
    aclrtStream stream = NULL;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&stream));
    ck_assert_ptr_nonnull(stream);
    return stream;
}

COMPAT_TEST(create_binds_to_thread,
            "aclrtCreateContext makes the new context current for the calling thread, on its device, usable without aclrtSetDevice",
            "API ref aclrtCreateContext: binds the context to the calling thread")
{
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ck_assert_ptr_nonnull(ctx);
    ck_assert_ptr_eq(current_context(), ctx);
    int32_t device = -1;
    ACL_OK(aclrtGetDevice(&device));
    ck_assert_int_eq(device, 0);
    /* Usable without any SetDevice. */
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtDestroyContext(ctx));
}

COMPAT_TEST(contexts_have_own_default_streams,
            "each context, the default one included, has its own default stream, the same one each time it is current",
            "API ref aclrtCreateContext: each context owns a default stream; aclrtCtxGetCurrentDefaultStream")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = current_context();
    aclrtStream dflt_stream = current_default_stream();
    aclrtContext a = NULL, b = NULL;
    ACL_OK(aclrtCreateContext(&a, 0));
    aclrtStream a_stream = current_default_stream();
    ACL_OK(aclrtCreateContext(&b, 0));
    aclrtStream b_stream = current_default_stream();
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_ne(a, dflt);
    ck_assert_ptr_ne(a_stream, b_stream);
    ck_assert_ptr_ne(a_stream, dflt_stream);
    ck_assert_ptr_ne(b_stream, dflt_stream);

    /* Switching back gives back the same default streams. */
    ACL_OK(aclrtSetCurrentContext(a));
    ck_assert_ptr_eq(current_default_stream(), a_stream);
    ACL_OK(aclrtSetCurrentContext(dflt));
    ck_assert_ptr_eq(current_default_stream(), dflt_stream);

    ACL_OK(aclrtDestroyContext(a));
    ACL_OK(aclrtDestroyContext(b));
    ACL_OK(aclrtResetDevice(0));
}

/* NULL names the default stream of whichever context is current. */
COMPAT_TEST(null_stream_follows_current_context,
            "NULL names the default stream of the context current at the call",
            "API ref Stream Management: NULL is the current context's default stream")
{
    aclrtContext a = NULL, b = NULL;
    ACL_OK(aclrtCreateContext(&a, 0));
    aclrtStream a_stream = current_default_stream();
    ACL_OK(aclrtCreateContext(&b, 0));
    aclrtStream b_stream = current_default_stream();

    compat_gate gate;
    compat_gate_close(&gate, NULL); /* holds b's default stream */
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    ACL_OK(aclrtStreamQuery(b_stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_NOT_READY);
    ACL_OK(aclrtSetCurrentContext(a));
    ACL_OK(aclrtStreamQuery(NULL, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtStreamQuery(a_stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);
    compat_gate_open(&gate);
    ACL_OK(aclrtSetCurrentContext(b));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtStreamQuery(b_stream, &status));
    ck_assert_int_eq(status, ACL_STREAM_STATUS_COMPLETE);

    ACL_OK(aclrtDestroyContext(a));
    ACL_OK(aclrtDestroyContext(b));
}

COMPAT_TEST(set_current_switches,
            "aclrtSetCurrentContext replaces the thread's current context (last call wins)",
            "API ref aclrtSetCurrentContext")
{
    aclrtContext a = NULL, b = NULL;
    ACL_OK(aclrtCreateContext(&a, 0));
    ACL_OK(aclrtCreateContext(&b, 0));
    ck_assert_ptr_eq(current_context(), b);
    ACL_OK(aclrtSetCurrentContext(a));
    ck_assert_ptr_eq(current_context(), a);
    ACL_OK(aclrtSetCurrentContext(b));
    ck_assert_ptr_eq(current_context(), b);
    ACL_OK(aclrtDestroyContext(a));
    ACL_OK(aclrtDestroyContext(b));
}

typedef struct context_probe {
    aclError get;
    aclrtContext ctx;
} context_probe;

static void *get_context_in_thread(void *arg)
{
    context_probe *p = arg;
    p->get = aclrtGetCurrentContext(&p->ctx);
    return NULL;
}

COMPAT_TEST(new_thread_has_no_context,
            "a new thread has no current context: aclrtGetCurrentContext returns ACL_ERROR_RT_CONTEXT_NULL",
            "API ref aclrtGetCurrentContext; [impl] 107002")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    context_probe probe = {.get = ACL_SUCCESS, .ctx = NULL};
    compat_run_thread(get_context_in_thread, &probe);
    ck_assert_int_eq(probe.get, ACL_ERROR_RT_CONTEXT_NULL);
    ACL_OK(aclrtDestroyContext(ctx));
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(no_context_in_fresh_process,
            "before any SetDevice or CreateContext, aclrtGetCurrentContext and aclrtCtxGetCurrentDefaultStream return ACL_ERROR_RT_CONTEXT_NULL",
            "API ref aclrtGetCurrentContext; [impl] 107002")
{
    aclrtContext ctx = NULL;
    ACL_FAILS_WITH(aclrtGetCurrentContext(&ctx), ACL_ERROR_RT_CONTEXT_NULL);
    aclrtStream stream = NULL;
    ACL_FAILS_WITH(aclrtCtxGetCurrentDefaultStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
}

/* Thread B adopts a context made by thread A and works in it. */
typedef struct adopt {
    aclrtContext ctx;
    aclError set, get, create, memset, copy, sync, destroy;
    aclrtContext seen;
    bool data_ok;
} adopt;

static void *use_foreign_context(void *arg)
{
    adopt *t = arg;
    enum { SIZE = 1024 };
    static uint8_t host[SIZE];
    t->set = aclrtSetCurrentContext(t->ctx);
    t->get = aclrtGetCurrentContext(&t->seen);
    aclrtStream stream = NULL;
    t->create = aclrtCreateStream(&stream);
    if (t->set != ACL_SUCCESS || t->create != ACL_SUCCESS)
        return NULL;
    void *dev = NULL;
    if (aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    t->memset = aclrtMemsetAsync(dev, SIZE, 0x3c, SIZE, stream);
    t->sync = aclrtSynchronizeStream(stream);
    t->copy = aclrtMemcpy(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST);
    t->data_ok = true;
    for (size_t i = 0; i < SIZE; i++)
        t->data_ok = t->data_ok && host[i] == 0x3c;
    t->destroy = aclrtDestroyStream(stream);
    aclrtFree(dev);
    return NULL;
}

COMPAT_TEST(context_shared_across_threads,
            "a context made in one thread can be made current and used in another",
            "API ref Context Management: contexts may be shared between threads")
{
    adopt t = {.set = -1, .get = -1, .create = -1, .memset = -1, .copy = -1, .sync = -1,
               .destroy = -1};
    ACL_OK(aclrtCreateContext(&t.ctx, 0));
    compat_run_thread(use_foreign_context, &t);
    ck_assert_int_eq(t.set, ACL_SUCCESS);
    ck_assert_int_eq(t.get, ACL_SUCCESS);
    ck_assert_ptr_eq(t.seen, t.ctx);
    ck_assert_int_eq(t.create, ACL_SUCCESS);
    ck_assert_int_eq(t.memset, ACL_SUCCESS);
    ck_assert_int_eq(t.sync, ACL_SUCCESS);
    ck_assert_int_eq(t.copy, ACL_SUCCESS);
    ck_assert_msg(t.data_ok, "work in the adopted context did not land");
    ck_assert_int_eq(t.destroy, ACL_SUCCESS);
    ck_assert_ptr_eq(current_context(), t.ctx);
    ACL_OK(aclrtDestroyContext(t.ctx));
}

COMPAT_TEST(destroy_current_leaves_none,
            "destroying the current context leaves the thread with no context",
            "API ref aclrtDestroyContext; [impl] no fallback to the default context")
{
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ACL_OK(aclrtDestroyContext(ctx));
    aclrtContext cur = NULL;
    ACL_FAILS_WITH(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
}

/* The thread's link to the default context was dropped by CreateContext, so
 * it does not come back when the explicit context goes. */
COMPAT_TEST(destroy_current_does_not_fall_back_to_default,
            "after SetDevice then CreateContext, destroying that context does not bring the default context back",
            "API ref aclrtDestroyContext; [impl]")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ACL_OK(aclrtDestroyContext(ctx));
    aclrtContext cur = NULL;
    ACL_FAILS_WITH(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(destroy_other_context_keeps_current,
            "destroying a context that is not current leaves the current one in place",
            "API ref aclrtDestroyContext")
{
    aclrtContext a = NULL, b = NULL;
    ACL_OK(aclrtCreateContext(&a, 0));
    ACL_OK(aclrtCreateContext(&b, 0));
    ACL_OK(aclrtDestroyContext(a));
    ck_assert_ptr_eq(current_context(), b);
    ACL_OK(aclrtDestroyContext(b));
}

COMPAT_TEST(destroy_default_context_fails,
            "aclrtDestroyContext refuses the default context with ACL_ERROR_RT_CONTEXT_NULL; it stays current and usable",
            "API ref aclrtDestroyContext: only explicit contexts; [impl] 107002")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = current_context();
    ACL_FAILS_WITH(aclrtDestroyContext(dflt), ACL_ERROR_RT_CONTEXT_NULL);
    /* Still current and usable. */
    ck_assert_ptr_eq(current_context(), dflt);
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(null_arguments,
            "NULL context handles and NULL output pointers are refused with ACL_ERROR_INVALID_PARAM",
            "API ref aclrtSetCurrentContext: NULL -> ACL_ERROR_INVALID_PARAM; [impl] ACL-layer NULL checks")
{
    ACL_FAILS_WITH(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSetDevice(0));
    ACL_FAILS_WITH(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(create_on_bad_device,
            "aclrtCreateContext on -1 or an id past the count returns ACL_ERROR_RT_INVALID_DEVICEID",
            "acl_rt.h aclrtCreateContext; [impl] 107001")
{
    uint32_t count = 0;
    ACL_OK(aclrtGetDeviceCount(&count));
    aclrtContext ctx = NULL;
    ACL_FAILS_WITH(aclrtCreateContext(&ctx, -1), ACL_ERROR_RT_INVALID_DEVICEID);
    ACL_FAILS_WITH(aclrtCreateContext(&ctx, (int32_t)count), ACL_ERROR_RT_INVALID_DEVICEID);
}

COMPAT_TEST(bad_handles_are_errors,
            "destroyed contexts, garbage and streams passed as contexts are refused with an "
            "error and a message, changing nothing",
            "acl-cuda guarantee beyond ACL, undefined there (docs/compat-suite.md: hostile)")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = current_context();

    aclrtContext dead = NULL;
    ACL_OK(aclrtCreateContext(&dead, 0));
    ACL_OK(aclrtDestroyContext(dead));
    ACL_FAILS(aclrtDestroyContext(dead));
    ACL_FAILS(aclrtSetCurrentContext(dead));

    int not_a_context = 0x41434C43;
    ACL_FAILS(aclrtDestroyContext(&not_a_context));
    ACL_FAILS(aclrtSetCurrentContext(&not_a_context));

    ACL_OK(aclrtSetCurrentContext(dflt));
    aclrtStream stream = NULL;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_FAILS(aclrtDestroyContext(stream));
    ACL_FAILS(aclrtSetCurrentContext(stream));
    /* The failures changed nothing. */
    ck_assert_ptr_eq(current_context(), dflt);
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(set_device_restores_default_context,
            "aclrtSetDevice makes the device's default context current again, replacing an explicit one",
            "API ref aclrtSetDevice; [impl] SetDevice clears the explicit current context")
{
    ACL_OK(aclrtSetDevice(0));
    aclrtContext dflt = current_context();
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ck_assert_ptr_eq(current_context(), ctx);
    ACL_OK(aclrtSetDevice(0));
    ck_assert_ptr_eq(current_context(), dflt);
    ACL_OK(aclrtDestroyContext(ctx));
    ACL_OK(aclrtResetDevice(0));
    ACL_OK(aclrtResetDevice(0));
}

COMPAT_TEST(set_device_after_create_without_prior_device,
            "aclrtSetDevice after aclrtCreateContext switches to the device's default context, which cannot be destroyed",
            "API ref aclrtSetDevice, aclrtDestroyContext")
{
    aclrtContext ctx = NULL;
    ACL_OK(aclrtCreateContext(&ctx, 0));
    ACL_OK(aclrtSetDevice(0));
    aclrtContext cur = current_context();
    ck_assert_ptr_ne(cur, ctx);
    /* That one is the default context: it cannot be destroyed. */
    ACL_FAILS_WITH(aclrtDestroyContext(cur), ACL_ERROR_RT_CONTEXT_NULL);
    ACL_OK(aclrtDestroyContext(ctx));
    ACL_OK(aclrtResetDevice(0));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclrtCreateContext)
{
    REJECTS(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL context");
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

ROW(aclrtCtxGetCurrentDefaultStream)
{
    REJECTS(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM, "a NULL stream");
}

ROW(aclrtCtxGetSysParamOpt)
{
    REJECTS(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL value");
}

ROW(aclrtGetPrimaryCtxState)
{
    uint32_t flags;
    REJECTS(aclrtGetPrimaryCtxState(0, &flags, NULL), ACL_ERROR_INVALID_PARAM, "a NULL active");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtCreateContext),
    COMPAT_ROW(aclrtCtxGetCurrentDefaultStream),
    COMPAT_ROW(aclrtCtxGetSysParamOpt),
    COMPAT_ROW(aclrtDestroyContext),
    COMPAT_ROW(aclrtGetCurrentContext),
    COMPAT_ROW(aclrtGetPrimaryCtxState),
    COMPAT_ROW(aclrtSetCurrentContext),
};
COMPAT_BAD_ARGS(context, rows);

Suite *compat_suite_context(void);
Suite *compat_suite_context(void)
{
    Suite *s = suite_create("context");

    TCase *binding = tcase_create("binding");
    tcase_add_checked_fixture(binding, init, finalize);
    tcase_add_test(binding, create_binds_to_thread);
    tcase_add_test(binding, contexts_have_own_default_streams);
    tcase_add_test(binding, null_stream_follows_current_context);
    tcase_add_test(binding, set_current_switches);
    tcase_add_test(binding, new_thread_has_no_context);
    tcase_add_test(binding, no_context_in_fresh_process);
    tcase_add_test(binding, context_shared_across_threads);
    tcase_add_test(binding, set_device_restores_default_context);
    tcase_add_test(binding, set_device_after_create_without_prior_device);
    suite_add_tcase(s, binding);

    TCase *destroy = tcase_create("destroy");
    tcase_add_checked_fixture(destroy, init, finalize);
    tcase_add_test(destroy, destroy_current_leaves_none);
    tcase_add_test(destroy, destroy_current_does_not_fall_back_to_default);
    tcase_add_test(destroy, destroy_other_context_keeps_current);
    tcase_add_test(destroy, destroy_default_context_fails);
    suite_add_tcase(s, destroy);

    TCase *args = tcase_create("arguments");
    tcase_add_checked_fixture(args, init, finalize);
    tcase_add_test(args, null_arguments);
    tcase_add_test(args, create_on_bad_device);
    suite_add_tcase(s, args);

    TCase *hostile = compat_add_bad_args(s, &compat_rows_context);
    tcase_add_test(hostile, bad_handles_are_errors);
    return s;
}

COMPAT_MAIN(context)
