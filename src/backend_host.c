/* The host backend: "devices" are plain CPU memory and threads.
 *
 * Each stream is a FIFO of tasks run in order by a worker thread that starts
 * when work arrives and exits after a short idle spell, so thousands of idle
 * streams cost no threads. Every task gets a sequence number; a stream counts
 * tasks enqueued and completed, and an event is a mark (stream, sequence)
 * that is complete once the stream's completed count reaches it.
 *
 * Locking: each stream has one mutex guarding its queue and counters, and an
 * event has one guarding its current mark. No code holds two stream locks at
 * once, and no lock is held while a task runs, so a worker may block on
 * another stream's progress (a cross-stream wait) or in a user function
 * without stalling anyone else. Streams and marks are reference counted:
 * a destroyed stream lives on while its worker drains the queue or a mark
 * (held by an event or a queued wait) still points at it. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "internal.h"

enum {
    MAX_DEVICES = 64,
    DEVICE_ALIGN = 256,               /* start of every device allocation */
    WORKER_STACK = 1024 * 1024,       /* enough for host functions; mostly untouched */
    WORKER_IDLE_MS = 200,             /* an idle worker exits after this long */
};

#define DEFAULT_DEVICE_MEMORY ((size_t)8 << 30)
#define ALLOC_MAGIC UINT64_C(0x686f73746d656d21) /* "hostmem!" */

/* ---- configuration --------------------------------------------------------- */

static struct {
    int32_t device_count;
    size_t capacity;   /* bytes of "device" memory per device */
    int64_t cpus;
    size_t page_size;
} config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static _Atomic size_t device_used[MAX_DEVICES];

static int32_t parse_device_count(const char *text)
{
    if (!text || !*text)
        return 1;
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || *end || n < 1)
        return 1;
    return n > MAX_DEVICES ? MAX_DEVICES : (int32_t)n;
}

/* Bytes, optionally with a binary suffix K, M, G or T; anything unparsable
 * or zero leaves the default. */
static size_t parse_memory_size(const char *text)
{
    if (!text || !*text || *text == '-')
        return DEFAULT_DEVICE_MEMORY;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno || end == text || n == 0)
        return DEFAULT_DEVICE_MEMORY;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return DEFAULT_DEVICE_MEMORY;
    }
    if (shift && end[1] != '\0')
        return DEFAULT_DEVICE_MEMORY;
    if (n > (SIZE_MAX >> shift))
        return DEFAULT_DEVICE_MEMORY;
    return (size_t)n << shift;
}

static void config_load(void)
{
    config.device_count = parse_device_count(getenv("ACLCUDA_HOST_DEVICE_COUNT"));
    config.capacity = parse_memory_size(getenv("ACLCUDA_HOST_DEVICE_MEMORY"));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    config.cpus = cpus > 0 ? cpus : 1;
    long page = sysconf(_SC_PAGESIZE);
    config.page_size = page > 0 ? (size_t)page : 4096;
}

static void config_ensure(void)
{
    pthread_once(&config_once, config_load);
}

static bool device_valid(int32_t dev)
{
    config_ensure();
    return dev >= 0 && dev < config.device_count;
}

/* ---- process level ------------------------------------------------------------ */

static aclError host_probe(void)
{
    config_ensure();
    return ACL_SUCCESS;
}

static int32_t host_device_count(void)
{
    config_ensure();
    return config.device_count;
}

static aclError host_device_props(int32_t dev, device_props *props)
{
    if (!device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!props)
        return ACL_ERROR_RT_PARAM_INVALID;
    memset(props, 0, sizeof *props);
    strcpy(props->name, "acl-cuda host backend (CPU)");
    /* A fixed UUID per index: "acl-host" in RFC 9562 version 8 ("custom")
     * layout, the index in the last two bytes. */
    static const uint8_t uuid_base[16] = {0x61, 0x63, 0x6c, 0x2d, 0x68, 0x6f, 0x83, 0x74,
                                          0x80, 0, 0, 0, 0, 0, 0, 0};
    memcpy(props->uuid, uuid_base, sizeof props->uuid);
    props->uuid[14] = (uint8_t)(dev >> 8);
    props->uuid[15] = (uint8_t)dev;
    props->total_mem = config.capacity;
    props->multiprocessors = config.cpus;
    props->warp_size = 1;
    props->max_threads_per_block = 1024;
    props->max_threads_per_mp = 1024;
    props->shared_mem_per_block = 48 * 1024;
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    props->l2_cache_size = l2 > 0 ? l2 : 1024 * 1024;
    props->max_grid[0] = INT32_MAX;
    props->max_grid[1] = 65535;
    props->max_grid[2] = 65535;
    props->max_block[0] = 1024;
    props->max_block[1] = 1024;
    props->max_block[2] = 64;
    props->pci_domain = 0;
    props->pci_bus = 0;
    props->pci_device = dev;
    /* One priority level: every stream runs on its own thread anyway. */
    props->least_priority = 0;
    props->greatest_priority = 0;
    return ACL_SUCCESS;
}

static aclError host_mem_info(int32_t dev, size_t *free_bytes, size_t *total_bytes)
{
    if (!device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!free_bytes || !total_bytes)
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t used = atomic_load(&device_used[dev]);
    *free_bytes = config.capacity - used;
    *total_bytes = config.capacity;
    return ACL_SUCCESS;
}

static aclError host_can_access_peer(int32_t dev, int32_t peer, int32_t *can)
{
    if (!device_valid(dev) || !device_valid(peer))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!can)
        return ACL_ERROR_RT_PARAM_INVALID;
    /* All host devices share one address space; a device is not its own peer. */
    *can = dev != peer;
    return ACL_SUCCESS;
}

/* No code outside the library addresses host devices: nothing to switch. */
static aclError host_make_current(int32_t dev)
{
    return device_valid(dev) ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}

static aclError host_set_peer(int32_t dev, int32_t peer)
{
    if (!device_valid(dev) || !device_valid(peer))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    return ACL_SUCCESS;
}

/* ---- memory ------------------------------------------------------------------------ */

/* Sits in the DEVICE_ALIGN bytes before each device block, so a free knows
 * what to give back to which device. */
typedef struct alloc_header {
    uint64_t magic;
    size_t charged;
    int32_t dev;
} alloc_header;
_Static_assert(sizeof(alloc_header) <= DEVICE_ALIGN, "header must fit in front of the block");

static aclError host_malloc_device(int32_t dev, void **ptr, size_t size)
{
    if (!device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (size > SIZE_MAX - 2 * DEVICE_ALIGN)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t charged = ((size ? size : 1) + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;

    size_t used = atomic_load(&device_used[dev]);
    do {
        if (charged > config.capacity - used)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    } while (!atomic_compare_exchange_weak(&device_used[dev], &used, used + charged));

    char *block = aligned_alloc(DEVICE_ALIGN, DEVICE_ALIGN + charged);
    if (!block) {
        atomic_fetch_sub(&device_used[dev], charged);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    alloc_header *h = (alloc_header *)block;
    h->magic = ALLOC_MAGIC;
    h->charged = charged;
    h->dev = dev;
    *ptr = block + DEVICE_ALIGN;
    return ACL_SUCCESS;
}

static aclError host_free_device(int32_t dev, void *ptr)
{
    (void)dev; /* the header knows which device the block came from */
    if (!ptr || (uintptr_t)ptr % DEVICE_ALIGN)
        return ACL_ERROR_RT_PARAM_INVALID;
    char *block = (char *)ptr - DEVICE_ALIGN;
    alloc_header *h = (alloc_header *)block;
    if (h->magic != ALLOC_MAGIC || h->dev < 0 || h->dev >= MAX_DEVICES)
        return ACL_ERROR_RT_MEMORY_FREE;
    h->magic = 0;
    atomic_fetch_sub(&device_used[h->dev], h->charged);
    free(block);
    return ACL_SUCCESS;
}

static aclError host_malloc_host(void **ptr, size_t size)
{
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    config_ensure();
    size_t page = config.page_size;
    if (size > SIZE_MAX - page)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t rounded = ((size ? size : 1) + page - 1) / page * page;
    /* "Pinned" is only a label here: nothing pages the memory out that a copy
     * would have to wait for, so it is not locked. */
    void *p = aligned_alloc(page, rounded);
    if (!p)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    *ptr = p;
    return ACL_SUCCESS;
}

static aclError host_free_host(void *ptr)
{
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    free(ptr);
    return ACL_SUCCESS;
}

static void copy_2d(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                    size_t height)
{
    for (size_t row = 0; row < height; row++)
        memmove(dst + row * dpitch, src + row * spitch, width);
}

static aclError check_2d(const void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width)
{
    if (!dst || !src || dpitch < width || spitch < width)
        return ACL_ERROR_RT_PARAM_INVALID;
    return ACL_SUCCESS;
}

static aclError host_memcpy_sync(int32_t dev, void *dst, const void *src, size_t n, copy_dir dir,
                                 bool src_pinned)
{
    (void)dev;
    (void)dir; /* every direction is a CPU copy */
    (void)src_pinned;
    if (n == 0)
        return ACL_SUCCESS;
    if (!dst || !src)
        return ACL_ERROR_RT_PARAM_INVALID;
    memmove(dst, src, n);
    return ACL_SUCCESS;
}

static aclError host_memcpy2d_sync(int32_t dev, void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height, copy_dir dir,
                                   bool src_pinned)
{
    (void)dev;
    (void)dir;
    (void)src_pinned;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    aclError err = check_2d(dst, dpitch, src, spitch, width);
    if (err == ACL_SUCCESS)
        copy_2d(dst, dpitch, src, spitch, width, height);
    return err;
}

static aclError host_memset_sync(int32_t dev, void *ptr, uint8_t value, size_t n, bool on_device)
{
    (void)dev;
    (void)on_device;
    if (n == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    memset(ptr, value, n);
    return ACL_SUCCESS;
}

/* ---- streams and marks ---------------------------------------------------------- */

typedef struct mark mark;

typedef enum task_kind {
    TASK_COPY,
    TASK_COPY_2D,
    TASK_SET,
    TASK_HOST_FN,
    TASK_WAIT,      /* until a mark on another stream is complete */
    TASK_TIMESTAMP, /* stamps a timing event's mark */
} task_kind;

typedef struct task {
    struct task *next;
    task_kind kind;
    union {
        struct {
            void *dst;
            const void *src;
            size_t n;
        } copy;
        struct {
            void *dst;
            const void *src;
            size_t dpitch, spitch, width, height;
        } copy_2d;
        struct {
            void *dst;
            size_t n;
            uint8_t value;
        } set;
        struct {
            host_fn fn;
            void *arg;
        } call;
        mark *mark; /* TASK_WAIT, TASK_TIMESTAMP: one reference */
    } u;
} task;

struct backend_stream {
    atomic_int refs; /* the creator until destroy, a running worker, marks */
    int32_t dev;
    pthread_mutex_t lock;
    pthread_cond_t work_cv; /* the worker waits here for tasks */
    pthread_cond_t done_cv; /* waiters for completions */
    task *head, *tail;
    uint64_t enqueued, completed;
    /* Smallest sequence anyone waits for on done_cv; completions below it
     * wake no one, so a long queue does not broadcast once per task. */
    uint64_t wake_at;
    bool worker_running;
    bool worker_idle;   /* waiting for tasks, not running one */
    bool worker_joined; /* destroy joins it; otherwise it detaches itself */
    pthread_t worker;
    bool destroyed;
    backend_stream *fork_next, *fork_prev; /* every stream, for the fork handlers */
    bool orphaned_ref; /* a reference of a worker left behind in the parent by fork */
    task *running; /* the task the worker is running, NULL between tasks */
};

/* Where an event was recorded: complete once stream->completed >= seq.
 * A NULL stream means it was complete when taken. Immutable once published,
 * except stamp_ns, which the worker writes before it counts the timestamp
 * task complete (the stream lock orders that write before any reader). */
struct mark {
    atomic_int refs;
    backend_stream *stream; /* one reference, or NULL */
    uint64_t seq;
    int64_t stamp_ns;       /* CLOCK_MONOTONIC, timing marks only */
};

struct backend_event {
    int32_t dev;
    bool timing;
    pthread_mutex_t lock;
    mark *current; /* NULL until first recorded */
};

static void stream_retain(backend_stream *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

/* ---- fork -----------------------------------------------------------------------
 * A child process inherits every stream but none of the worker threads. The
 * child handler forgets those workers, counting the task one was running as
 * done (the child has the memory as it was at the fork), so that the next
 * enqueue or wait starts a fresh worker. The prepare handler holds every
 * stream lock across the fork, so that none is inherited locked. */
static void task_free(task *t);

static backend_stream *all_streams;
static pthread_mutex_t all_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

static void init_stream_conds(backend_stream *s)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->work_cv, &attr);
    pthread_cond_init(&s->done_cv, &attr);
    pthread_condattr_destroy(&attr);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&all_streams_lock);
    for (backend_stream *s = all_streams; s; s = s->fork_next)
        pthread_mutex_lock(&s->lock);
}

static void fork_parent(void)
{
    for (backend_stream *s = all_streams; s; s = s->fork_next)
        pthread_mutex_unlock(&s->lock);
    pthread_mutex_unlock(&all_streams_lock);
}

static void fork_child(void)
{
    task *abandoned = NULL; /* the tasks the parent's workers were running */
    for (backend_stream *s = all_streams; s; s = s->fork_next) {
        if (s->running) {
            s->running->next = abandoned;
            abandoned = s->running;
            s->running = NULL;
        }
        if (s->worker_running) {
            uint64_t queued = 0;
            for (task *t = s->head; t; t = t->next)
                queued++;
            s->completed = s->enqueued - queued;
            s->worker_running = false;
            s->worker_idle = false;
            s->wake_at = UINT64_MAX;
            /* The worker's reference stays: the next worker takes it over. */
            s->orphaned_ref = true;
        }
        init_stream_conds(s); /* their waiters were threads of the parent */
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&all_streams_lock);
    while (abandoned) {
        task *t = abandoned;
        abandoned = t->next;
        task_free(t);
    }
}

static void register_fork_handlers(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static void stream_release(backend_stream *s)
{
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* The last reference: no worker, hence an empty queue, and no waiters. */
    pthread_mutex_lock(&all_streams_lock);
    if (s->fork_prev)
        s->fork_prev->fork_next = s->fork_next;
    else
        all_streams = s->fork_next;
    if (s->fork_next)
        s->fork_next->fork_prev = s->fork_prev;
    pthread_mutex_unlock(&all_streams_lock);
    pthread_cond_destroy(&s->done_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static mark *mark_new(backend_stream *s)
{
    mark *m = malloc(sizeof *m);
    if (!m)
        return NULL;
    atomic_init(&m->refs, 1);
    m->stream = s;
    if (s)
        stream_retain(s);
    m->seq = 0;
    m->stamp_ns = 0;
    return m;
}

static void mark_release(mark *m)
{
    if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (m->stream)
        stream_release(m->stream);
    free(m);
}

static aclError worker_start(backend_stream *s);

/* Waits until s has completed seq. timeout_ms: negative = forever, 0 = just
 * look. Returns whether seq was reached. Takes only s's lock. */
static bool stream_wait_seq(backend_stream *s, uint64_t seq, int32_t timeout_ms)
{
    struct timespec deadline;
    if (timeout_ms > 0)
        deadline_after_ms(&deadline, timeout_ms);
    bool reached = true;
    pthread_mutex_lock(&s->lock);
    /* Only after a fork can tasks wait without a worker. */
    if (s->head && !s->worker_running && worker_start(s) != ACL_SUCCESS) {
        pthread_mutex_unlock(&s->lock);
        return s->completed >= seq;
    }
    while (s->completed < seq) {
        if (timeout_ms == 0) {
            reached = false;
            break;
        }
        if (seq < s->wake_at)
            s->wake_at = seq;
        if (timeout_ms < 0) {
            pthread_cond_wait(&s->done_cv, &s->lock);
        } else if (pthread_cond_timedwait(&s->done_cv, &s->lock, &deadline) == ETIMEDOUT) {
            reached = s->completed >= seq;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return reached;
}

static bool mark_wait(const mark *m, int32_t timeout_ms)
{
    if (!m || !m->stream)
        return true;
    return stream_wait_seq(m->stream, m->seq, timeout_ms);
}

/* Runs t on the worker; no lock is held. */
static void task_run(task *t)
{
    switch (t->kind) {
    case TASK_COPY:
        memmove(t->u.copy.dst, t->u.copy.src, t->u.copy.n);
        break;
    case TASK_COPY_2D:
        copy_2d(t->u.copy_2d.dst, t->u.copy_2d.dpitch, t->u.copy_2d.src, t->u.copy_2d.spitch,
                t->u.copy_2d.width, t->u.copy_2d.height);
        break;
    case TASK_SET:
        memset(t->u.set.dst, t->u.set.value, t->u.set.n);
        break;
    case TASK_HOST_FN:
        t->u.call.fn(t->u.call.arg);
        break;
    case TASK_WAIT:
        mark_wait(t->u.mark, -1);
        break;
    case TASK_TIMESTAMP:
        t->u.mark->stamp_ns = monotonic_ns();
        break;
    }
}

/* Frees a task that ran (or never will) with its mark reference. Called
 * without stream locks: the last reference to a mark may free a stream. */
static void task_free(task *t)
{
    if (t->kind == TASK_WAIT || t->kind == TASK_TIMESTAMP)
        mark_release(t->u.mark);
    free(t);
}

static void *stream_worker(void *arg)
{
    backend_stream *s = arg;
    pthread_setname_np(pthread_self(), "acl-host-stream"); /* for ps, gdb, perf */
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (!s->head && !s->destroyed) {
            struct timespec idle_until;
            deadline_after_ms(&idle_until, WORKER_IDLE_MS);
            int rc = 0;
            s->worker_idle = true;
            while (!s->head && !s->destroyed && rc != ETIMEDOUT)
                rc = pthread_cond_timedwait(&s->work_cv, &s->lock, &idle_until);
            s->worker_idle = false;
        }
        if (!s->head)
            break; /* idle for a while, or destroyed and drained */
        task *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        s->running = t;
        pthread_mutex_unlock(&s->lock);

        task_run(t);

        pthread_mutex_lock(&s->lock);
        s->running = NULL;
        s->completed++;
        if (s->completed >= s->wake_at) {
            s->wake_at = UINT64_MAX;
            pthread_cond_broadcast(&s->done_cv);
        }
        pthread_mutex_unlock(&s->lock);
        task_free(t);
        pthread_mutex_lock(&s->lock);
    }
    s->worker_running = false;
    if (!s->worker_joined)
        pthread_detach(pthread_self());
    pthread_mutex_unlock(&s->lock);
    stream_release(s);
    return NULL;
}

/* Called with s->lock held. The worker gets its own reference. */
static aclError worker_start(backend_stream *s)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr))
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    pthread_attr_setstacksize(&attr, WORKER_STACK);
    /* Workers inherit a full signal mask, so asynchronous signals go to the
     * application's own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool inherited_ref = s->orphaned_ref;
    if (inherited_ref)
        s->orphaned_ref = false;
    else
        stream_retain(s);
    int rc = pthread_create(&s->worker, &attr, stream_worker, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc) {
        if (inherited_ref)
            s->orphaned_ref = true;
        else /* not the last reference: the caller holds one */
            atomic_fetch_sub_explicit(&s->refs, 1, memory_order_relaxed);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    s->worker_running = true;
    return ACL_SUCCESS;
}

/* Appends t to s; when m is given it becomes the mark of t's completion.
 * On failure t stays the caller's. */
static aclError stream_enqueue(backend_stream *s, task *t, mark *m)
{
    t->next = NULL;
    pthread_mutex_lock(&s->lock);
    if (!s->worker_running) {
        aclError err = worker_start(s);
        if (err != ACL_SUCCESS) {
            pthread_mutex_unlock(&s->lock);
            return err;
        }
    }
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    s->enqueued++;
    if (m)
        m->seq = s->enqueued;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

static task *task_new(task_kind kind)
{
    task *t = malloc(sizeof *t);
    if (t)
        t->kind = kind;
    return t;
}

/* Enqueues t, freeing it if that fails. */
static aclError submit(backend_stream *s, task *t)
{
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS)
        free(t);
    return err;
}

static aclError host_memcpy_async(backend_stream *s, void *dst, const void *src, size_t n,
                                  copy_dir dir)
{
    (void)dir;
    if (!s)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (n == 0)
        return ACL_SUCCESS;
    if (!dst || !src)
        return ACL_ERROR_RT_PARAM_INVALID;
    task *t = task_new(TASK_COPY);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.n = n;
    return submit(s, t);
}

static aclError host_memcpy2d_async(backend_stream *s, void *dst, size_t dpitch, const void *src,
                                    size_t spitch, size_t width, size_t height, copy_dir dir)
{
    (void)dir;
    if (!s)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    aclError err = check_2d(dst, dpitch, src, spitch, width);
    if (err != ACL_SUCCESS)
        return err;
    task *t = task_new(TASK_COPY_2D);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.copy_2d.dst = dst;
    t->u.copy_2d.dpitch = dpitch;
    t->u.copy_2d.src = src;
    t->u.copy_2d.spitch = spitch;
    t->u.copy_2d.width = width;
    t->u.copy_2d.height = height;
    return submit(s, t);
}

static aclError host_memset_async(backend_stream *s, void *ptr, uint8_t value, size_t n,
                                  bool on_device)
{
    (void)on_device;
    if (!s)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (n == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    task *t = task_new(TASK_SET);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.set.dst = ptr;
    t->u.set.value = value;
    t->u.set.n = n;
    return submit(s, t);
}

static aclError host_launch_host_func(backend_stream *s, host_fn fn, void *arg)
{
    if (!s || !fn)
        return ACL_ERROR_RT_PARAM_INVALID;
    task *t = task_new(TASK_HOST_FN);
    if (!t)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    t->u.call.fn = fn;
    t->u.call.arg = arg;
    return submit(s, t);
}

static aclError host_stream_create(int32_t dev, int32_t priority, backend_stream **out)
{
    (void)priority; /* one level only, see device_props */
    if (!device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!out)
        return ACL_ERROR_RT_PARAM_INVALID;
    backend_stream *s = calloc(1, sizeof *s);
    if (!s)
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr)) {
        free(s);
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    bool ok = pthread_mutex_init(&s->lock, NULL) == 0;
    bool work_ok = ok && pthread_cond_init(&s->work_cv, &attr) == 0;
    bool done_ok = work_ok && pthread_cond_init(&s->done_cv, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!done_ok) {
        if (work_ok)
            pthread_cond_destroy(&s->work_cv);
        if (ok)
            pthread_mutex_destroy(&s->lock);
        free(s);
        return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    }
    atomic_init(&s->refs, 1);
    s->dev = dev;
    s->wake_at = UINT64_MAX;
    pthread_once(&fork_handlers_once, register_fork_handlers);
    pthread_mutex_lock(&all_streams_lock);
    s->fork_next = all_streams;
    if (all_streams)
        all_streams->fork_prev = s;
    all_streams = s;
    pthread_mutex_unlock(&all_streams_lock);
    *out = s;
    return ACL_SUCCESS;
}

static aclError host_stream_destroy(backend_stream *s)
{
    if (!s)
        return ACL_ERROR_RT_PARAM_INVALID;
    /* No waiting for work: a busy worker drains what is queued, then exits
     * on its own. An idle one is joined, which takes only as long as the
     * thread needs to end, so that a program which destroys its streams and
     * exits leaves no thread behind. */
    pthread_mutex_lock(&s->lock);
    s->destroyed = true;
    bool join = s->worker_running && s->worker_idle;
    s->worker_joined = join;
    pthread_t worker = s->worker;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    if (join)
        pthread_join(worker, NULL);
    stream_release(s);
    return ACL_SUCCESS;
}

static aclError host_stream_synchronize(backend_stream *s, int32_t timeout_ms)
{
    if (!s)
        return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->enqueued;
    pthread_mutex_unlock(&s->lock);
    return stream_wait_seq(s, target, timeout_ms) ? ACL_SUCCESS : ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
}

static aclError host_stream_query(backend_stream *s, bool *complete)
{
    if (!s || !complete)
        return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&s->lock);
    *complete = s->completed == s->enqueued;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

/* ---- events ------------------------------------------------------------------------ */

/* The event's current mark with a reference of the caller's own, or NULL if
 * it was never recorded. */
static mark *event_mark(backend_event *e)
{
    pthread_mutex_lock(&e->lock);
    mark *m = e->current;
    if (m)
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&e->lock);
    return m;
}

static aclError host_event_create(int32_t dev, bool timing, backend_event **out)
{
    if (!device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!out)
        return ACL_ERROR_RT_PARAM_INVALID;
    backend_event *e = calloc(1, sizeof *e);
    if (!e)
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    if (pthread_mutex_init(&e->lock, NULL)) {
        free(e);
        return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    }
    e->dev = dev;
    e->timing = timing;
    *out = e;
    return ACL_SUCCESS;
}

static aclError host_event_destroy(backend_event *e)
{
    if (!e)
        return ACL_ERROR_RT_PARAM_INVALID;
    /* Queued waits and timestamp tasks hold the mark, not the event. */
    mark_release(e->current);
    pthread_mutex_destroy(&e->lock);
    free(e);
    return ACL_SUCCESS;
}

static aclError host_event_record(backend_event *e, backend_stream *s)
{
    if (!e || !s)
        return ACL_ERROR_RT_PARAM_INVALID;
    mark *m;
    if (e->timing) {
        /* The mark is the timestamp task itself, which stamps it when run. */
        m = mark_new(s);
        task *t = m ? task_new(TASK_TIMESTAMP) : NULL;
        if (!t) {
            mark_release(m);
            return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        }
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
        t->u.mark = m;
        aclError err = stream_enqueue(s, t, m);
        if (err != ACL_SUCCESS) {
            free(t);
            mark_release(m); /* the task's */
            mark_release(m); /* ours */
            return err;
        }
    } else {
        /* Just note how far the stream has been fed; no task needed. */
        pthread_mutex_lock(&s->lock);
        uint64_t seq = s->enqueued;
        bool done = s->completed >= seq;
        pthread_mutex_unlock(&s->lock);
        m = mark_new(done ? NULL : s);
        if (!m)
            return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        m->seq = seq;
    }
    pthread_mutex_lock(&e->lock);
    mark *old = e->current;
    e->current = m;
    pthread_mutex_unlock(&e->lock);
    mark_release(old);
    return ACL_SUCCESS;
}

static aclError host_event_query(backend_event *e, bool *complete)
{
    if (!e || !complete)
        return ACL_ERROR_RT_PARAM_INVALID;
    mark *m = event_mark(e);
    *complete = mark_wait(m, 0);
    mark_release(m);
    return ACL_SUCCESS;
}

static aclError host_event_synchronize(backend_event *e, int32_t timeout_ms)
{
    if (!e)
        return ACL_ERROR_RT_PARAM_INVALID;
    mark *m = event_mark(e);
    bool reached = mark_wait(m, timeout_ms);
    mark_release(m);
    return reached ? ACL_SUCCESS : ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
}

static aclError host_stream_wait_event(backend_stream *s, backend_event *e)
{
    if (!s || !e)
        return ACL_ERROR_RT_PARAM_INVALID;
    mark *m = event_mark(e);
    /* Nothing to wait for: never recorded, already complete, or recorded on
     * s itself, whose FIFO order already puts that work first. */
    if (!m || !m->stream || m->stream == s || mark_wait(m, 0)) {
        mark_release(m);
        return ACL_SUCCESS;
    }
    task *t = task_new(TASK_WAIT);
    if (!t) {
        mark_release(m);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    t->u.mark = m; /* our reference passes to the task */
    aclError err = stream_enqueue(s, t, NULL);
    if (err != ACL_SUCCESS) {
        free(t);
        mark_release(m);
    }
    return err;
}

static aclError host_event_elapsed(backend_event *start, backend_event *end, float *ms)
{
    if (!start || !end || !ms)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (!start->timing || !end->timing)
        return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    mark *a = event_mark(start);
    mark *b = event_mark(end);
    aclError err = ACL_SUCCESS;
    if (!a || !b)
        err = ACL_ERROR_RT_INTERNAL_ERROR; /* never recorded */
    else if (!mark_wait(a, 0) || !mark_wait(b, 0))
        err = ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    else
        *ms = (float)((double)(b->stamp_ns - a->stamp_ns) / 1e6);
    mark_release(a);
    mark_release(b);
    return err;
}

static void *host_stream_native(backend_stream *s)
{
    (void)s;
    return NULL;
}

static void *host_event_native(backend_event *e)
{
    (void)e;
    return NULL;
}

const backend_ops backend_host_ops = {
    .name = "host",
    .probe = host_probe,
    .device_count = host_device_count,
    .device_props = host_device_props,
    .mem_info = host_mem_info,
    .can_access_peer = host_can_access_peer,
    .enable_peer = host_set_peer,
    .disable_peer = host_set_peer,
    .make_current = host_make_current,
    .malloc_device = host_malloc_device,
    .free_device = host_free_device,
    .malloc_host = host_malloc_host,
    .free_host = host_free_host,
    .memcpy_sync = host_memcpy_sync,
    .memcpy_async = host_memcpy_async,
    .memcpy2d_sync = host_memcpy2d_sync,
    .memcpy2d_async = host_memcpy2d_async,
    .memset_sync = host_memset_sync,
    .memset_async = host_memset_async,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_synchronize = host_stream_synchronize,
    .stream_query = host_stream_query,
    .stream_wait_event = host_stream_wait_event,
    .launch_host_func = host_launch_host_func,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_query = host_event_query,
    .event_synchronize = host_event_synchronize,
    .event_elapsed = host_event_elapsed,
    .stream_native = host_stream_native,
    .event_native = host_event_native,
};
