/* Shared queues (see tdt_queue.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/mbuf.h"
#include "core/share.h"
#include "core/tdt_data.h"
#include "core/tdt_objects.h"
#include "core/tdt_queue.h"
#include "util/clock.h"
#include "util/fork.h"
#include "util/futex.h"
#include "util/log.h"
#include "util/memfd.h"

enum {
    PID_BITS = 22, /* PID_MAX_LIMIT on 64-bit Linux */
    INDEX_MAX = (1 << (32 - PID_BITS)) - 1,
    SLICE_MS = 100,           /* the longest single sleep of a wait */
    LOCK_TIMEOUT_S = 5,       /* a queue's mutex not released in this long is broken */
    ATTACH_POLL_MS = 10,      /* how often attach asks again while not granted */
    ALIGN = 64,               /* records start on cache lines */
    PUNCH_MIN = 2 << 20,      /* records this large give their pages back when taken */
    QUEUE_MAGIC = 0x51554555, /* "QUEU" */
    QUEUE_VERSION = 1,
};

/* ---- the shared layout ----------------------------------------------------------- */

typedef struct grant {
    int32_t pid;
    uint32_t perm;
} grant;

typedef struct qhdr {
    uint32_t magic, version, depth, spare;
    uint64_t arena_size;
    pthread_mutex_t lock; /* robust, process-shared */
    uint32_t head, count; /* the oldest slot, slots in use */
    uint64_t arena_head;  /* where the next record goes */
    uint64_t taken;       /* messages taken so far (a dequeue's check that its peek holds) */
    _Atomic uint32_t put_seq, take_seq; /* futex words: bumped by each enqueue / dequeue */
    _Atomic uint32_t destroyed;
    uint32_t grant_count;
    grant grants[TDT_QUEUE_GRANTS_MAX];
    char name[TDT_QUEUE_NAME_MAX];
} qhdr;

typedef struct qslot {
    uint64_t offset, size; /* the record in the arena */
    uint32_t nseg, spare;
} qslot;

/* A record: nseg segment heads, then each segment's data. */
typedef struct seg_head {
    uint64_t len;
    uint32_t user_len, spare;
    unsigned char user[MBUF_USER_DATA];
} seg_head;

/* What the creating process tells an attaching one (the broker's blob). */
typedef struct qdesc {
    uint32_t magic, depth;
    uint64_t arena_off, arena_size, map_size;
} qdesc;

/* ---- this process's queues ------------------------------------------------------- */

typedef struct tq {
    uint32_t qid, depth, perm;
    bool owner, gone;
    uint64_t arena_off, arena_size;
    size_t map_size;
    void *base;
    qhdr *h;
    qslot *slots;
    unsigned char *arena;
    share_name name;
    int refs;    /* under table_lock */
    int waiters; /* threads in an enqueue or dequeue of it, under table_lock */
    int routes;  /* routes bound here that use it, under table_lock */
    struct tq *next;
} tq;

typedef struct fwd {
    tdt_route_fields r;
    tq *src, *dst;
    pthread_t thread;
    atomic_bool stop;
    atomic_int status;
    struct fwd *next;
} fwd;

/* Guards the table, the index bitmap and the routes. Taken before the
 * share broker's lock; no queue's mutex is taken under it. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static tq *table;
static fwd *forwarders;
static uint64_t used_index[(INDEX_MAX + 64) / 64];

static uint32_t qid_pid(uint32_t qid)
{
    return qid & ((1u << PID_BITS) - 1);
}

static tq *find_locked(uint32_t qid)
{
    for (tq *q = table; q; q = q->next)
        if (q->qid == qid && !q->gone)
            return q;
    return NULL;
}

static void unmap(tq *q)
{
    munmap(q->base, q->map_size);
    free(q);
}

/* The queue qid of this process, held (tq_put). Raises. */
static aclError tq_get(const char *api, uint32_t qid, tq **out)
{
    pthread_mutex_lock(&table_lock);
    tq *q = find_locked(qid);
    if (q)
        q->refs++;
    pthread_mutex_unlock(&table_lock);
    if (q == NULL)
        return acl_raise(api, ACL_ERROR_INVALID_QUEUE_ID,
                         "queue %u was not created (or attached) in this process, or is "
                         "destroyed",
                         qid);
    *out = q;
    return ACL_SUCCESS;
}

/* tq_get for a call that may wait in the queue: destroy refuses while
 * one is in progress. */
static aclError tq_get_waiter(const char *api, uint32_t qid, tq **out)
{
    aclError ret = tq_get(api, qid, out);
    if (ret == ACL_SUCCESS) {
        pthread_mutex_lock(&table_lock);
        (*out)->waiters++;
        pthread_mutex_unlock(&table_lock);
    }
    return ret;
}

static void tq_put(tq *q);

static void tq_put_waiter(tq *q)
{
    pthread_mutex_lock(&table_lock);
    q->waiters--;
    pthread_mutex_unlock(&table_lock);
    tq_put(q);
}

static void tq_put(tq *q)
{
    pthread_mutex_lock(&table_lock);
    bool last = --q->refs == 0 && q->gone;
    pthread_mutex_unlock(&table_lock);
    if (last)
        unmap(q);
}

/* ---- futexes and the lock -------------------------------------------------------- */

/* Whether slot s describes a record inside the arena. */
static bool slot_ok(const tq *q, const qslot *s)
{
    return s->nseg >= 1 && s->nseg <= MBUF_CHAIN_MAX && s->offset <= q->arena_size &&
           s->size <= q->arena_size - s->offset && s->size >= s->nseg * sizeof(seg_head);
}

/* Whether the ring's indices are in range and its oldest record sane. */
static bool ring_ok(const tq *q)
{
    const qhdr *h = q->h;
    if (h->head >= q->depth || h->count > q->depth || h->arena_head > q->arena_size)
        return false;
    return h->count == 0 || slot_ok(q, &q->slots[h->head]);
}

static void ring_reset(tq *q)
{
    q->h->head = q->h->count = 0;
    q->h->arena_head = 0;
}

/* Takes q's mutex. A holder that died leaves the ring checked (and emptied
 * when inconsistent); a ring a peer scribbled on fails the call. Raises. */
static aclError q_lock(const char *api, tq *q)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += LOCK_TIMEOUT_S;
    int rc = pthread_mutex_clocklock(&q->h->lock, CLOCK_MONOTONIC, &until);
    if (rc == EOWNERDEAD) {
        if (!ring_ok(q)) {
            ACL_LOG(LOG_WARNING,
                    "queue %u: a process died holding its lock with the ring half changed; "
                    "the queue is emptied",
                    q->qid);
            ring_reset(q);
        }
        pthread_mutex_consistent(&q->h->lock);
        rc = 0;
    }
    if (rc != 0)
        return acl_raise(api, ACL_ERROR_RT_INTERNAL_ERROR,
                         "queue %u: its lock cannot be taken (%s)", q->qid,
                         rc == ETIMEDOUT ? "held for over 5 s" : strerror(rc));
    if (!ring_ok(q)) {
        pthread_mutex_unlock(&q->h->lock);
        return acl_raise(api, ACL_ERROR_RT_INTERNAL_ERROR,
                         "queue %u: its shared state is corrupt (a process wrote over it)", q->qid);
    }
    return ACL_SUCCESS;
}

static void q_unlock(tq *q)
{
    pthread_mutex_unlock(&q->h->lock);
}

static aclError destroyed_error(const char *api, const tq *q)
{
    return acl_raise(api, ACL_ERROR_INVALID_QUEUE_ID, "queue %u was destroyed by its owner",
                     q->qid);
}

/* Sleeps on *word (seen under the lock, now released) until it changes,
 * the deadline passes or a slice ends. False when the deadline passed. */
static bool wait_slice(_Atomic uint32_t *word, uint32_t seen, int32_t timeout, int64_t deadline)
{
    int32_t ms = SLICE_MS;
    if (timeout >= 0) {
        int32_t left = ms_left(deadline);
        if (left <= 0)
            return false;
        if (left < ms)
            ms = left;
    }
    struct timespec slice = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    futex_wait(word, seen, &slice);
    return true;
}

static int64_t deadline_of(int32_t timeout)
{
    return timeout > 0 ? monotonic_ns() + (int64_t)timeout * 1000000 : monotonic_ns();
}

/* ---- records --------------------------------------------------------------------- */

static uint64_t round_up(uint64_t n)
{
    return (n + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
}

/* Where a record of n bytes (rounded) can go now, under the lock. */
static bool arena_place(const tq *q, uint64_t n, uint64_t *off)
{
    const qhdr *h = q->h;
    if (h->count == 0) {
        *off = 0;
        return n <= q->arena_size;
    }
    uint64_t head = h->arena_head, tail = q->slots[h->head].offset;
    if (head >= tail) {
        if (q->arena_size - head >= n) {
            *off = head;
            return true;
        }
        *off = 0;
        return n < tail;
    }
    *off = head;
    return tail - head > n;
}

/* Publishes the record just written at off (size bytes, nseg segments). */
static void publish(tq *q, uint64_t off, uint64_t size, uint32_t nseg)
{
    qhdr *h = q->h;
    uint32_t at = (h->head + h->count) % q->depth;
    q->slots[at] = (qslot){.offset = off, .size = size, .nseg = nseg};
    h->arena_head = off + round_up(size);
    if (h->arena_head > q->arena_size)
        h->arena_head = q->arena_size;
    h->count++;
    atomic_fetch_add(&h->put_seq, 1);
    futex_wake_all(&h->put_seq);
}

/* Drops the oldest record (its big pages go back to the system). */
static void consume(tq *q)
{
    qhdr *h = q->h;
    qslot s = q->slots[h->head];
    if (s.size >= PUNCH_MIN) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t from = ((uintptr_t)(q->arena + s.offset) + page - 1) & ~(page - 1);
        uintptr_t to = ((uintptr_t)(q->arena + s.offset + s.size)) & ~(page - 1);
        if (to > from)
            (void)madvise((void *)from, to - from, MADV_REMOVE);
    }
    h->head = (h->head + 1) % q->depth;
    h->count--;
    h->taken++;
    if (h->count == 0)
        h->arena_head = 0; /* an empty queue starts over: a ping-pong stays in a few pages */
    atomic_fetch_add(&h->take_seq, 1);
    futex_wake_all(&h->take_seq);
}

/* The oldest record's segment heads, copied out and checked: lengths that
 * add up to the record. False when a peer wrote nonsense. */
static bool read_heads(const tq *q, const qslot *s, seg_head *heads)
{
    memcpy(heads, q->arena + s->offset, s->nseg * sizeof *heads);
    uint64_t room = s->size - s->nseg * sizeof *heads, sum = 0;
    for (uint32_t i = 0; i < s->nseg; i++) {
        if (heads[i].user_len > MBUF_USER_DATA || heads[i].len > room - sum)
            return false;
        sum += heads[i].len;
    }
    return sum == room;
}

/* A message going in: its segments, in host memory. */
typedef struct seg_in {
    const void *data;
    uint64_t len;
    unsigned char user[MBUF_USER_DATA];
    uint32_t user_len;
} seg_in;

static aclError record_size(const char *api, const tq *q, const seg_in *segs, uint32_t nseg,
                            uint64_t *size)
{
    uint64_t n = nseg * sizeof(seg_head);
    for (uint32_t i = 0; i < nseg; i++) {
        if (segs[i].len > q->arena_size - n)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "the message exceeds the queue's %llu bytes of room",
                             (unsigned long long)q->arena_size);
        n += segs[i].len;
    }
    if (round_up(n) > q->arena_size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the message exceeds the queue's %llu bytes of room",
                         (unsigned long long)q->arena_size);
    *size = n;
    return ACL_SUCCESS;
}

static void write_record(tq *q, uint64_t off, const seg_in *segs, uint32_t nseg)
{
    unsigned char *p = q->arena + off;
    unsigned char *data = p + nseg * sizeof(seg_head);
    for (uint32_t i = 0; i < nseg; i++) {
        seg_head sh = {.len = segs[i].len, .user_len = segs[i].user_len};
        memcpy(sh.user, segs[i].user, MBUF_USER_DATA);
        memcpy(p + i * sizeof sh, &sh, sizeof sh);
        if (segs[i].len > 0)
            memcpy(data, segs[i].data, segs[i].len);
        data += segs[i].len;
    }
}

static aclError need_perm(const char *api, const tq *q, uint32_t bit, const char *what)
{
    if (q->owner || (q->perm & bit))
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_NO_PERMISSION,
                     "this process was not granted %s permission on queue %u", what, q->qid);
}

/* Enqueues a message, waiting for room up to timeout. */
static aclError put(const char *api, tq *q, const seg_in *segs, uint32_t nseg, int32_t timeout)
{
    uint64_t size = 0;
    aclError ret = record_size(api, q, segs, nseg, &size);
    if (ret != ACL_SUCCESS)
        return ret;
    int64_t deadline = deadline_of(timeout);
    for (;;) {
        ret = q_lock(api, q);
        if (ret != ACL_SUCCESS)
            return ret;
        if (atomic_load(&q->h->destroyed)) {
            q_unlock(q);
            return destroyed_error(api, q);
        }
        uint64_t off;
        if (q->h->count < q->depth && arena_place(q, round_up(size), &off)) {
            write_record(q, off, segs, nseg);
            publish(q, off, size, nseg);
            q_unlock(q);
            return ACL_SUCCESS;
        }
        uint32_t seen = atomic_load(&q->h->take_seq);
        q_unlock(q);
        if (timeout == 0 || !wait_slice(&q->h->take_seq, seen, timeout, deadline))
            return acl_raise(api, ACL_ERROR_RT_QUEUE_FULL, "queue %u is full", q->qid);
    }
}

/* Waits, locked, for a message; on success the lock is held, the oldest
 * record's heads in heads (MBUF_CHAIN_MAX of room) and its slot in *slot. */
static aclError peek(const char *api, tq *q, int32_t timeout, int64_t deadline, seg_head *heads,
                     qslot *slot)
{
    for (;;) {
        aclError ret = q_lock(api, q);
        if (ret != ACL_SUCCESS)
            return ret;
        if (atomic_load(&q->h->destroyed)) {
            q_unlock(q);
            return destroyed_error(api, q);
        }
        if (q->h->count > 0) {
            *slot = q->slots[q->h->head];
            if (!read_heads(q, slot, heads)) {
                q_unlock(q);
                return acl_raise(api, ACL_ERROR_RT_INTERNAL_ERROR,
                                 "queue %u: its oldest message is corrupt (a process wrote over "
                                 "it)",
                                 q->qid);
            }
            return ACL_SUCCESS;
        }
        uint32_t seen = atomic_load(&q->h->put_seq);
        q_unlock(q);
        if (timeout == 0 || !wait_slice(&q->h->put_seq, seen, timeout, deadline))
            return acl_raise(api, ACL_ERROR_RT_QUEUE_EMPTY, "queue %u is empty", q->qid);
    }
}

/* ---- create, destroy, grant, attach ---------------------------------------------- */

static size_t page_up(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) & ~(page - 1);
}

/* Maps a queue's memfd and fills q's view of it from d. */
static aclError map_view(const char *api, int fd, const qdesc *d, tq *q)
{
    void *base = mmap(NULL, d->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map the queue: %s",
                         strerror(errno));
    q->base = base;
    q->map_size = d->map_size;
    q->depth = d->depth;
    q->arena_off = d->arena_off;
    q->arena_size = d->arena_size;
    q->h = base;
    q->slots = (qslot *)((char *)base + sizeof(qhdr));
    q->arena = (unsigned char *)base + d->arena_off;
    return ACL_SUCCESS;
}

static void table_add(tq *q)
{
    pthread_mutex_lock(&table_lock);
    q->next = table;
    table = q;
    pthread_mutex_unlock(&table_lock);
}

/* Unlinks q from the table (under table_lock); true when nobody holds it. */
static bool table_remove_locked(tq *q)
{
    for (tq **link = &table; *link; link = &(*link)->next)
        if (*link == q) {
            *link = q->next;
            break;
        }
    q->gone = true;
    return q->refs == 0;
}

aclError tdt_queue_create(const char *api, const acltdtQueueAttr *attr, uint32_t *qid)
{
    char name[TDT_QUEUE_NAME_MAX] = "";
    uint32_t depth = TDT_QUEUE_DEPTH_DEFAULT;
    if (attr != NULL) {
        aclError ret = tdt_attr_read(api, attr, name, &depth);
        if (ret != ACL_SUCCESS)
            return ret;
    }
    if (depth < TDT_QUEUE_DEPTH_MIN || depth > TDT_QUEUE_DEPTH_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "depth %u is not in [%d, %d]", depth,
                         TDT_QUEUE_DEPTH_MIN, TDT_QUEUE_DEPTH_MAX);
    tq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    pthread_mutex_lock(&table_lock);
    uint32_t index = 0;
    for (uint32_t i = 1; i <= INDEX_MAX && index == 0; i++)
        if (!(used_index[i / 64] & (UINT64_C(1) << (i % 64)))) {
            index = i;
            used_index[i / 64] |= UINT64_C(1) << (i % 64);
        }
    pthread_mutex_unlock(&table_lock);
    if (index == 0) {
        free(q);
        return acl_raise(api, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                         "this process has %d queues already", INDEX_MAX);
    }
    q->qid = index << PID_BITS | ((uint32_t)getpid() & ((1u << PID_BITS) - 1));
    q->owner = true;
    q->perm = ACL_TDT_QUEUE_PERMISSION_MANAGE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE |
              ACL_TDT_QUEUE_PERMISSION_ENQUEUE;
    qdesc d = {.magic = QUEUE_MAGIC, .depth = depth, .arena_size = TDT_QUEUE_ARENA};
    d.arena_off = page_up(sizeof(qhdr) + depth * sizeof(qslot));
    d.map_size = d.arena_off + d.arena_size;
    aclError ret = ACL_SUCCESS;
    int fd = sealed_memfd("acl-cuda.queue", d.map_size);
    if (fd < 0)
        ret = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot make the queue's memory: %s",
                        strerror(errno));
    if (ret == ACL_SUCCESS)
        ret = map_view(api, fd, &d, q);
    if (ret == ACL_SUCCESS) {
        qhdr *h = q->h;
        h->magic = QUEUE_MAGIC;
        h->version = QUEUE_VERSION;
        h->depth = depth;
        h->arena_size = d.arena_size;
        pthread_mutexattr_t ma;
        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
        pthread_mutex_init(&h->lock, &ma);
        pthread_mutexattr_destroy(&ma);
        if (name[0] == '\0')
            snprintf(h->name, sizeof h->name, "queue-%u", q->qid);
        else
            memcpy(h->name, name, sizeof h->name);
        ret = share_publish_at(SHARE_QUEUE, fd, &d, sizeof d, q->qid, &q->name);
        if (ret != ACL_SUCCESS)
            ret = acl_raise(api, ret, "cannot publish queue %u for other processes", q->qid);
        else
            fd = -1; /* the entry's now */
    }
    if (fd >= 0)
        close(fd);
    if (ret != ACL_SUCCESS) {
        if (q->base)
            munmap(q->base, q->map_size);
        free(q);
        pthread_mutex_lock(&table_lock);
        used_index[index / 64] &= ~(UINT64_C(1) << (index % 64));
        pthread_mutex_unlock(&table_lock);
        return ret;
    }
    table_add(q);
    *qid = q->qid;
    return ACL_SUCCESS;
}

aclError tdt_queue_destroy(const char *api, uint32_t qid)
{
    pthread_mutex_lock(&table_lock);
    tq *q = find_locked(qid);
    aclError ret = ACL_SUCCESS;
    if (q == NULL)
        ret = acl_raise(api, ACL_ERROR_INVALID_QUEUE_ID,
                        "queue %u was not created (or attached) in this process, or is destroyed",
                        qid);
    else if (q->waiters > 0 || q->routes > 0)
        ret = acl_raise(api, ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED, "queue %u is in use: %s", qid,
                        q->routes > 0 ? "a route bound in this process uses it (unbind it first)"
                                      : "a thread of this process is inside an enqueue or "
                                        "dequeue of it");
    bool last = false;
    if (ret == ACL_SUCCESS) {
        if (q->owner) {
            uint32_t index = qid >> PID_BITS;
            used_index[index / 64] &= ~(UINT64_C(1) << (index % 64));
        }
        last = table_remove_locked(q);
    }
    pthread_mutex_unlock(&table_lock);
    if (ret != ACL_SUCCESS)
        return ret;
    if (q->owner) {
        /* Attached processes' waiters wake and fail; later fetches fail. */
        atomic_store(&q->h->destroyed, 1);
        atomic_fetch_add(&q->h->put_seq, 1);
        atomic_fetch_add(&q->h->take_seq, 1);
        futex_wake_all(&q->h->put_seq);
        futex_wake_all(&q->h->take_seq);
        share_withdraw(&q->name);
    }
    if (last)
        unmap(q);
    return ACL_SUCCESS;
}

aclError tdt_queue_grant(const char *api, uint32_t qid, int32_t pid, uint32_t permission)
{
    tq *q;
    aclError ret = tq_get(api, qid, &q);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!q->owner) {
        tq_put(q);
        return acl_raise(api, ACL_ERROR_RT_NO_PERMISSION,
                         "queue %u belongs to process %u: only it grants", qid, qid_pid(qid));
    }
    if (pid == (int32_t)getpid()) {
        tq_put(q);
        return ACL_SUCCESS; /* the creator has every permission */
    }
    ret = q_lock(api, q);
    if (ret != ACL_SUCCESS) {
        tq_put(q);
        return ret;
    }
    qhdr *h = q->h;
    uint32_t n = h->grant_count < TDT_QUEUE_GRANTS_MAX ? h->grant_count : TDT_QUEUE_GRANTS_MAX;
    uint32_t i = 0;
    while (i < n && h->grants[i].pid != pid)
        i++;
    bool fresh = i == n;
    if (fresh && n == TDT_QUEUE_GRANTS_MAX) {
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "queue %u is granted to %d processes already",
                        qid, TDT_QUEUE_GRANTS_MAX);
    } else {
        h->grants[i] = (grant){.pid = pid, .perm = h->grants[i].perm | permission};
        if (fresh)
            h->grant_count = n + 1;
    }
    q_unlock(q);
    /* The broker's list is what admits a process; the header only tells
     * it its bits. */
    if (ret == ACL_SUCCESS && fresh)
        ret = share_allow(api, &q->name, &pid, 1);
    tq_put(q);
    return ret;
}

/* Checks an attached mapping against the creator's description. */
static bool view_ok(int fd, const qdesc *d)
{
    return memfd_holds(fd, d->map_size) && d->magic == QUEUE_MAGIC &&
           d->depth >= TDT_QUEUE_DEPTH_MIN && d->depth <= TDT_QUEUE_DEPTH_MAX &&
           d->arena_size == TDT_QUEUE_ARENA &&
           d->arena_off == page_up(sizeof(qhdr) + d->depth * sizeof(qslot)) &&
           d->map_size == d->arena_off + d->arena_size;
}

/* The permission bits the header's grants give this process (under q's lock). */
static uint32_t granted(const tq *q)
{
    const qhdr *h = q->h;
    uint32_t n = h->grant_count < TDT_QUEUE_GRANTS_MAX ? h->grant_count : TDT_QUEUE_GRANTS_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (h->grants[i].pid == (int32_t)getpid())
            return h->grants[i].perm &
                   (ACL_TDT_QUEUE_PERMISSION_MANAGE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE |
                    ACL_TDT_QUEUE_PERMISSION_ENQUEUE);
    return 0;
}

aclError tdt_queue_attach(const char *api, uint32_t qid, int32_t timeout, uint32_t *permission)
{
    pthread_mutex_lock(&table_lock);
    tq *known = find_locked(qid);
    if (known)
        known->refs++;
    pthread_mutex_unlock(&table_lock);
    if (known) {
        /* Attached already: the grants may have grown since. */
        aclError ret = known->owner ? ACL_SUCCESS : q_lock(api, known);
        if (ret == ACL_SUCCESS && !known->owner) {
            known->perm = granted(known);
            q_unlock(known);
        }
        *permission = known->perm;
        tq_put(known);
        return ret;
    }
    if (qid_pid(qid) == ((uint32_t)getpid() & ((1u << PID_BITS) - 1)) || qid >> PID_BITS == 0)
        return acl_raise(api, ACL_ERROR_INVALID_QUEUE_ID, "no queue has id %u", qid);
    share_name name = {.pid = (int32_t)qid_pid(qid), .id = qid};
    int64_t deadline = deadline_of(timeout);
    int fd = -1;
    qdesc d;
    aclError ret;
    for (;;) {
        size_t len = sizeof d;
        ret = share_fetch(&name, SHARE_QUEUE, &fd, &d, &len);
        if (ret == ACL_SUCCESS && (len != sizeof d || fd < 0))
            ret = ACL_ERROR_RT_IPC_ERROR;
        if (ret != ACL_ERROR_RT_NO_PERMISSION || timeout == 0 ||
            (timeout > 0 && ms_left(deadline) <= 0))
            break;
        struct timespec ts = {.tv_nsec = ATTACH_POLL_MS * 1000000};
        nanosleep(&ts, NULL);
    }
    if (ret == ACL_SUCCESS && !view_ok(fd, &d))
        ret = ACL_ERROR_RT_IPC_ERROR;
    if (ret != ACL_SUCCESS) {
        if (fd >= 0)
            close(fd);
        if (ret == ACL_ERROR_RT_NO_PERMISSION)
            return acl_raise(api, ret, "process %u has not granted queue %u to this process",
                             qid_pid(qid), qid);
        if (ret == ACL_ERROR_INVALID_PARAM)
            return acl_raise(api, ACL_ERROR_INVALID_QUEUE_ID,
                             "no queue has id %u (its process has none by that id, or ended)", qid);
        return acl_raise(api, ret, "queue %u cannot be attached: its process answered badly", qid);
    }
    tq *q = calloc(1, sizeof *q);
    if (q == NULL) {
        close(fd);
        return acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    }
    q->qid = qid;
    ret = map_view(api, fd, &d, q);
    close(fd);
    if (ret != ACL_SUCCESS) {
        free(q);
        return ret;
    }
    ret = q_lock(api, q);
    if (ret == ACL_SUCCESS) {
        q->perm = granted(q);
        bool destroyed = atomic_load(&q->h->destroyed);
        q_unlock(q);
        if (destroyed)
            ret = destroyed_error(api, q);
    }
    if (ret != ACL_SUCCESS) {
        unmap(q);
        return ret;
    }
    pthread_mutex_lock(&table_lock);
    known = find_locked(qid); /* another thread attached it meanwhile */
    if (known == NULL) {
        q->next = table;
        table = q;
    }
    *permission = known ? known->perm : q->perm;
    pthread_mutex_unlock(&table_lock);
    if (known)
        unmap(q);
    return ACL_SUCCESS;
}

/* ---- messages -------------------------------------------------------------------- */

aclError tdt_queue_enqueue_buf(const char *api, uint32_t qid, acltdtBuf buf, int32_t timeout)
{
    uint32_t nseg = 0;
    aclError ret = mbuf_chain_count(api, buf, &nseg);
    if (ret != ACL_SUCCESS)
        return ret;
    if (nseg == 0 || nseg > MBUF_CHAIN_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the buffer's chain has %u buffers", nseg);
    tq *q;
    ret = tq_get_waiter(api, qid, &q);
    if (ret != ACL_SUCCESS)
        return ret;
    seg_in *segs = calloc(nseg, sizeof *segs);
    ret = need_perm(api, q, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, "enqueue");
    if (ret == ACL_SUCCESS && segs == NULL)
        ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    for (uint32_t i = 0; ret == ACL_SUCCESS && i < nseg; i++) {
        acltdtBuf b = NULL;
        void *data = NULL;
        size_t size = 0, len = 0;
        ret = mbuf_chain_get(api, buf, i, &b);
        if (ret == ACL_SUCCESS)
            ret = mbuf_data(api, b, &data, &size);
        if (ret == ACL_SUCCESS)
            ret = mbuf_data_len(api, b, &len, NULL);
        if (ret == ACL_SUCCESS)
            ret = mbuf_user_data(api, b, segs[i].user, NULL, MBUF_USER_DATA, 0);
        segs[i].data = data;
        segs[i].len = len;
        segs[i].user_len = MBUF_USER_DATA;
    }
    if (ret == ACL_SUCCESS)
        ret = put(api, q, segs, nseg, timeout);
    free(segs);
    tq_put_waiter(q);
    if (ret == ACL_SUCCESS)
        (void)mbuf_free(api, buf); /* the queue holds the message now */
    return ret;
}

aclError tdt_queue_dequeue_buf(const char *api, uint32_t qid, acltdtBuf *buf, int32_t timeout)
{
    tq *q;
    aclError ret = tq_get_waiter(api, qid, &q);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = need_perm(api, q, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, "dequeue");
    seg_head *heads = ret == ACL_SUCCESS ? calloc(MBUF_CHAIN_MAX, sizeof *heads) : NULL;
    if (ret == ACL_SUCCESS && heads == NULL)
        ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    int64_t deadline = deadline_of(timeout);
    acltdtBuf bufs[MBUF_CHAIN_MAX];
    while (ret == ACL_SUCCESS) {
        /* Buffers are made outside the queue's lock (they take the
         * library's locks): peek, make, then take the message if it is
         * still the one peeked. */
        qslot slot;
        ret = peek(api, q, timeout, deadline, heads, &slot);
        if (ret != ACL_SUCCESS)
            break;
        uint64_t taken = q->h->taken;
        q_unlock(q);
        uint32_t made = 0;
        for (; ret == ACL_SUCCESS && made < slot.nseg; made++)
            ret = mbuf_alloc(api, &bufs[made], heads[made].len > 0 ? heads[made].len : 1);
        if (ret != ACL_SUCCESS)
            made--;
        if (ret == ACL_SUCCESS)
            ret = q_lock(api, q);
        bool same = ret == ACL_SUCCESS && q->h->taken == taken && q->h->count > 0 &&
                    memcmp(&q->slots[q->h->head], &slot, sizeof slot) == 0;
        if (same) {
            const unsigned char *data = q->arena + slot.offset + slot.nseg * sizeof(seg_head);
            for (uint32_t i = 0; i < slot.nseg; i++) {
                void *p;
                size_t size, len = heads[i].len;
                (void)mbuf_data(api, bufs[i], &p, &size);
                memcpy(p, data, len);
                data += len;
                (void)mbuf_data_len(api, bufs[i], NULL, &len);
                (void)mbuf_user_data(api, bufs[i], NULL, heads[i].user, MBUF_USER_DATA, 0);
            }
            consume(q);
        }
        if (ret == ACL_SUCCESS)
            q_unlock(q);
        if (same) {
            for (uint32_t i = 1; i < slot.nseg; i++)
                (void)mbuf_chain_append(api, bufs[0], bufs[i]);
            *buf = bufs[0];
            break;
        }
        for (uint32_t i = 0; i < made; i++)
            (void)mbuf_free(api, bufs[i]);
    }
    free(heads);
    tq_put_waiter(q);
    return ret;
}

aclError tdt_queue_enqueue_data(const char *api, const void *site, uint32_t qid, const void *data,
                                size_t size, const void *user, size_t user_size, int32_t timeout)
{
    tq *q;
    aclError ret = tq_get_waiter(api, qid, &q);
    if (ret != ACL_SUCCESS)
        return ret;
    seg_in seg = {.data = data, .len = size, .user_len = (uint32_t)user_size};
    void *staged = NULL;
    ret = need_perm(api, q, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, "enqueue");
    if (ret == ACL_SUCCESS && user_size > 0)
        ret = tdt_copy(api, site, seg.user, user, user_size);
    if (ret == ACL_SUCCESS && size > 0) {
        /* Device memory is staged in host memory first: the copy cannot
         * run under the queue's lock. */
        staged = malloc(size);
        if (staged == NULL)
            ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
        else
            ret = tdt_copy(api, site, staged, data, size);
        seg.data = staged;
    }
    if (ret == ACL_SUCCESS)
        ret = put(api, q, &seg, 1, timeout);
    free(staged);
    tq_put_waiter(q);
    return ret;
}

aclError tdt_queue_dequeue_data(const char *api, const void *site, uint32_t qid, void *data,
                                size_t size, size_t *ret_size, void *user, size_t user_size,
                                int32_t timeout)
{
    tq *q;
    aclError ret = tq_get_waiter(api, qid, &q);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = need_perm(api, q, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, "dequeue");
    seg_head *heads = ret == ACL_SUCCESS ? calloc(MBUF_CHAIN_MAX, sizeof *heads) : NULL;
    if (ret == ACL_SUCCESS && heads == NULL)
        ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
    qslot slot;
    if (ret == ACL_SUCCESS)
        ret = peek(api, q, timeout, deadline_of(timeout), heads, &slot);
    void *staged = NULL;
    unsigned char user_copy[MBUF_USER_DATA];
    if (ret == ACL_SUCCESS) {
        uint64_t len = slot.size - slot.nseg * sizeof(seg_head);
        *ret_size = (size_t)len;
        if (len > size) {
            q_unlock(q);
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "the message has %llu bytes, more than dataSize %zu (it stays in the "
                            "queue)",
                            (unsigned long long)len, size);
        } else {
            /* Copied out under the lock into host memory of ours, then to
             * the caller's (which may be device memory). */
            staged = malloc(len > 0 ? len : 1);
            if (staged != NULL) {
                memcpy(staged, q->arena + slot.offset + slot.nseg * sizeof(seg_head), len);
                memcpy(user_copy, heads[0].user, sizeof user_copy);
                consume(q);
            }
            q_unlock(q);
            if (staged == NULL)
                ret = acl_raise(api, ACL_ERROR_BAD_ALLOC, "out of memory");
            if (ret == ACL_SUCCESS)
                ret = tdt_copy(api, site, data, staged, len);
            if (ret == ACL_SUCCESS && user_size > 0)
                ret = tdt_copy(api, site, user, user_copy, user_size);
        }
    }
    free(staged);
    free(heads);
    tq_put_waiter(q);
    return ret;
}

/* ---- routes ---------------------------------------------------------------------- */

/* Locks two queues, the lower id first (every binder does the same). */
static aclError lock_pair(tq *a, tq *b)
{
    tq *first = a->qid < b->qid ? a : b, *second = first == a ? b : a;
    aclError ret = q_lock("acltdtBindQueueRoutes", first);
    if (ret != ACL_SUCCESS)
        return ret;
    ret = q_lock("acltdtBindQueueRoutes", second);
    if (ret != ACL_SUCCESS)
        q_unlock(first);
    return ret;
}

/* Moves the oldest message of src into dst, under both locks. */
static void move_one(fwd *f)
{
    tq *src = f->src, *dst = f->dst;
    if (lock_pair(src, dst) != ACL_SUCCESS) {
        atomic_store(&f->status, ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
        return;
    }
    if (atomic_load(&src->h->destroyed) || atomic_load(&dst->h->destroyed)) {
        q_unlock(src);
        q_unlock(dst);
        atomic_store(&f->status, ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
        return;
    }
    _Atomic uint32_t *word = NULL;
    uint32_t seen = 0;
    tq *wait_on = NULL;
    if (src->h->count == 0) {
        wait_on = src;
        word = &src->h->put_seq;
        seen = atomic_load(word);
    } else {
        qslot s = src->slots[src->h->head];
        uint64_t off;
        if (s.nseg > MBUF_CHAIN_MAX || s.size > dst->arena_size) {
            atomic_store(&f->status, ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
        } else if (dst->h->count < dst->depth && arena_place(dst, round_up(s.size), &off)) {
            memcpy(dst->arena + off, src->arena + s.offset, s.size);
            publish(dst, off, s.size, s.nseg);
            consume(src);
        } else {
            wait_on = dst;
            word = &dst->h->take_seq;
            seen = atomic_load(word);
        }
    }
    q_unlock(src);
    q_unlock(dst);
    if (wait_on)
        futex_wait(word, seen, &(struct timespec){.tv_nsec = SLICE_MS * 1000000L});
}

static void *forward(void *arg)
{
    fwd *f = arg;
    pthread_setname_np(pthread_self(), "acl-queue-route");
    while (!atomic_load(&f->stop) && atomic_load(&f->status) == ACL_TDT_QUEUE_ROUTE_BIND)
        move_one(f);
    return NULL;
}

static fwd *find_route_locked(uint32_t src, uint32_t dst)
{
    for (fwd *f = forwarders; f; f = f->next)
        if (f->r.src == src && f->r.dst == dst)
            return f;
    return NULL;
}

/* Binds one route; false (with a warning) when it cannot be. */
static bool bind_one(const char *api, uint32_t src_id, uint32_t dst_id)
{
    if (src_id == dst_id) {
        ACL_LOG(LOG_WARNING, "%s: route %u -> %u: a queue cannot feed itself", api, src_id, dst_id);
        return false;
    }
    tq *src, *dst;
    if (tq_get(api, src_id, &src) != ACL_SUCCESS)
        return false;
    if (tq_get(api, dst_id, &dst) != ACL_SUCCESS) {
        tq_put(src);
        return false;
    }
    bool ok = need_perm(api, src, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, "dequeue") == ACL_SUCCESS &&
              need_perm(api, dst, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, "enqueue") == ACL_SUCCESS;
    fwd *f = ok ? calloc(1, sizeof *f) : NULL;
    if (f) {
        f->r = (tdt_route_fields){src_id, dst_id, ACL_TDT_QUEUE_ROUTE_BIND};
        f->src = src;
        f->dst = dst;
        atomic_store(&f->status, ACL_TDT_QUEUE_ROUTE_BIND);
        pthread_mutex_lock(&table_lock);
        size_t count = 0;
        for (fwd *g = forwarders; g; g = g->next)
            count++;
        ok = find_route_locked(src_id, dst_id) == NULL && count < TDT_QUEUE_ROUTES_MAX;
        if (ok) {
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            ok = pthread_create(&f->thread, NULL, forward, f) == 0;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        if (ok) {
            src->routes++;
            dst->routes++;
            f->next = forwarders;
            forwarders = f;
        }
        pthread_mutex_unlock(&table_lock);
        if (!ok)
            free(f);
    }
    if (!ok) {
        ACL_LOG(LOG_WARNING, "%s: route %u -> %u cannot be bound", api, src_id, dst_id);
        tq_put(src);
        tq_put(dst);
    }
    return ok;
}

aclError tdt_queue_bind(const char *api, acltdtQueueRouteList *list)
{
    tdt_route_fields *routes;
    size_t count;
    aclError ret = tdt_route_list_read(api, list, &routes, &count);
    if (ret != ACL_SUCCESS)
        return ret;
    size_t failed = 0;
    for (size_t i = 0; i < count; i++) {
        bool ok = bind_one(api, routes[i].src, routes[i].dst);
        failed += !ok;
        tdt_route_list_set_status(
            list, i, ok ? ACL_TDT_QUEUE_ROUTE_BIND : ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
    }
    free(routes);
    if (failed > 0)
        return acl_raise(api, ACL_ERROR_FAILURE,
                         "%zu of %zu routes cannot be bound (already bound, a queue unknown here "
                         "or not granted, or a queue routed to itself); their status says which",
                         failed, count);
    return ACL_SUCCESS;
}

aclError tdt_queue_unbind(const char *api, acltdtQueueRouteList *list)
{
    tdt_route_fields *routes;
    size_t count;
    aclError ret = tdt_route_list_read(api, list, &routes, &count);
    if (ret != ACL_SUCCESS)
        return ret;
    size_t failed = 0;
    for (size_t i = 0; i < count; i++) {
        pthread_mutex_lock(&table_lock);
        fwd *f = find_route_locked(routes[i].src, routes[i].dst);
        if (f) {
            for (fwd **link = &forwarders; *link; link = &(*link)->next)
                if (*link == f) {
                    *link = f->next;
                    break;
                }
        }
        pthread_mutex_unlock(&table_lock);
        if (f == NULL) {
            failed++;
            continue;
        }
        atomic_store(&f->stop, true);
        pthread_join(f->thread, NULL); /* it sleeps SLICE_MS at most */
        pthread_mutex_lock(&table_lock);
        f->src->routes--;
        f->dst->routes--;
        pthread_mutex_unlock(&table_lock);
        tq_put(f->src);
        tq_put(f->dst);
        free(f);
        tdt_route_list_set_status(list, i, ACL_TDT_QUEUE_ROUTE_UNBIND);
    }
    free(routes);
    if (failed > 0)
        return acl_raise(api, ACL_ERROR_FAILURE, "%zu of %zu routes are not bound in this process",
                         failed, count);
    return ACL_SUCCESS;
}

aclError tdt_queue_query(const char *api, const acltdtQueueRouteQueryInfo *info,
                         acltdtQueueRouteList *list)
{
    tdt_query_fields qf;
    aclError ret = tdt_query_read(api, info, &qf);
    if (ret != ACL_SUCCESS)
        return ret;
    if (!qf.has_mode)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the query has no mode set");
    bool by_src = qf.mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC ||
                  qf.mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST;
    bool by_dst = qf.mode == ACL_TDT_QUEUE_ROUTE_QUERY_DST ||
                  qf.mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST;
    bool abnormal = qf.mode == ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL;
    if (!by_src && !by_dst && !abnormal)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "mode %d is not an acltdtQueueRouteQueryMode", (int)qf.mode);
    if ((by_src && !qf.has_src) || (by_dst && !qf.has_dst))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the query's mode needs its %s id set",
                         by_src && !qf.has_src ? "source" : "destination");
    tdt_route_fields found[TDT_QUEUE_ROUTES_MAX];
    size_t n = 0;
    pthread_mutex_lock(&table_lock);
    for (fwd *f = forwarders; f && n < TDT_QUEUE_ROUTES_MAX; f = f->next) {
        int32_t status = atomic_load(&f->status);
        if ((by_src && f->r.src != qf.src) || (by_dst && f->r.dst != qf.dst) ||
            (abnormal && status != ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL))
            continue;
        found[n++] = (tdt_route_fields){f->r.src, f->r.dst, status};
    }
    pthread_mutex_unlock(&table_lock);
    return tdt_route_list_replace(api, list, found, n);
}

/* ---- fork ------------------------------------------------------------------------ */

static void fork_prepare(void)
{
    pthread_mutex_lock(&table_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&table_lock);
}

/* The child has no queues: its parent's are its parent's to use (the
 * mappings stay, unused), and it has no route threads. */
static void fork_child(void)
{
    while (forwarders) {
        fwd *f = forwarders;
        forwarders = f->next;
        free(f);
    }
    while (table) {
        tq *q = table;
        table = q->next;
        free(q);
    }
    memset(used_index, 0, sizeof used_index);
    pthread_mutex_unlock(&table_lock);
}

__attribute__((constructor)) static void tdt_queue_init(void)
{
    fork_register(FORK_RANK_QUEUES, fork_prepare, fork_parent, fork_child);
}
