/* Shared buffers (aclrtMbuf): data area, valid length, user data, reference
 * copies and chains. */
#include <stdint.h>

#include "compat.h"
#include "bad_args.h"

static aclrtMbuf new_buf(size_t size)
{
    aclrtMbuf b = NULL;
    ACL_OK(aclrtAllocBuf(&b, size));
    ck_assert_ptr_nonnull(b);
    return b;
}

COMPAT_TEST(test_buf_data,
            "aclrtAllocBuf gives a buffer whose data area has the size asked for and whose valid "
            "length starts at 0; aclrtSetBufDataLen sets the length aclrtGetBufDataLen reads",
            "API ref acltdtAllocBuf, acltdtGetBufData, acltdtSet/GetBufDataLen (aclrt forms)")
{
    aclrtMbuf b = new_buf(1000);
    void *data = NULL;
    size_t size = 0, len = 7;
    ACL_OK(aclrtGetBufData(b, &data, &size));
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(size, 1000);
    ACL_OK(aclrtGetBufDataLen(b, &len));
    ck_assert_uint_eq(len, 0);
    memset(data, 0x42, 1000);
    ACL_OK(aclrtSetBufDataLen(b, 600));
    ACL_OK(aclrtGetBufDataLen(b, &len));
    ck_assert_uint_eq(len, 600);
    ACL_OK(aclrtFreeBuf(b));
}

COMPAT_TEST(test_buf_data_copies,
            "a buffer's data area is the source and destination of copies to and from the device",
            "API ref acltdtGetBufData (the data area is filled by the user)")
{
    aclrtMbuf b = new_buf(256);
    unsigned char *data = NULL;
    size_t size = 0;
    ACL_OK(aclrtGetBufData(b, (void **)&data, &size));
    for (int i = 0; i < 256; i++)
        data[i] = (unsigned char)i;
    void *dev = compat_device_buffer(256);
    ACL_OK(aclrtMemcpy(dev, 256, data, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(data, 0, 256);
    ACL_OK(aclrtMemcpy(data, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 256; i++)
        ck_assert_uint_eq(data[i], (unsigned char)i);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeBuf(b));
}

COMPAT_TEST(test_buf_user_data,
            "the 96 bytes of user data are written and read at an offset; size + offset beyond 96 "
            "is ACL_ERROR_INVALID_PARAM",
            "API ref acltdtSetBufUserData, acltdtGetBufUserData; [impl] aclrtSetBufUserDataImpl")
{
    aclrtMbuf b = new_buf(64);
    unsigned char in[32], out[32];
    for (int i = 0; i < 32; i++)
        in[i] = (unsigned char)(200 - i);
    ACL_OK(aclrtSetBufUserData(b, in, 32, 64));
    memset(out, 0, sizeof out);
    ACL_OK(aclrtGetBufUserData(b, out, 32, 64));
    ck_assert_mem_eq(out, in, 32);
    ACL_OK(aclrtGetBufUserData(b, out, 16, 72));
    ck_assert_mem_eq(out, in + 8, 16);
    ACL_FAILS_WITH(aclrtSetBufUserData(b, in, 32, 65), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetBufUserData(b, out, 97, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFreeBuf(b));
}

COMPAT_TEST(test_buf_copy_ref,
            "aclrtCopyBufRef makes a new buffer on the same data area, which stays while either "
            "buffer lives",
            "API ref acltdtCopyBufRef")
{
    aclrtMbuf a = new_buf(128), b = NULL;
    ACL_OK(aclrtCopyBufRef(a, &b));
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_ne(a, b);
    void *da = NULL, *db = NULL;
    size_t sa = 0, sb = 0;
    ACL_OK(aclrtGetBufData(a, &da, &sa));
    ACL_OK(aclrtGetBufData(b, &db, &sb));
    ck_assert_ptr_eq(da, db);
    ck_assert_uint_eq(sa, sb);
    memset(da, 0x77, 128);
    ACL_OK(aclrtFreeBuf(a));
    compat_assert_filled(db, 128, 0x77);
    ACL_OK(aclrtFreeBuf(b));
}

COMPAT_TEST(test_buf_chain,
            "buffers appended to a head form a chain whose length and members read back by index",
            "API ref acltdtAppendBufChain, acltdtGetBufChainNum, acltdtGetBufFromChain")
{
    aclrtMbuf head = new_buf(16), second = new_buf(32), third = new_buf(48);
    uint32_t num = 0;
    ACL_OK(aclrtGetBufChainNum(head, &num));
    ck_assert_uint_eq(num, 1);
    ACL_OK(aclrtAppendBufChain(head, second));
    ACL_OK(aclrtAppendBufChain(head, third));
    ACL_OK(aclrtGetBufChainNum(head, &num));
    ck_assert_uint_eq(num, 3);
    aclrtMbuf got = NULL;
    ACL_OK(aclrtGetBufFromChain(head, 0, &got));
    ck_assert_ptr_eq(got, head);
    ACL_OK(aclrtGetBufFromChain(head, 2, &got));
    ck_assert_ptr_eq(got, third);
    ACL_FAILS(aclrtGetBufFromChain(head, 3, &got));
    ACL_OK(aclrtFreeBuf(head));
}

COMPAT_TEST(test_buf_chain_limit,
            "a chain holds at most 128 buffers",
            "API ref acltdtAppendBufChain")
{
    aclrtMbuf head = new_buf(8);
    for (int i = 1; i < 128; i++)
        ACL_OK(aclrtAppendBufChain(head, new_buf(8)));
    aclrtMbuf extra = new_buf(8);
    ACL_FAILS(aclrtAppendBufChain(head, extra));
    uint32_t num = 0;
    ACL_OK(aclrtGetBufChainNum(head, &num));
    ck_assert_uint_eq(num, 128);
    ACL_OK(aclrtFreeBuf(extra));
    ACL_OK(aclrtFreeBuf(head));
}

/* ---- bad arguments ------------------------------------------------------------ */

#define BAD_BUFS(call) FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, call)

ROW(aclrtAllocBuf)
{
    aclrtMbuf b;
    REJECTS(aclrtAllocBuf(NULL, 64), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtAllocBuf(&b, 0), ACL_ERROR_INVALID_PARAM, "size 0");
}

ROW(aclrtFreeBuf)
{
    REJECTS(aclrtFreeBuf(NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    BAD_BUFS(aclrtFreeBuf(h));
}

ROW(aclrtGetBufData)
{
    aclrtMbuf b = new_buf(8);
    void *p;
    size_t n;
    REJECTS(aclrtGetBufData(NULL, &p, &n), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtGetBufData(b, NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    REJECTS(aclrtGetBufData(b, &p, NULL), ACL_ERROR_INVALID_PARAM, "a NULL size");
    BAD_BUFS(aclrtGetBufData(h, &p, &n));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtGetBufDataLen)
{
    aclrtMbuf b = new_buf(8);
    size_t n;
    REJECTS(aclrtGetBufDataLen(NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtGetBufDataLen(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL len");
    BAD_BUFS(aclrtGetBufDataLen(h, &n));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtSetBufDataLen)
{
    REJECTS(aclrtSetBufDataLen(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    BAD_BUFS(aclrtSetBufDataLen(h, 0));
}

ROW(aclrtGetBufUserData)
{
    aclrtMbuf b = new_buf(8);
    unsigned char out[8];
    REJECTS(aclrtGetBufUserData(NULL, out, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtGetBufUserData(b, NULL, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    BAD_BUFS(aclrtGetBufUserData(h, out, 8, 0));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtSetBufUserData)
{
    aclrtMbuf b = new_buf(8);
    unsigned char in[8] = {0};
    REJECTS(aclrtSetBufUserData(NULL, in, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtSetBufUserData(b, NULL, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    BAD_BUFS(aclrtSetBufUserData(h, in, 8, 0));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtCopyBufRef)
{
    aclrtMbuf b = new_buf(8), out;
    REJECTS(aclrtCopyBufRef(NULL, &out), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(aclrtCopyBufRef(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL newBuf");
    BAD_BUFS(aclrtCopyBufRef(h, &out));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtAppendBufChain)
{
    aclrtMbuf b = new_buf(8);
    REJECTS(aclrtAppendBufChain(NULL, b), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(aclrtAppendBufChain(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    BAD_BUFS(aclrtAppendBufChain(h, b));
    BAD_BUFS(aclrtAppendBufChain(b, h));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtGetBufChainNum)
{
    aclrtMbuf b = new_buf(8);
    uint32_t n;
    REJECTS(aclrtGetBufChainNum(NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(aclrtGetBufChainNum(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL num");
    BAD_BUFS(aclrtGetBufChainNum(h, &n));
    ACL_OK(aclrtFreeBuf(b));
}

ROW(aclrtGetBufFromChain)
{
    aclrtMbuf b = new_buf(8), out;
    REJECTS(aclrtGetBufFromChain(NULL, 0, &out), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(aclrtGetBufFromChain(b, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    BAD_BUFS(aclrtGetBufFromChain(h, 0, &out));
    ACL_OK(aclrtFreeBuf(b));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtAllocBuf),       COMPAT_ROW(aclrtFreeBuf),
    COMPAT_ROW(aclrtGetBufData),     COMPAT_ROW(aclrtGetBufDataLen),
    COMPAT_ROW(aclrtSetBufDataLen),  COMPAT_ROW(aclrtGetBufUserData),
    COMPAT_ROW(aclrtSetBufUserData), COMPAT_ROW(aclrtCopyBufRef),
    COMPAT_ROW(aclrtAppendBufChain), COMPAT_ROW(aclrtGetBufChainNum),
    COMPAT_ROW(aclrtGetBufFromChain),
};
COMPAT_BAD_ARGS(mbuf, rows);

Suite *compat_suite_mbuf(void);
Suite *compat_suite_mbuf(void)
{
    Suite *s = suite_create("mbuf");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_buf_data);
    tcase_add_test(tc, test_buf_data_copies);
    tcase_add_test(tc, test_buf_user_data);
    tcase_add_test(tc, test_buf_copy_ref);
    tcase_add_test(tc, test_buf_chain);
    tcase_add_test(tc, test_buf_chain_limit);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_mbuf);
    return s;
}

COMPAT_MAIN(mbuf)
