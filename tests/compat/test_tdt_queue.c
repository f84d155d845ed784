/* Shared queues (acl_tdt_queue.h): queues between threads and between
 * processes (ipc_peer), buffers, queue attributes, routes, route lists and
 * route queries. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_tdt_queue.h"
#include "compat.h"
#include "bad_args.h"
#include "ipc_peer.h"

/* Generous bounds for waits that must succeed: tests assert outcomes, not times. */
#define WAIT_MS 20000

static uint32_t make_queue(uint32_t depth)
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    ACL_OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth));
    uint32_t qid = 0;
    ACL_OK(acltdtCreateQueue(a, &qid));
    ACL_OK(acltdtDestroyQueueAttr(a));
    return qid;
}

/* Message `seed`'s bytes, as ipc_peer makes them: byte i is seed + 7 i. */
static void pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + 7 * i);
}

static void put_msg(uint32_t qid, size_t size, unsigned seed)
{
    unsigned char *p = malloc(size ? size : 1);
    pattern(p, size, seed);
    ACL_OK(acltdtEnqueueData(qid, p, size, &seed, sizeof seed, WAIT_MS, 0));
    free(p);
}

/* Takes a message and checks it is message `seed` of `size` bytes. */
static void get_msg(uint32_t qid, size_t size, unsigned seed)
{
    unsigned char *p = malloc(size + 16), *want = malloc(size + 1);
    size_t len = 0;
    unsigned got_seed = 0;
    ACL_OK(acltdtDequeueData(qid, p, size + 16, &len, &got_seed, sizeof got_seed, WAIT_MS));
    ck_assert_uint_eq(len, size);
    ck_assert_uint_eq(got_seed, seed);
    pattern(want, size, seed);
    ck_assert(memcmp(p, want, size) == 0);
    free(p);
    free(want);
}

typedef struct producer {
    uint32_t qid;
    unsigned count;
} producer;

static void *produce(void *arg)
{
    producer *pr = arg;
    for (unsigned i = 0; i < pr->count; i++)
        put_msg(pr->qid, (i * 37) % 4096, i);
    return NULL;
}

COMPAT_TEST(test_tdt_queue_threads,
            "messages cross a queue of depth 4 from one thread to another in order, with their "
            "bytes and user data; an empty message too",
            "API ref acltdtCreateQueue, acltdtEnqueueData, acltdtDequeueData")
{
    uint32_t qid = make_queue(4);
    producer pr = {qid, 2000};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, produce, &pr), 0);
    for (unsigned i = 0; i < pr.count; i++)
        get_msg(qid, (i * 37) % 4096, i);
    pthread_join(t, NULL);
    ACL_OK(acltdtDestroyQueue(qid));
}

COMPAT_TEST(test_tdt_queue_full_empty,
            "a queue holds depth messages: one more is ACL_ERROR_RT_QUEUE_FULL at once (timeout "
            "0) or after its timeout; an empty queue is ACL_ERROR_RT_QUEUE_EMPTY likewise; a "
            "blocked enqueue goes in once a message is taken; a depth out of [2, 8192] or a "
            "timeout below -1 is ACL_ERROR_INVALID_PARAM",
            "API ref acltdtEnqueue (timeout -1, 0, >0), acltdtCreateQueueAttr (depth)")
{
    uint32_t qid = make_queue(2), v = 1;
    size_t len;
    ck_assert_int_eq(acltdtDequeueData(qid, &v, sizeof v, &len, NULL, 0, 0),
                     ACL_ERROR_RT_QUEUE_EMPTY);
    ck_assert_int_eq(acltdtDequeueData(qid, &v, sizeof v, &len, NULL, 0, 20),
                     ACL_ERROR_RT_QUEUE_EMPTY);
    put_msg(qid, 100, 1);
    put_msg(qid, 100, 2);
    ck_assert_int_eq(acltdtEnqueueData(qid, &v, sizeof v, NULL, 0, 0, 0), ACL_ERROR_RT_QUEUE_FULL);
    ck_assert_int_eq(acltdtEnqueueData(qid, &v, sizeof v, NULL, 0, 20, 0), ACL_ERROR_RT_QUEUE_FULL);
    ck_assert_int_eq(acltdtEnqueueData(qid, &v, sizeof v, NULL, 0, -2, 0), ACL_ERROR_INVALID_PARAM);
    producer pr = {qid, 1}; /* blocks until a slot frees: message 0 */
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, produce, &pr), 0);
    get_msg(qid, 100, 1);
    get_msg(qid, 100, 2);
    get_msg(qid, 0, 0);
    pthread_join(t, NULL);
    ACL_OK(acltdtDestroyQueue(qid));
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    uint32_t depths[] = {0, 1, 8193};
    for (size_t i = 0; i < 3; i++) {
        ACL_OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depths[i], &depths[i]));
        ck_assert_int_eq(acltdtCreateQueue(a, &qid), ACL_ERROR_INVALID_PARAM);
    }
    ACL_OK(acltdtDestroyQueueAttr(a));
    ACL_OK(acltdtCreateQueue(NULL, &qid)); /* default depth 8 */
    for (unsigned i = 0; i < 8; i++)
        put_msg(qid, 1, i);
    ck_assert_int_eq(acltdtEnqueueData(qid, &v, sizeof v, NULL, 0, 0, 0), ACL_ERROR_RT_QUEUE_FULL);
    ACL_OK(acltdtDestroyQueue(qid));
}

COMPAT_TEST(test_tdt_queue_buffers,
            "acltdtEnqueue takes a chain of buffers (freed with it); acltdtDequeue gives a new "
            "chain with each buffer's data and user data; acltdtDequeueData gives a chain's bytes "
            "one after another; a message longer than dataSize stays in the queue",
            "API ref acltdtEnqueue, acltdtDequeue, acltdtDequeueData")
{
    uint32_t qid = make_queue(8);
    acltdtBuf head = NULL;
    for (uint32_t i = 0; i < 3; i++) {
        acltdtBuf b = NULL;
        ACL_OK(acltdtAllocBuf(1000, ACL_TDT_NORMAL_MEM, &b));
        void *data;
        size_t size;
        ACL_OK(acltdtGetBufData(b, &data, &size));
        memset(data, 'a' + (int)i, 100 * (i + 1));
        ACL_OK(acltdtSetBufDataLen(b, 100 * (i + 1)));
        uint32_t tag = 40 + i;
        ACL_OK(acltdtSetBufUserData(b, &tag, sizeof tag, 8));
        if (head == NULL)
            head = b;
        else
            ACL_OK(acltdtAppendBufChain(head, b));
    }
    ACL_OK(acltdtEnqueue(qid, head, 0));
    ck_assert_int_eq(acltdtFreeBuf(head), ACL_ERROR_INVALID_PARAM); /* the queue's now */
    acltdtBuf out = NULL;
    ACL_OK(acltdtDequeue(qid, &out, 0));
    uint32_t num = 0;
    ACL_OK(acltdtGetBufChainNum(out, &num));
    ck_assert_uint_eq(num, 3);
    for (uint32_t i = 0; i < 3; i++) {
        acltdtBuf b;
        ACL_OK(acltdtGetBufFromChain(out, i, &b));
        size_t len = 0;
        ACL_OK(acltdtGetBufDataLen(b, &len));
        ck_assert_uint_eq(len, 100 * (i + 1));
        void *data;
        size_t size;
        ACL_OK(acltdtGetBufData(b, &data, &size));
        ck_assert_int_eq(((unsigned char *)data)[len - 1], 'a' + (int)i);
        uint32_t tag = 0;
        ACL_OK(acltdtGetBufUserData(b, &tag, sizeof tag, 8));
        ck_assert_uint_eq(tag, 40 + i);
    }
    /* The same chain again, read as bytes. */
    ACL_OK(acltdtEnqueue(qid, out, 0));
    unsigned char bytes[600];
    size_t len = 0;
    ck_assert_int_eq(acltdtDequeueData(qid, bytes, 10, &len, NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
    ck_assert_uint_eq(len, 600);
    ACL_OK(acltdtDequeueData(qid, bytes, sizeof bytes, &len, NULL, 0, 0));
    ck_assert_uint_eq(len, 600);
    ck_assert_int_eq(bytes[0], 'a');
    ck_assert_int_eq(bytes[150], 'b');
    ck_assert_int_eq(bytes[599], 'c');
    ACL_OK(acltdtDestroyQueue(qid));
}

typedef struct waiter {
    uint32_t qid;
    atomic_int tid;
} waiter;

static void *take_one(void *arg)
{
    waiter *w = arg;
    atomic_store(&w->tid, (int)syscall(SYS_gettid));
    get_msg(w->qid, 10, 77);
    return NULL;
}

/* Waits until thread tid sleeps: inside its dequeue, the only place it can. */
static void await_sleeping(int tid)
{
    for (int i = 0; i < WAIT_MS; i++) {
        char path[64], stat[512] = "";
        snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(stat, 1, sizeof stat - 1, f);
            stat[n] = '\0';
            fclose(f);
        }
        const char *paren = strrchr(stat, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'S')
            return;
        struct timespec ms = {.tv_nsec = 1000000};
        nanosleep(&ms, NULL);
    }
    ck_abort_msg("the waiting thread never slept");
}

static void route_list_of(acltdtQueueRouteList *l, uint32_t src, uint32_t dst)
{
    acltdtQueueRoute *r = acltdtCreateQueueRoute(src, dst);
    ACL_OK(acltdtAddQueueRoute(l, r));
    ACL_OK(acltdtDestroyQueueRoute(r));
}

static int32_t route_status(acltdtQueueRouteList *l, size_t index)
{
    acltdtQueueRoute *r = acltdtCreateQueueRoute(0, 0);
    ACL_OK(acltdtGetQueueRoute(l, index, r));
    int32_t status = -1;
    size_t got;
    ACL_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, sizeof status, &got,
                                    &status));
    ACL_OK(acltdtDestroyQueueRoute(r));
    return status;
}

COMPAT_TEST(test_tdt_queue_destroy_in_use,
            "destroying a queue a thread waits in, or that a bound route uses, is "
            "ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED and changes nothing: the waiter still gets "
            "its message; once destroyed, its id is ACL_ERROR_INVALID_QUEUE_ID",
            "API ref acltdtDestroyQueue; acl-cuda's rule (docs/porting.md)")
{
    uint32_t qid = make_queue(2), other = make_queue(2);
    waiter w = {.qid = qid};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, take_one, &w), 0);
    while (atomic_load(&w.tid) == 0)
        sched_yield();
    await_sleeping(atomic_load(&w.tid));
    ck_assert_int_eq(acltdtDestroyQueue(qid), ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED);
    put_msg(qid, 10, 77);
    pthread_join(t, NULL);
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    route_list_of(l, qid, other);
    ACL_OK(acltdtBindQueueRoutes(l));
    ck_assert_int_eq(acltdtDestroyQueue(other), ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED);
    ACL_OK(acltdtUnbindQueueRoutes(l));
    ACL_OK(acltdtDestroyQueueRouteList(l));
    ACL_OK(acltdtDestroyQueue(qid));
    ACL_OK(acltdtDestroyQueue(other));
    uint32_t v = 0;
    ck_assert_int_eq(acltdtEnqueueData(qid, &v, sizeof v, NULL, 0, 0, 0),
                     ACL_ERROR_INVALID_QUEUE_ID);
    ck_assert_int_eq(acltdtDestroyQueue(qid), ACL_ERROR_INVALID_QUEUE_ID);
}

COMPAT_TEST(test_tdt_queue_routes,
            "a bound route moves every message of its source into its destination in order; a "
            "query by source, destination or both finds it bound; unbound it moves nothing and "
            "queries find nothing; binding it twice, to itself or to an unknown queue fails with "
            "its status ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL",
            "API ref acltdtBindQueueRoutes, acltdtUnbindQueueRoutes, acltdtQueryQueueRoutes")
{
    uint32_t a = make_queue(4), b = make_queue(4), c = make_queue(4);
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    route_list_of(l, a, b);
    route_list_of(l, b, c);
    ACL_OK(acltdtBindQueueRoutes(l));
    ck_assert_int_eq(route_status(l, 0), ACL_TDT_QUEUE_ROUTE_BIND);
    producer pr = {a, 300};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, produce, &pr), 0);
    for (unsigned i = 0; i < pr.count; i++)
        get_msg(c, (i * 37) % 4096, i);
    pthread_join(t, NULL);
    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    int32_t mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST;
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    ACL_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, sizeof b, &b));
    ACL_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32, sizeof c, &c));
    acltdtQueueRouteList *found = acltdtCreateQueueRouteList();
    ACL_OK(acltdtQueryQueueRoutes(q, found));
    ck_assert_uint_eq(acltdtGetQueueRouteNum(found), 1);
    ck_assert_int_eq(route_status(found, 0), ACL_TDT_QUEUE_ROUTE_BIND);
    mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    ACL_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, sizeof a, &a));
    ACL_OK(acltdtQueryQueueRoutes(q, found));
    ck_assert_uint_eq(acltdtGetQueueRouteNum(found), 1);
    /* Bound twice, to itself, to a queue nobody made. */
    acltdtQueueRouteList *bad = acltdtCreateQueueRouteList();
    route_list_of(bad, a, b);
    route_list_of(bad, a, a);
    route_list_of(bad, a, 12345);
    ck_assert_int_eq(acltdtBindQueueRoutes(bad), ACL_ERROR_FAILURE);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq(route_status(bad, i), ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
    ACL_OK(acltdtUnbindQueueRoutes(l));
    ck_assert_int_eq(route_status(l, 1), ACL_TDT_QUEUE_ROUTE_UNBIND);
    ACL_OK(acltdtQueryQueueRoutes(q, found));
    ck_assert_uint_eq(acltdtGetQueueRouteNum(found), 0);
    ck_assert_int_eq(acltdtUnbindQueueRoutes(l), ACL_ERROR_FAILURE);
    put_msg(a, 5, 9); /* stays in a */
    uint32_t v;
    size_t len;
    ck_assert_int_eq(acltdtDequeueData(b, &v, sizeof v, &len, NULL, 0, 0),
                     ACL_ERROR_RT_QUEUE_EMPTY);
    get_msg(a, 5, 9);
    ACL_OK(acltdtDestroyQueueRouteList(bad));
    ACL_OK(acltdtDestroyQueueRouteList(found));
    ACL_OK(acltdtDestroyQueueRouteList(l));
    ACL_OK(acltdtDestroyQueueRouteQueryInfo(q));
    ACL_OK(acltdtDestroyQueue(a));
    ACL_OK(acltdtDestroyQueue(b));
    ACL_OK(acltdtDestroyQueue(c));
}

/* "ok N ..." -> N. */
static unsigned long ok_num(const char *answer)
{
    unsigned long v = 0;
    ck_assert_msg(sscanf(answer, "ok %lu", &v) == 1, "peer answered: %s", answer);
    return v;
}

static void expect_code(const char *answer, aclError code)
{
    char want[32];
    snprintf(want, sizeof want, "err %d", (int)code);
    ck_assert_msg(strcmp(answer, want) == 0, "peer answered \"%s\", expected \"%s\"", answer, want);
}

COMPAT_TEST(test_tdt_queue_processes,
            "another process cannot attach a queue it was not granted "
            "(ACL_ERROR_RT_NO_PERMISSION); granted dequeue, it attaches with that permission, "
            "takes messages and may not enqueue; granted enqueue too, it sends messages up to "
            "32 MiB back; an attach waiting for a grant gets it; a queue its owner destroys "
            "wakes the other process's waiter with ACL_ERROR_INVALID_QUEUE_ID",
            "API ref acltdtGrantQueue, acltdtAttachQueue (permission bits)")
{
    peer p;
    peer_start(&p);
    uint32_t qid = make_queue(4);
    expect_code(peer_ask(&p, "qattach %u 0", qid), ACL_ERROR_RT_NO_PERMISSION);
    expect_code(peer_ask(&p, "qattach %u 0", qid + 1), ACL_ERROR_INVALID_QUEUE_ID);
    ACL_OK(acltdtGrantQueue(qid, p.tgid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0));
    ck_assert_uint_eq(ok_num(peer_ask(&p, "qattach %u 0", qid)), ACL_TDT_QUEUE_PERMISSION_DEQUEUE);
    expect_code(peer_ask(&p, "qput %u 10 1", qid), ACL_ERROR_RT_NO_PERMISSION);
    for (unsigned i = 0; i < 3; i++)
        put_msg(qid, 1000 * i, i);
    for (unsigned i = 0; i < 3; i++) {
        const char *answer = peer_ask(&p, "qget %u 0", qid);
        unsigned long len = 0, seed = 99;
        ck_assert_msg(sscanf(answer, "ok %lu %lu", &len, &seed) == 2, "peer: %s", answer);
        ck_assert_uint_eq(len, 1000 * i);
        ck_assert_uint_eq(seed, i);
    }
    ACL_OK(acltdtGrantQueue(qid, p.tgid, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0));
    ck_assert_uint_eq(ok_num(peer_ask(&p, "qattach %u 0", qid)),
                      ACL_TDT_QUEUE_PERMISSION_DEQUEUE | ACL_TDT_QUEUE_PERMISSION_ENQUEUE);
    expect_ok(peer_ask(&p, "qput %u %u 5", qid, 32u << 20));
    expect_ok(peer_ask(&p, "qput %u 0 6", qid));
    get_msg(qid, 32u << 20, 5);
    get_msg(qid, 0, 6);
    /* An attach that waits for its grant. */
    uint32_t late = make_queue(2);
    fprintf(p.to, "qattach %u %d\n", late, WAIT_MS);
    fflush(p.to);
    ACL_OK(acltdtGrantQueue(late, p.tgid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0));
    char answer[256];
    ck_assert(fgets(answer, sizeof answer, p.from) != NULL);
    ck_assert_uint_eq(ok_num(answer), ACL_TDT_QUEUE_PERMISSION_DEQUEUE);
    /* Its waiter, woken by the destroy. */
    fprintf(p.to, "qget %u -1\n", late);
    fflush(p.to);
    ACL_OK(acltdtDestroyQueue(late));
    ck_assert(fgets(answer, sizeof answer, p.from) != NULL);
    answer[strcspn(answer, "\n")] = '\0';
    expect_code(answer, ACL_ERROR_INVALID_QUEUE_ID);
    expect_ok(peer_ask(&p, "qdestroy %u", late)); /* detaches */
    peer_stop(&p);
    ACL_OK(acltdtDestroyQueue(qid));
}

COMPAT_TEST(test_tdt_queue_peer_dies,
            "a process killed while it enqueues 8 MiB messages (mostly inside the queue's lock) "
            "leaves the queue usable: every message left in it is whole, and messages still go "
            "in and out",
            "acl-cuda's rule (robust process-shared lock; docs/porting.md)")
{
    peer p;
    peer_start(&p);
    uint32_t qid = make_queue(4);
    ACL_OK(acltdtGrantQueue(qid, p.tgid, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0));
    ck_assert_uint_eq(ok_num(peer_ask(&p, "qattach %u 0", qid)), ACL_TDT_QUEUE_PERMISSION_ENQUEUE);
    expect_ok(peer_ask(&p, "qflood %u %u 0", qid, 8u << 20));
    get_msg(qid, 8u << 20, 0);
    get_msg(qid, 8u << 20, 1);
    kill(p.pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(p.pid, &status, 0), p.pid);
    fclose(p.to);
    fclose(p.from);
    unsigned seed = 2;
    unsigned char *buf = malloc((size_t)8 << 20), *want = malloc((size_t)8 << 20);
    for (;;) {
        size_t len = 0;
        unsigned got = 0;
        aclError ret = acltdtDequeueData(qid, buf, (size_t)8 << 20, &len, &got, sizeof got, 0);
        if (ret == ACL_ERROR_RT_QUEUE_EMPTY)
            break;
        ACL_OK(ret);
        ck_assert_uint_eq(got, seed);
        ck_assert_uint_eq(len, (size_t)8 << 20);
        pattern(want, len, got);
        ck_assert(memcmp(buf, want, len) == 0);
        seed++;
    }
    free(buf);
    free(want);
    put_msg(qid, 4096, 3);
    get_msg(qid, 4096, 3);
    ACL_OK(acltdtDestroyQueue(qid));
}

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

ROW(acltdtCreateQueue)
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    uint32_t qid;
    REJECTS(acltdtCreateQueue(a, NULL), ACL_ERROR_INVALID_PARAM, "a NULL qid");
    ACL_OK(acltdtDestroyQueueAttr(a));
    REJECTS_HOSTILE(acltdtCreateQueue(a, &qid), ACL_ERROR_INVALID_PARAM, "a destroyed attr");
}

ROW(acltdtDestroyQueue)
{
    REJECTS(acltdtDestroyQueue(0), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
    REJECTS(acltdtDestroyQueue(0xffffffffu), ACL_ERROR_INVALID_QUEUE_ID, "a qid nobody made");
}

ROW(acltdtEnqueue)
{
    uint32_t qid = make_queue(2);
    acltdtBuf b = live_buf();
    REJECTS(acltdtEnqueue(qid, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtEnqueue(qid, b, -2), ACL_ERROR_INVALID_PARAM, "timeout -2");
    REJECTS(acltdtEnqueue(0, b, 0), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
    REJECTS_HOSTILE(acltdtEnqueue(qid, dead_buf(), 0), ACL_ERROR_INVALID_PARAM, "a freed buf");
    ACL_OK(acltdtFreeBuf(b));
    ACL_OK(acltdtDestroyQueue(qid));
}

ROW(acltdtDequeue)
{
    uint32_t qid = make_queue(2);
    acltdtBuf b;
    REJECTS(acltdtDequeue(qid, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL buf");
    REJECTS(acltdtDequeue(qid, &b, -5), ACL_ERROR_INVALID_PARAM, "timeout -5");
    REJECTS(acltdtDequeue(0, &b, 0), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
    ACL_OK(acltdtDestroyQueue(qid));
}

ROW(acltdtEnqueueData)
{
    uint32_t qid = make_queue(2), v = 0;
    unsigned char user[97] = {0};
    REJECTS(acltdtEnqueueData(qid, NULL, 4, NULL, 0, 0, 0), ACL_ERROR_INVALID_PARAM, "a NULL data");
    REJECTS(acltdtEnqueueData(qid, &v, 4, NULL, 4, 0, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL userData with a size");
    REJECTS(acltdtEnqueueData(qid, &v, 4, user, 97, 0, 0), ACL_ERROR_INVALID_PARAM,
            "97 bytes of user data");
    REJECTS(acltdtEnqueueData(qid, &v, 4, NULL, 0, 0, 1), ACL_ERROR_INVALID_PARAM, "rsv 1");
    REJECTS(acltdtEnqueueData(0, &v, 4, NULL, 0, 0, 0), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
    ACL_OK(acltdtDestroyQueue(qid));
}

ROW(acltdtDequeueData)
{
    uint32_t qid = make_queue(2), v = 0;
    size_t len;
    unsigned char user[97];
    REJECTS(acltdtDequeueData(qid, NULL, 4, &len, NULL, 0, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL data");
    REJECTS(acltdtDequeueData(qid, &v, 4, NULL, NULL, 0, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL retDataSize");
    REJECTS(acltdtDequeueData(qid, &v, 4, &len, user, 97, 0), ACL_ERROR_INVALID_PARAM,
            "97 bytes of user data");
    REJECTS(acltdtDequeueData(0, &v, 4, &len, NULL, 0, 0), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
    ACL_OK(acltdtDestroyQueue(qid));
}

ROW(acltdtGrantQueue)
{
    uint32_t qid = make_queue(2);
    REJECTS(acltdtGrantQueue(qid, 0, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0), ACL_ERROR_INVALID_PARAM,
            "pid 0");
    REJECTS(acltdtGrantQueue(qid, 1, 0, 0), ACL_ERROR_INVALID_PARAM, "no permission bits");
    REJECTS(acltdtGrantQueue(qid, 1, 8, 0), ACL_ERROR_INVALID_PARAM, "an unknown permission bit");
    REJECTS(acltdtGrantQueue(0, 1, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0), ACL_ERROR_INVALID_QUEUE_ID,
            "qid 0");
    ACL_OK(acltdtDestroyQueue(qid));
}

ROW(acltdtAttachQueue)
{
    uint32_t perm;
    REJECTS(acltdtAttachQueue(1u << 22 | 1, 0, NULL), ACL_ERROR_INVALID_PARAM, "a NULL permission");
    REJECTS(acltdtAttachQueue(1u << 22 | 1, -3, &perm), ACL_ERROR_INVALID_PARAM, "timeout -3");
    REJECTS(acltdtAttachQueue(0, 0, &perm), ACL_ERROR_INVALID_QUEUE_ID, "qid 0");
}

ROW(acltdtBindQueueRoutes)
{
    REJECTS(acltdtBindQueueRoutes(NULL), ACL_ERROR_INVALID_PARAM, "a NULL qRouteList");
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    ACL_OK(acltdtDestroyQueueRouteList(l));
    REJECTS_HOSTILE(acltdtBindQueueRoutes(l), ACL_ERROR_INVALID_PARAM, "a destroyed qRouteList");
}

ROW(acltdtUnbindQueueRoutes)
{
    REJECTS(acltdtUnbindQueueRoutes(NULL), ACL_ERROR_INVALID_PARAM, "a NULL qRouteList");
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    ACL_OK(acltdtDestroyQueueRouteList(l));
    REJECTS_HOSTILE(acltdtUnbindQueueRoutes(l), ACL_ERROR_INVALID_PARAM, "a destroyed qRouteList");
}

ROW(acltdtQueryQueueRoutes)
{
    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    REJECTS(acltdtQueryQueueRoutes(NULL, l), ACL_ERROR_INVALID_PARAM, "a NULL queryInfo");
    REJECTS(acltdtQueryQueueRoutes(q, NULL), ACL_ERROR_INVALID_PARAM, "a NULL qRouteList");
    REJECTS(acltdtQueryQueueRoutes(q, l), ACL_ERROR_INVALID_PARAM, "a query with no mode");
    int32_t mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    REJECTS(acltdtQueryQueueRoutes(q, l), ACL_ERROR_INVALID_PARAM, "mode SRC without a source id");
    mode = 7;
    ACL_OK(
        acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    REJECTS(acltdtQueryQueueRoutes(q, l), ACL_ERROR_INVALID_PARAM, "mode 7");
    ACL_OK(acltdtDestroyQueueRouteList(l));
    ACL_OK(acltdtDestroyQueueRouteQueryInfo(q));
}

static const compat_row rows[] = {
    COMPAT_ROW(acltdtCreateQueue),
    COMPAT_ROW(acltdtDestroyQueue),
    COMPAT_ROW(acltdtEnqueue),
    COMPAT_ROW(acltdtDequeue),
    COMPAT_ROW(acltdtEnqueueData),
    COMPAT_ROW(acltdtDequeueData),
    COMPAT_ROW(acltdtGrantQueue),
    COMPAT_ROW(acltdtAttachQueue),
    COMPAT_ROW(acltdtBindQueueRoutes),
    COMPAT_ROW(acltdtUnbindQueueRoutes),
    COMPAT_ROW(acltdtQueryQueueRoutes),
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
    tcase_add_test(tc, test_tdt_queue_threads);
    tcase_add_test(tc, test_tdt_queue_full_empty);
    tcase_add_test(tc, test_tdt_queue_buffers);
    tcase_add_test(tc, test_tdt_queue_destroy_in_use);
    tcase_add_test(tc, test_tdt_queue_routes);
    tcase_add_test(tc, test_tdt_queue_processes);
    tcase_add_test(tc, test_tdt_queue_peer_dies);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_tdt_queue);
    return s;
}

COMPAT_MAIN(tdt_queue)
