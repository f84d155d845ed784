/* Thread storms: many threads at once creating and destroying streams,
 * events and contexts, recording events that other threads' streams wait
 * for, copying each other's data, setting and resetting devices. Nothing may
 * deadlock and no work may be lost: every copy is checked. Also meant to run
 * under ThreadSanitizer; ACLCUDA_STORM_ROUNDS sizes the storm (default 300). */
#include <stdatomic.h>
#include <stdint.h>

#include "acltest.h"

enum {
    RING_THREADS = 16,  /* each hands data to the next through an event */
    CHURN_THREADS = 4,  /* set/reset a device and make/destroy contexts */
    BUF_SIZE = 4096,
    DEFAULT_ROUNDS = 300,
};

/* One message from a ring thread to the next: "when `event` completes,
 * `data` holds BUF_SIZE bytes of `value`". The sender waits for the
 * receiver's acknowledgement before it writes `data` again. */
typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool full;
    aclrtEvent event;
    const void *data;
    unsigned char value;
} mailbox;

typedef struct storm {
    int rounds;
    int32_t churn_device; /* device the churn threads set and reset */
    mailbox boxes[RING_THREADS];
    pthread_barrier_t done_with_boxes;
    atomic_int host_funcs_run;
} storm;

typedef struct ring_thread {
    storm *st;
    int index;
} ring_thread;

static int storm_rounds(void)
{
    const char *text = getenv("ACLCUDA_STORM_ROUNDS");
    int rounds = text ? atoi(text) : DEFAULT_ROUNDS;
    return rounds > 0 ? rounds : DEFAULT_ROUNDS;
}

static void assert_filled(const unsigned char *buf, size_t n, unsigned char value, const char *what)
{
    size_t i = 0;
    while (i < n && buf[i] == value)
        i++;
    ck_assert_msg(i == n, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, i < n ? buf[i] : 0,
                  value);
}

static void count_host_func(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* The receiver has read the last message: the sender may write again. */
static void wait_until_read(mailbox *box)
{
    pthread_mutex_lock(&box->lock);
    while (box->full)
        pthread_cond_wait(&box->cond, &box->lock);
    pthread_mutex_unlock(&box->lock);
}

static void post(mailbox *box, aclrtEvent event, const void *data, unsigned char value)
{
    pthread_mutex_lock(&box->lock);
    box->full = true;
    box->event = event;
    box->data = data;
    box->value = value;
    pthread_cond_broadcast(&box->cond);
    pthread_mutex_unlock(&box->lock);
}

/* Waits for the sender's data on `stream` through its event, copies it and
 * checks it, then lets the sender reuse its buffer. */
static void receive(mailbox *box, aclrtStream stream, unsigned char *host)
{
    pthread_mutex_lock(&box->lock);
    while (!box->full)
        pthread_cond_wait(&box->cond, &box->lock);
    aclrtEvent event = box->event;
    const void *data = box->data;
    unsigned char value = box->value;
    pthread_mutex_unlock(&box->lock);

    memset(host, 0, BUF_SIZE);
    ACL_OK(aclrtStreamWaitEvent(stream, event));
    ACL_OK(aclrtMemcpyAsync(host, BUF_SIZE, data, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    ACL_OK(aclrtSynchronizeStream(stream));
    assert_filled(host, BUF_SIZE, value, "data received from the previous thread");

    pthread_mutex_lock(&box->lock);
    box->full = false;
    pthread_cond_broadcast(&box->cond);
    pthread_mutex_unlock(&box->lock);
}

/* A private event made, recorded, waited for and destroyed. */
static void private_event(aclrtStream stream, int round)
{
    aclrtEvent e = NULL;
    if (round % 2)
        ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    else
        ACL_OK(aclrtCreateEvent(&e));
    ACL_OK(aclrtRecordEvent(e, stream));
    aclrtEventRecordedStatus status;
    ACL_OK(aclrtQueryEventStatus(e, &status));
    ACL_OK(aclrtSynchronizeEvent(e));
    ACL_OK(aclrtDestroyEvent(e));
}

static void *ring_body(void *arg)
{
    ring_thread *self = arg;
    storm *st = self->st;
    mailbox *outbox = &st->boxes[(self->index + 1) % RING_THREADS];
    mailbox *inbox = &st->boxes[self->index];
    ACL_OK(aclrtSetDevice(0));
    aclrtEvent sent = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&sent, ACL_EVENT_SYNC));
    void *data = NULL, *host = NULL;
    ACL_OK(aclrtMalloc(&data, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&host, BUF_SIZE));
    aclrtStream reader = acltest_new_stream();

    for (int round = 0; round < st->rounds; round++) {
        unsigned char value = (unsigned char)(self->index * 16 + round % 16 + 1);
        aclrtStream writer = acltest_new_stream();
        wait_until_read(outbox);
        ACL_OK(aclrtMemsetAsync(data, BUF_SIZE, value, BUF_SIZE, writer));
        ACL_OK(aclrtRecordEvent(sent, writer));
        ACL_OK(aclrtLaunchHostFunc(writer, count_host_func, &st->host_funcs_run));
        post(outbox, sent, data, value);

        receive(inbox, reader, host);
        private_event(writer, round);
        if (round % 4 == 0) {
            ACL_OK(aclrtSetDevice(0));
            ACL_OK(aclrtResetDevice(0));
        }
        if (round % 8 == 3)
            ACL_OK(aclrtSynchronizeDevice());
        ACL_OK(aclrtDestroyStream(writer));
    }

    /* Every thread is done with every mailbox (and so with `sent`). */
    pthread_barrier_wait(&st->done_with_boxes);
    ACL_OK(aclrtDestroyStream(reader));
    ACL_OK(aclrtDestroyEvent(sent));
    ACL_OK(aclrtFree(data));
    ACL_OK(aclrtFreeHost(host));
    ACL_OK(aclrtResetDevice(0));
    return NULL;
}

/* Sets and resets a device that nobody else holds, so that its default
 * context is destroyed and made again while other churn threads use it;
 * makes and destroys contexts of its own; checks a copy in each. */
static void *churn_body(void *arg)
{
    storm *st = arg;
    int32_t device = st->churn_device;
    unsigned char in[BUF_SIZE], out[BUF_SIZE];
    for (int round = 0; round < st->rounds; round++) {
        unsigned char value = (unsigned char)(round + 1);
        memset(in, value, sizeof in);
        ACL_OK(aclrtSetDevice(device));
        aclrtContext context = NULL;
        if (round % 2)
            ACL_OK(aclrtCreateContext(&context, device));
        aclrtStream stream = acltest_new_stream();
        void *dev = NULL;
        ACL_OK(aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
        ACL_OK(aclrtMemcpyAsync(dev, BUF_SIZE, in, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
        memset(out, 0, sizeof out);
        ACL_OK(aclrtMemcpyAsync(out, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        ACL_OK(aclrtSynchronizeStream(stream));
        assert_filled(out, BUF_SIZE, value, "churn copy");
        ACL_OK(aclrtDestroyStream(stream));
        ACL_OK(aclrtFree(dev));
        if (context)
            ACL_OK(aclrtDestroyContext(context));
        ACL_OK(aclrtResetDevice(device));
    }
    return NULL;
}

START_TEST(threads_storm)
{
    /* A second host device for the churn threads; read before the first
     * ACL call. With one real GPU they share device 0 with the ring. */
    setenv("ACLCUDA_HOST_DEVICE_COUNT", "2", 0);
    static storm st;
    st.rounds = storm_rounds();
    uint32_t devices = 0;
    ACL_OK(aclrtGetDeviceCount(&devices));
    st.churn_device = devices > 1 ? 1 : 0;
    for (int i = 0; i < RING_THREADS; i++) {
        pthread_mutex_init(&st.boxes[i].lock, NULL);
        pthread_cond_init(&st.boxes[i].cond, NULL);
    }
    pthread_barrier_init(&st.done_with_boxes, NULL, RING_THREADS);

    pthread_t threads[RING_THREADS + CHURN_THREADS];
    ring_thread ring[RING_THREADS];
    for (int i = 0; i < RING_THREADS; i++) {
        ring[i] = (ring_thread){&st, i};
        ck_assert_int_eq(pthread_create(&threads[i], NULL, ring_body, &ring[i]), 0);
    }
    for (int i = 0; i < CHURN_THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[RING_THREADS + i], NULL, churn_body, &st), 0);
    for (int i = 0; i < RING_THREADS + CHURN_THREADS; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);

    ck_assert_int_eq(atomic_load(&st.host_funcs_run), RING_THREADS * st.rounds);
    int32_t active = 1;
    ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
    ck_assert_int_eq(active, 0); /* every SetDevice was matched by a reset */
    pthread_barrier_destroy(&st.done_with_boxes);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("storm");
    TCase *tc = tcase_create("storm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, threads_storm);
    suite_add_tcase(s, tc);
    return acltest_run(s);
}
