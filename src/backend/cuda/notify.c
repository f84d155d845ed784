/* The cuda backend's notifies: a 32-bit word of device memory each, taken
 * from slabs of cudaMalloc memory (one cudaMalloc per notify would cost
 * 512 bytes each and a device-wide synchronisation at every cudaFree).
 *
 * Plain notifies (the fast path) are the driver's stream memory
 * operations on that word: a record is cuStreamWriteValue32(word, 1); a
 * wait is one cuStreamBatchMemOp of two operations, wait until the word
 * is 1, then write 0. Both are executed by the GPU's front end, like an
 * event record and an event wait, with no kernel and no host thread.
 * Unlike CUDA events, whose wait only covers the record already made when
 * it is queued, the flag is a state: a wait queued before its record still
 * waits for it, as ACL's notifies do.
 *
 * What the stream memory operations cannot express runs as a one-thread
 * kernel (notify_kernels.cu, which notify_module.c loads): waits with a
 * timeout (the kernel reads the GPU's global timer, and on expiry leaves
 * ACL_ERROR_RT_TASK_TIMEOUT in the stream's fault word and ends), and
 * counting notifies (atomic add, or, and; the five comparisons); and the
 * release of waits a teardown gives up (memops.c).
 *
 * An exported notify's word moves to a device allocation of its own, so
 * that the importer maps that word and nothing of this process's other
 * notifies (below, "sharing"). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "util/spin.h"

enum {
    MAX_DEVICES = 64,
    CHUNK_WORDS = 4096,      /* 16 KiB of words per cudaMalloc */
    MAX_CHUNKS = 256,        /* a million notifies per device */
    BLOB_MAGIC = 0x4e544659, /* "NTFY" */
    /* CUDA may carve a smaller cudaMalloc out of a block that holds other
     * allocations, and its IPC handle then maps the whole block; an
     * allocation whose size is a multiple of 2 MiB is a block of its own. */
    EXPORT_BYTES = 2 << 20,
};

/* Where a notify's word is, as stream work sees it: stream work bakes the
 * address into what it queues, so the word may move (to be exported) only
 * until the first task that uses it. */
enum {
    WORD_MOVABLE, /* no stream work has used it */
    WORD_MOVING,  /* being exported: stream work waits for the new address */
    WORD_FIXED,   /* used by stream work, exported or imported */
};

struct backend_notify {
    uint32_t *word; /* device address */
    int dev;
    int32_t slot; /* in the device's slab; -1 when exported or imported */
    _Atomic int placement;
};

/* ---- slabs of words ---------------------------------------------------------
 * Freed slots queue up in a ring and are reused oldest first, so that a
 * word is reused as late as possible after its notify went. */
typedef struct slab {
    pthread_mutex_t lock;
    uint32_t *chunks[MAX_CHUNKS];
    size_t nchunks;
    int32_t *ring; /* free slot ids */
    size_t ring_cap, head, count;
} slab;

static slab slabs[MAX_DEVICES];

__attribute__((constructor)) static void slabs_init(void)
{
    for (int i = 0; i < MAX_DEVICES; i++)
        pthread_mutex_init(&slabs[i].lock, NULL);
}

static uint32_t *slot_word(slab *sl, int32_t slot)
{
    return sl->chunks[slot / CHUNK_WORDS] + slot % CHUNK_WORDS;
}

/* With sl->lock held. */
static aclError slab_grow(slab *sl, int dev)
{
    if (sl->nchunks == MAX_CHUNKS)
        return ACL_ERROR_RT_NO_NOTIFY_RESOURCE;
    size_t cap = (sl->nchunks + 1) * CHUNK_WORDS;
    int32_t *ring = malloc(cap * sizeof *ring);
    if (!ring)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    aclError rc = use_device_checked(dev);
    uint32_t *chunk = NULL;
    if (rc == ACL_SUCCESS)
        rc = check(cudaMalloc((void **)&chunk, CHUNK_WORDS * sizeof *chunk));
    if (rc != ACL_SUCCESS) {
        free(ring);
        return rc;
    }
    for (size_t i = 0; i < sl->count; i++)
        ring[i] = sl->ring[(sl->head + i) % sl->ring_cap];
    int32_t first = (int32_t)(sl->nchunks * CHUNK_WORDS);
    for (int32_t i = 0; i < CHUNK_WORDS; i++)
        ring[sl->count + (size_t)i] = first + i;
    free(sl->ring);
    sl->ring = ring;
    sl->ring_cap = cap;
    sl->head = 0;
    sl->count += CHUNK_WORDS;
    sl->chunks[sl->nchunks++] = chunk;
    return ACL_SUCCESS;
}

static aclError slot_take(int dev, int32_t *slot, uint32_t **word)
{
    slab *sl = &slabs[dev];
    pthread_mutex_lock(&sl->lock);
    aclError rc = sl->count ? ACL_SUCCESS : slab_grow(sl, dev);
    if (rc == ACL_SUCCESS) {
        *slot = sl->ring[sl->head];
        sl->head = (sl->head + 1) % sl->ring_cap;
        sl->count--;
        *word = slot_word(sl, *slot);
    }
    pthread_mutex_unlock(&sl->lock);
    return rc;
}

static void slot_give(int dev, int32_t slot)
{
    slab *sl = &slabs[dev];
    pthread_mutex_lock(&sl->lock);
    sl->ring[(sl->head + sl->count) % sl->ring_cap] = slot;
    sl->count++;
    pthread_mutex_unlock(&sl->lock);
}

/* The word as it will stay: for stream work, which bakes it in. */
static uint32_t *word_for_work(backend_notify *n)
{
    int at = atomic_load_explicit(&n->placement, memory_order_acquire);
    for (unsigned i = 0; at != WORD_FIXED; i++) {
        if (at == WORD_MOVABLE &&
            atomic_compare_exchange_weak_explicit(&n->placement, &at, WORD_FIXED,
                                                  memory_order_acquire, memory_order_acquire))
            break;
        if (at == WORD_MOVING) {
            spin_step(i);
            at = atomic_load_explicit(&n->placement, memory_order_acquire);
        }
    }
    return n->word;
}

/* Sets a word from the host and waits until it is set: cudaMemset runs on
 * the legacy stream, which does not order against our (non-blocking)
 * streams, so it must have landed before work queued next can rely on it. */
static aclError word_set_now(int dev, uint32_t *word)
{
    aclError rc = use_device_checked(dev);
    if (rc == ACL_SUCCESS)
        rc = check(cudaMemset(word, 0, sizeof *word));
    if (rc == ACL_SUCCESS)
        rc = check(cudaStreamSynchronize(cudaStreamLegacy));
    return rc;
}

/* ---- launching the kernels (notify_module.c loads them) ------------------------ */

static aclError launch_one(backend_stream *s, CUfunction f, void **params)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s->s, params, NULL));
}

static aclError launch_wait(backend_stream *s, uint32_t *word, bool counting, uint32_t cmp,
                            uint32_t value, uint32_t timeout_s, bool clear)
{
    const cuda_notify_kernels *k;
    aclError rc = cuda_notify_kernels_get(s->dev, &k);
    uint32_t *fault = NULL;
    if (rc == ACL_SUCCESS)
        rc = cuda_stream_fault_word(s, &fault);
    if (rc != ACL_SUCCESS)
        return rc;
    unsigned counting_arg = counting, cmp_arg = cmp, value_arg = value, clear_arg = clear;
    unsigned long long timeout_ns = (unsigned long long)timeout_s * 1000000000ULL;
    unsigned code = (unsigned)ACL_ERROR_RT_TASK_TIMEOUT;
    void *params[] = {&word,      &counting_arg, &cmp_arg, &value_arg,
                      &clear_arg, &timeout_ns,   &fault,   &code};
    rc = launch_one(s, k->wait, params);
    if (rc == ACL_SUCCESS)
        cuda_wait_note(s, counting ? WAIT_COUNT32 : WAIT_FLAG32, word, value, cmp);
    return rc;
}

/* ---- the operations -------------------------------------------------------------- */

static aclError cuda_notify_create(backend_notify *n, int32_t dev)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    n->dev = dev;
    atomic_init(&n->placement, WORD_MOVABLE);
    aclError rc = slot_take(dev, &n->slot, &n->word);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = word_set_now(dev, n->word);
    if (rc != ACL_SUCCESS)
        slot_give(dev, n->slot);
    return rc;
}

/* An exported word's allocation stays until the process ends: importers
 * may still map it, and queued work use it. */
static void cuda_notify_destroy(backend_notify *n)
{
    if (n->slot >= 0)
        slot_give(n->dev, n->slot);
}

/* A word no stream work used yet is still the 0 it was made with (an
 * exported one starts at 0 too); a fixed one stays where it is. */
static aclError cuda_notify_reset(backend_notify *n)
{
    if (atomic_load_explicit(&n->placement, memory_order_acquire) != WORD_FIXED)
        return ACL_SUCCESS;
    return word_set_now(n->dev, n->word);
}

static aclError cuda_notify_record(backend_stream *s, backend_notify *n)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, false, false);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuStreamWriteValue32(s->s, (CUdeviceptr)(uintptr_t)word_for_work(n), 1,
                                            CU_STREAM_WRITE_VALUE_DEFAULT));
}

static aclError cuda_notify_wait(backend_stream *s, backend_notify *n, uint32_t timeout_s)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t *word = word_for_work(n);
    if (timeout_s)
        return launch_wait(s, word, false, 0, 0, timeout_s, false);
    rc = cuda_memops_ready(s->dev, false, false);
    if (rc != ACL_SUCCESS)
        return rc;
    CUstreamBatchMemOpParams ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = (CUdeviceptr)(uintptr_t)word;
    ops[0].waitValue.value = 1;
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[1].writeValue.address = (CUdeviceptr)(uintptr_t)word;
    ops[1].writeValue.value = 0;
    ops[1].writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
    rc = from_cu(drv.cuStreamBatchMemOp(s->s, 2, ops, 0));
    if (rc == ACL_SUCCESS)
        cuda_wait_note(s, WAIT_FLAG32, word, 1, 0);
    return rc;
}

static aclError cuda_notify_count(backend_stream *s, backend_notify *n, uint32_t mode,
                                  uint32_t value)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t *word = word_for_work(n);
    if (mode == ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE &&
        cuda_memops_ready(s->dev, false, false) == ACL_SUCCESS)
        return from_cu(drv.cuStreamWriteValue32(s->s, (CUdeviceptr)(uintptr_t)word, value,
                                                CU_STREAM_WRITE_VALUE_DEFAULT));
    const cuda_notify_kernels *k;
    rc = cuda_notify_kernels_get(s->dev, &k);
    if (rc != ACL_SUCCESS)
        return rc;
    unsigned mode_arg = mode, value_arg = value;
    void *params[] = {&word, &mode_arg, &value_arg};
    return launch_one(s, k->count, params);
}

static aclError cuda_notify_count_wait(backend_stream *s, backend_notify *n, uint32_t cmp,
                                       uint32_t value, uint32_t timeout_s, bool clear)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    return launch_wait(s, word_for_work(n), true, cmp, value, timeout_s, clear);
}

/* ---- sharing with other processes ------------------------------------------------
 * Exporting moves the word out of its slab, whose IPC handle would map
 * every notify of the chunk, into a cleared allocation of EXPORT_BYTES of
 * its own; its slot goes back to the slab (no stream work used it). The
 * blob names that allocation by its CUDA IPC handle and the word by its
 * offset; the same process gets the address itself (CUDA does not open
 * its own IPC handles). */
typedef struct notify_blob {
    uint32_t magic;
    int32_t pid;
    int32_t dev;
    uint32_t offset;
    uint64_t address; /* in the exporting process */
    cudaIpcMemHandle_t handle;
} notify_blob;

_Static_assert(sizeof(notify_blob) <= NOTIFY_BLOB_SIZE, "notify blob too large");

/* A cleared allocation of its own for an exported word, and its handle. */
static aclError export_word(int dev, uint32_t **word, cudaIpcMemHandle_t *handle)
{
    aclError rc = use_device_checked(dev);
    void *own = NULL;
    if (rc == ACL_SUCCESS)
        rc = check(cudaMalloc(&own, EXPORT_BYTES));
    if (rc != ACL_SUCCESS)
        return rc;
    /* All of it goes to the importer: nothing earlier allocations left. */
    rc = check(cudaMemset(own, 0, EXPORT_BYTES));
    if (rc == ACL_SUCCESS)
        rc = check(cudaStreamSynchronize(cudaStreamLegacy));
    if (rc == ACL_SUCCESS)
        rc = check(cudaIpcGetMemHandle(handle, own));
    if (rc != ACL_SUCCESS) {
        (void)check(cudaFree(own));
        return rc;
    }
    *word = own;
    return ACL_SUCCESS;
}

/* The host's shared page is not where a cuda word lives: it goes back at
 * once (backend.h). */
static aclError cuda_notify_share(backend_notify *n, const backend_shared_word *at, void *blob)
{
    int placed = WORD_MOVABLE;
    /* Imported notifies are fixed from the start. */
    if (!atomic_compare_exchange_strong_explicit(&n->placement, &placed, WORD_MOVING,
                                                 memory_order_acquire, memory_order_acquire))
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* stream work expects the word where it is */
    notify_blob b = {.magic = BLOB_MAGIC, .pid = (int32_t)getpid(), .dev = n->dev, .offset = 0};
    uint32_t *own;
    aclError rc = export_word(n->dev, &own, &b.handle);
    if (rc != ACL_SUCCESS) {
        atomic_store_explicit(&n->placement, WORD_MOVABLE, memory_order_release);
        return rc;
    }
    slot_give(n->dev, n->slot);
    n->slot = -1;
    n->word = own;
    b.address = (uint64_t)(uintptr_t)own;
    atomic_store_explicit(&n->placement, WORD_FIXED, memory_order_release);
    memcpy(blob, &b, sizeof b);
    at->release(at->owner);
    return ACL_SUCCESS;
}

/* Exported words of other processes this process opened: CUDA opens an
 * IPC handle once per process, and they stay open. */
typedef struct opened_chunk {
    cudaIpcMemHandle_t handle;
    int dev;
    char *base;
    struct opened_chunk *next;
} opened_chunk;

static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;
static opened_chunk *opened;

static aclError open_chunk(int dev, const cudaIpcMemHandle_t *handle, char **base)
{
    pthread_mutex_lock(&opened_lock);
    for (opened_chunk *c = opened; c; c = c->next) {
        if (c->dev == dev && memcmp(&c->handle, handle, sizeof *handle) == 0) {
            *base = c->base;
            pthread_mutex_unlock(&opened_lock);
            return ACL_SUCCESS;
        }
    }
    opened_chunk *c = malloc(sizeof *c);
    aclError rc = c ? use_device_checked(dev) : ACL_ERROR_RT_MEMORY_ALLOCATION;
    void *ptr = NULL;
    if (rc == ACL_SUCCESS)
        rc = check(cudaIpcOpenMemHandle(&ptr, *handle, cudaIpcMemLazyEnablePeerAccess));
    if (rc == ACL_SUCCESS) {
        c->handle = *handle;
        c->dev = dev;
        c->base = ptr;
        c->next = opened;
        opened = c;
        *base = ptr;
    } else {
        free(c);
    }
    pthread_mutex_unlock(&opened_lock);
    return rc;
}

/* Like share, gives the host's page back at once. */
static aclError cuda_notify_open(backend_notify *n, int32_t dev, const backend_shared_word *at,
                                 const void *blob, bool peer_access)
{
    (void)peer_access; /* CUDA IPC always opens with lazy peer access */
    notify_blob b;
    memcpy(&b, blob, sizeof b);
    if (b.magic != BLOB_MAGIC || dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_PARAM_INVALID;
    n->dev = dev;
    n->slot = -1;
    atomic_init(&n->placement, WORD_FIXED);
    if (b.pid == (int32_t)getpid()) {
        n->word = (uint32_t *)(uintptr_t)b.address;
    } else {
        char *base;
        aclError rc = open_chunk(dev, &b.handle, &base);
        if (rc != ACL_SUCCESS)
            return rc;
        n->word = (uint32_t *)(base + b.offset);
    }
    at->release(at->owner);
    return ACL_SUCCESS;
}

const backend_notify_ops cuda_notify_ops = {
    .size = sizeof(backend_notify),
    .create = cuda_notify_create,
    .destroy = cuda_notify_destroy,
    .reset = cuda_notify_reset,
    .record = cuda_notify_record,
    .wait = cuda_notify_wait,
    .count = cuda_notify_count,
    .count_wait = cuda_notify_count_wait,
    .share = cuda_notify_share,
    .open = cuda_notify_open,
};
