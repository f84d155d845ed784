/* acl-cuda's extensions (acl/acl_cuda.h), not part of AscendCL: the
 * optional "ext" group of the compatibility suite, built only when asked
 * for (./configure --enable-extensions, and always in acl-cuda's own make
 * check). Pinned against acl/acl_cuda.h's comments and docs/backends.md. */
#include "acl/acl_cuda.h"
#include "bad_args.h"

COMPAT_TEST(backend_name,
            "aclcudaGetBackendName names the backend in use, \"cuda\" or \"host\", the same on "
            "every call",
            "acl/acl_cuda.h aclcudaGetBackendName; docs/backends.md")
{
    const char *name = aclcudaGetBackendName();
    ck_assert_ptr_nonnull(name);
    ck_assert_msg(strcmp(name, "cuda") == 0 || strcmp(name, "host") == 0, "backend \"%s\"", name);
    ck_assert_str_eq(aclcudaGetBackendName(), name);
}

COMPAT_TEST(native_handles,
            "aclcudaGetNativeStream/Event give the CUDA stream/event behind an ACL handle "
            "(NULL stream = the default stream's); on the host backend they give NULL",
            "acl/acl_cuda.h aclcudaGetNativeStream, aclcudaGetNativeEvent")
{
    bool cuda = strcmp(aclcudaGetBackendName(), "cuda") == 0;
    aclrtStream stream = compat_new_stream();
    aclrtStream dflt = NULL;
    ACL_OK(aclrtCtxGetCurrentDefaultStream(&dflt));
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    void *native_stream = (void *)1, *native_default = (void *)1, *native_null = (void *)1;
    void *native_event = (void *)1;
    ACL_OK(aclcudaGetNativeStream(stream, &native_stream));
    ACL_OK(aclcudaGetNativeStream(dflt, &native_default));
    ACL_OK(aclcudaGetNativeStream(NULL, &native_null));
    ACL_OK(aclcudaGetNativeEvent(event, &native_event));
    ck_assert_ptr_eq(native_null, native_default);
    if (cuda) {
        ck_assert_ptr_nonnull(native_stream);
        ck_assert_ptr_nonnull(native_default);
        ck_assert_ptr_ne(native_stream, native_default);
        ck_assert_ptr_nonnull(native_event);
    } else {
        ck_assert_ptr_null(native_stream);
        ck_assert_ptr_null(native_default);
        ck_assert_ptr_null(native_event);
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclcudaGetNativeEvent)
{
    void *native;
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeEvent(h, &native));
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    REJECTS(aclcudaGetNativeEvent(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclcudaGetNativeStream)
{
    void *native;
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclcudaGetNativeStream(h, &native));
    REJECTS(aclcudaGetNativeStream(NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL native");
}

COMPAT_TEST(waits_in_slices,
            "aclcudaSynchronize{Stream,Event,Device}Slice wait at most sliceMs; an expiry returns "
            "the timeout code without a message, and a finished wait ACL_SUCCESS",
            "acl/acl_cuda.h aclcudaSynchronizeStreamSlice")
{
    aclrtStream stream = compat_new_stream();
    aclrtEvent event = NULL;
    ACL_OK(aclrtCreateEvent(&event));
    compat_gate gate;
    compat_gate_close(&gate, stream);
    ACL_OK(aclrtRecordEvent(event, stream));
    compat_gate_wait_reached(&gate);
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclcudaSynchronizeStreamSlice(stream, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_int_eq(aclcudaSynchronizeEventSlice(event, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    ck_assert_int_eq(aclcudaSynchronizeDeviceSlice(10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    ck_assert_ptr_null(aclGetRecentErrMsg());
    compat_gate_open(&gate);
    ACL_OK(aclcudaSynchronizeStreamSlice(stream, 10000));
    ACL_OK(aclcudaSynchronizeEventSlice(event, 10000));
    ACL_OK(aclcudaSynchronizeDeviceSlice(10000));
    ACL_FAILS_WITH(aclcudaSynchronizeDeviceSlice(-1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
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

static const compat_row rows[] = {
    COMPAT_ROW(aclcudaGetNativeEvent),
    COMPAT_ROW(aclcudaGetNativeStream),
    COMPAT_ROW(aclcudaSynchronizeEventSlice),
    COMPAT_ROW(aclcudaSynchronizeStreamSlice),
};
COMPAT_BAD_ARGS(cuda, rows);

Suite *compat_suite_cuda(void);
Suite *compat_suite_cuda(void)
{
    Suite *s = suite_create("cuda");
    TCase *handles = tcase_create("extensions");
    tcase_add_checked_fixture(handles, compat_set_up, compat_tear_down);
    tcase_add_test(handles, backend_name);
    tcase_add_test(handles, native_handles);
    tcase_add_test(handles, waits_in_slices);
    suite_add_tcase(s, handles);

    compat_add_bad_args(s, &compat_rows_cuda);
    return s;
}

COMPAT_MAIN(cuda)
