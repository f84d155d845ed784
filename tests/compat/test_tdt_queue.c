/* Shared queues (acl_tdt_queue.h): buffers, queue attributes, routes, route
 * lists and route queries. */
#include <stdint.h>

#include "acl/acl_tdt_queue.h"
#include "compat.h"
#include "bad_args.h"

COMPAT_TEST(test_tdt_queue_attr,
            "a new queue attribute has depth 8; name and depth read back what was set; a len "
            "that is not the field's size is ACL_ERROR_INVALID_PARAM",
            "API ref acltdtCreateQueue (default depth 8), acltdtSetQueueAttr, acltdtGetQueueAttr")
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    ck_assert_ptr_nonnull(a);
    uint32_t depth = 0;
    size_t got = 0;
    ACL_OK(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &got, &depth));
    ck_assert_uint_eq(depth, 8);
    ck_assert_uint_eq(got, sizeof depth);
    depth = 32;
    ACL_OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth));
    const char *name = "compat-queue";
    ACL_OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &name));
    depth = 0;
    ACL_OK(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &got, &depth));
    ck_assert_uint_eq(depth, 32);
    const char *back = NULL;
    ACL_OK(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof back, &got, &back));
    ck_assert_str_eq(back, "compat-queue");
    ck_assert_int_eq(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 2, &depth),
                     ACL_ERROR_INVALID_PARAM);
    ck_assert_int_eq(acltdtSetQueueAttr(a, (acltdtQueueAttrType)7, sizeof depth, &depth),
                     ACL_ERROR_INVALID_PARAM);
    ACL_OK(acltdtDestroyQueueAttr(a));
}

COMPAT_TEST(test_tdt_route_list,
            "routes added to a list are read back by index with their source, destination and "
            "status; an index past the end is ACL_ERROR_INVALID_PARAM",
            "API ref acltdtCreateQueueRoute, acltdtAddQueueRoute, acltdtGetQueueRoute, "
            "acltdtGetQueueRouteNum, acltdtGetQueueRouteParam")
{
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    for (uint32_t i = 0; i < 20; i++) {
        acltdtQueueRoute *r = acltdtCreateQueueRoute(i, 100 + i);
        ACL_OK(acltdtAddQueueRoute(l, r));
        ACL_OK(acltdtDestroyQueueRoute(r));
    }
    ck_assert_uint_eq(acltdtGetQueueRouteNum(l), 20);
    acltdtQueueRoute *out = acltdtCreateQueueRoute(0, 0);
    ACL_OK(acltdtGetQueueRoute(l, 7, out));
    uint32_t src = 0, dst = 0;
    int32_t status = -1;
    size_t got;
    ACL_OK(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, sizeof src, &got, &src));
    ACL_OK(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_DST_UINT32, sizeof dst, &got, &dst));
    ACL_OK(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, sizeof status, &got,
                                    &status));
    ck_assert_uint_eq(src, 7);
    ck_assert_uint_eq(dst, 107);
    ck_assert_int_eq(status, ACL_TDT_QUEUE_ROUTE_UNBIND);
    ck_assert_int_eq(acltdtGetQueueRoute(l, 20, out), ACL_ERROR_INVALID_PARAM);
    ACL_OK(acltdtDestroyQueueRoute(out));
    ACL_OK(acltdtDestroyQueueRouteList(l));
    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    acltdtQueueRouteQueryMode mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, sizeof src, &src));
    ACL_OK(acltdtDestroyQueueRouteQueryInfo(q));
}

COMPAT_TEST(test_tdt_buf,
            "acltdtAllocBuf's buffers have their size, a settable valid length, 96 bytes of user "
            "data and chains; a type other than NORMAL or DVPP is refused",
            "API ref acltdtAllocBuf, acltdtGetBufData, acltdtSetBufDataLen, acltdtAppendBufChain")
{
    acltdtBuf b = NULL, c = NULL, got = NULL;
    ACL_OK(acltdtAllocBuf(100, ACL_TDT_NORMAL_MEM, &b));
    ACL_OK(acltdtAllocBuf(50, ACL_TDT_DVPP_MEM, &c));
    ck_assert_int_eq(acltdtAllocBuf(10, 2, &got), ACL_ERROR_INVALID_PARAM);
    void *data;
    size_t size, len;
    ACL_OK(acltdtGetBufData(b, &data, &size));
    ck_assert_uint_eq(size, 100);
    ACL_OK(acltdtSetBufDataLen(b, 60));
    ACL_OK(acltdtGetBufDataLen(b, &len));
    ck_assert_uint_eq(len, 60);
    unsigned char user[96], back[96];
    for (int i = 0; i < 96; i++)
        user[i] = (unsigned char)i;
    ACL_OK(acltdtSetBufUserData(b, user, 96, 0));
    ACL_OK(acltdtGetBufUserData(b, back, 90, 6));
    ck_assert_int_eq(memcmp(back, user + 6, 90), 0);
    ck_assert_int_eq(acltdtGetBufUserData(b, back, 90, 7), ACL_ERROR_INVALID_PARAM);
    ACL_OK(acltdtAppendBufChain(b, c));
    uint32_t num = 0;
    ACL_OK(acltdtGetBufChainNum(b, &num));
    ck_assert_uint_eq(num, 2);
    ACL_OK(acltdtGetBufFromChain(b, 1, &got));
    ck_assert_ptr_eq(got, c);
    acltdtBuf ref = NULL;
    ACL_OK(acltdtCopyBufRef(c, &ref));
    ACL_OK(acltdtFreeBuf(ref));
    ACL_OK(acltdtFreeBuf(b)); /* frees the chain */
}

/* ---- bad arguments ---------------------------------------------------------------- */

static acltdtBuf dead_buf(void)
{
    acltdtBuf b = NULL;
    ACL_OK(acltdtAllocBuf(8, ACL_TDT_NORMAL_MEM, &b));
    ACL_OK(acltdtFreeBuf(b));
    return b;
}

static acltdtBuf live_buf(void)
{
    acltdtBuf b = NULL;
    ACL_OK(acltdtAllocBuf(8, ACL_TDT_NORMAL_MEM, &b));
    return b;
}

ROW(acltdtAllocBuf)
{
    acltdtBuf b;
    REJECTS(acltdtAllocBuf(8, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtAllocBuf(0, 0, &b), ACL_ERROR_INVALID_PARAM, "size 0");
}

ROW(acltdtFreeBuf)
{
    REJECTS(acltdtFreeBuf(NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS_HOSTILE(acltdtFreeBuf(dead_buf()), ACL_ERROR_INVALID_PARAM, "a freed buf");
}

ROW(acltdtGetBufData)
{
    acltdtBuf b = live_buf();
    void *p;
    size_t n;
    REJECTS(acltdtGetBufData(NULL, &p, &n), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtGetBufData(b, NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    REJECTS(acltdtGetBufData(b, &p, NULL), ACL_ERROR_INVALID_PARAM, "a NULL size");
    REJECTS_HOSTILE(acltdtGetBufData(dead_buf(), &p, &n), ACL_ERROR_INVALID_PARAM, "a freed buf");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtSetBufDataLen)
{
    REJECTS(acltdtSetBufDataLen(NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS_HOSTILE(acltdtSetBufDataLen(dead_buf(), 0), ACL_ERROR_INVALID_PARAM, "a freed buf");
}

ROW(acltdtGetBufDataLen)
{
    acltdtBuf b = live_buf();
    size_t n;
    REJECTS(acltdtGetBufDataLen(NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtGetBufDataLen(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL len");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtAppendBufChain)
{
    acltdtBuf b = live_buf();
    REJECTS(acltdtAppendBufChain(NULL, b), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(acltdtAppendBufChain(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS_HOSTILE(acltdtAppendBufChain(b, dead_buf()), ACL_ERROR_INVALID_PARAM, "a freed buf");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtGetBufChainNum)
{
    acltdtBuf b = live_buf();
    uint32_t n;
    REJECTS(acltdtGetBufChainNum(NULL, &n), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(acltdtGetBufChainNum(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL num");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtGetBufFromChain)
{
    acltdtBuf b = live_buf(), out;
    REJECTS(acltdtGetBufFromChain(NULL, 0, &out), ACL_ERROR_INVALID_PARAM, "a NULL headBuf");
    REJECTS(acltdtGetBufFromChain(b, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtGetBufUserData)
{
    acltdtBuf b = live_buf();
    unsigned char out[8];
    REJECTS(acltdtGetBufUserData(NULL, out, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtGetBufUserData(b, NULL, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtSetBufUserData)
{
    acltdtBuf b = live_buf();
    unsigned char in[8] = {0};
    REJECTS(acltdtSetBufUserData(NULL, in, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtSetBufUserData(b, NULL, 8, 0), ACL_ERROR_INVALID_PARAM, "a NULL dataPtr");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtCopyBufRef)
{
    acltdtBuf b = live_buf(), out;
    REJECTS(acltdtCopyBufRef(NULL, &out), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtCopyBufRef(b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL newBuf");
    ACL_OK(acltdtFreeBuf(b));
}

ROW(acltdtDestroyQueueAttr)
{
    REJECTS(acltdtDestroyQueueAttr(NULL), ACL_ERROR_INVALID_PARAM, "a NULL attr");
}

ROW(acltdtSetQueueAttr)
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    uint32_t d = 4;
    REJECTS(acltdtSetQueueAttr(NULL, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &d), ACL_ERROR_INVALID_PARAM,
            "a NULL attr");
    REJECTS(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL param");
    ACL_OK(acltdtDestroyQueueAttr(a));
    REJECTS_HOSTILE(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &d),
                    ACL_ERROR_INVALID_PARAM, "a destroyed attr");
}

ROW(acltdtGetQueueAttr)
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    uint32_t d;
    size_t n;
    REJECTS(acltdtGetQueueAttr(NULL, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &n, &d),
            ACL_ERROR_INVALID_PARAM, "a NULL attr");
    REJECTS(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL, &d), ACL_ERROR_INVALID_PARAM,
            "a NULL paramRetSize");
    REJECTS(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &n, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL param");
    ACL_OK(acltdtDestroyQueueAttr(a));
}

ROW(acltdtDestroyQueueRoute)
{
    REJECTS(acltdtDestroyQueueRoute(NULL), ACL_ERROR_INVALID_PARAM, "a NULL route");
}

ROW(acltdtGetQueueRouteParam)
{
    acltdtQueueRoute *r = acltdtCreateQueueRoute(1, 2);
    uint32_t v;
    size_t n;
    REJECTS(acltdtGetQueueRouteParam(NULL, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &n, &v),
            ACL_ERROR_INVALID_PARAM, "a NULL route");
    REJECTS(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, NULL, &v),
            ACL_ERROR_INVALID_PARAM, "a NULL paramRetSize");
    REJECTS(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &n, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL param");
    ACL_OK(acltdtDestroyQueueRoute(r));
    REJECTS_HOSTILE(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &n, &v),
                    ACL_ERROR_INVALID_PARAM, "a destroyed route");
}

ROW(acltdtDestroyQueueRouteList)
{
    REJECTS(acltdtDestroyQueueRouteList(NULL), ACL_ERROR_INVALID_PARAM, "a NULL routeList");
}

ROW(acltdtAddQueueRoute)
{
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    acltdtQueueRoute *r = acltdtCreateQueueRoute(1, 2);
    REJECTS(acltdtAddQueueRoute(NULL, r), ACL_ERROR_INVALID_PARAM, "a NULL routeList");
    REJECTS(acltdtAddQueueRoute(l, NULL), ACL_ERROR_INVALID_PARAM, "a NULL route");
    REJECTS_HOSTILE(acltdtAddQueueRoute((acltdtQueueRouteList *)r, r), ACL_ERROR_INVALID_PARAM,
                    "a route as the list");
    ACL_OK(acltdtDestroyQueueRoute(r));
    ACL_OK(acltdtDestroyQueueRouteList(l));
}

ROW(acltdtGetQueueRoute)
{
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    acltdtQueueRoute *r = acltdtCreateQueueRoute(1, 2);
    REJECTS(acltdtGetQueueRoute(NULL, 0, r), ACL_ERROR_INVALID_PARAM, "a NULL routeList");
    REJECTS(acltdtGetQueueRoute(l, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL route");
    ACL_OK(acltdtDestroyQueueRoute(r));
    ACL_OK(acltdtDestroyQueueRouteList(l));
}

ROW(acltdtGetQueueRouteNum)
{
    REJECTS_VALUE(acltdtGetQueueRouteNum(NULL), 0, "a NULL routeList");
}

ROW(acltdtDestroyQueueRouteQueryInfo)
{
    REJECTS(acltdtDestroyQueueRouteQueryInfo(NULL), ACL_ERROR_INVALID_PARAM, "a NULL info");
}

ROW(acltdtSetQueueRouteQueryInfo)
{
    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    uint32_t v = 1;
    REJECTS(acltdtSetQueueRouteQueryInfo(NULL, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 4, &v),
            ACL_ERROR_INVALID_PARAM, "a NULL param");
    REJECTS(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 4, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL value");
    ACL_OK(acltdtDestroyQueueRouteQueryInfo(q));
}

static const compat_row rows[] = {
    COMPAT_ROW(acltdtAllocBuf),
    COMPAT_ROW(acltdtFreeBuf),
    COMPAT_ROW(acltdtGetBufData),
    COMPAT_ROW(acltdtSetBufDataLen),
    COMPAT_ROW(acltdtGetBufDataLen),
    COMPAT_ROW(acltdtAppendBufChain),
    COMPAT_ROW(acltdtGetBufChainNum),
    COMPAT_ROW(acltdtGetBufFromChain),
    COMPAT_ROW(acltdtGetBufUserData),
    COMPAT_ROW(acltdtSetBufUserData),
    COMPAT_ROW(acltdtCopyBufRef),
    COMPAT_ROW(acltdtDestroyQueueAttr),
    COMPAT_ROW(acltdtSetQueueAttr),
    COMPAT_ROW(acltdtGetQueueAttr),
    COMPAT_ROW(acltdtDestroyQueueRoute),
    COMPAT_ROW(acltdtGetQueueRouteParam),
    COMPAT_ROW(acltdtDestroyQueueRouteList),
    COMPAT_ROW(acltdtAddQueueRoute),
    COMPAT_ROW(acltdtGetQueueRoute),
    COMPAT_ROW(acltdtGetQueueRouteNum),
    COMPAT_ROW(acltdtDestroyQueueRouteQueryInfo),
    COMPAT_ROW(acltdtSetQueueRouteQueryInfo),
};
COMPAT_BAD_ARGS(tdt_queue, rows);

Suite *compat_suite_tdt_queue(void);
Suite *compat_suite_tdt_queue(void)
{
    Suite *s = suite_create("tdt_queue");
    TCase *tc = tcase_create("with device");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tdt_queue_attr);
    tcase_add_test(tc, test_tdt_route_list);
    tcase_add_test(tc, test_tdt_buf);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_tdt_queue);
    return s;
}

COMPAT_MAIN(tdt_queue)
