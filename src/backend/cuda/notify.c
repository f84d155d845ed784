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
 * kernel (notify_kernels.cu, loaded from PTX through the driver's JIT on
 * first use): waits with a timeout (the kernel reads the GPU's global
 * timer, and on expiry leaves ACL_ERROR_RT_TASK_TIMEOUT in the stream's
 * fault word and ends), and counting notifies (atomic add, or, and; the
 * five comparisons); and the release of waits a teardown gives up
 * (memops.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "backend/cuda/notify_ptx.h"

enum {
    MAX_DEVICES = 64,
    CHUNK_WORDS = 4096,      /* 16 KiB of words per cudaMalloc */
    MAX_CHUNKS = 256,        /* a million notifies per device */
    BLOB_MAGIC = 0x4e544659, /* "NTFY" */
};

struct backend_notify {
    uint32_t *word; /* device address */
    int dev;
    int32_t slot; /* in the device's slab; -1 when imported */
    bool shared;  /* exported: the slot is never reused (importers may hold it) */
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

/* ---- the kernels --------------------------------------------------------------- */

typedef struct kernels {
    pthread_mutex_t lock;
    atomic_bool ready;
    aclError error; /* of the one attempt to load them */
    bool tried;
    CUfunction count, wait, release;
} kernels;

static kernels device_kernels[MAX_DEVICES];

__attribute__((constructor)) static void kernels_init(void)
{
    for (int i = 0; i < MAX_DEVICES; i++)
        pthread_mutex_init(&device_kernels[i].lock, NULL);
}

static aclError kernels_get(int dev, kernels **out)
{
    kernels *k = &device_kernels[dev];
    if (!atomic_load_explicit(&k->ready, memory_order_acquire)) {
        pthread_mutex_lock(&k->lock);
        if (!k->tried) {
            k->tried = true;
            CUmodule mod;
            aclError rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
            if (driver_ready() && drv.cuModuleLoadData && drv.cuModuleGetFunction &&
                drv.cuLaunchKernel && (rc = use_device_checked(dev)) == ACL_SUCCESS &&
                (rc = check(cudaFree(NULL))) == ACL_SUCCESS && /* the primary context */
                (rc = from_cu(drv.cuModuleLoadData(&mod, notify_ptx))) == ACL_SUCCESS &&
                (rc = from_cu(drv.cuModuleGetFunction(&k->count, mod, "aclcuda_notify_count"))) ==
                    ACL_SUCCESS &&
                (rc = from_cu(drv.cuModuleGetFunction(&k->wait, mod, "aclcuda_notify_wait"))) ==
                    ACL_SUCCESS)
                rc = from_cu(drv.cuModuleGetFunction(&k->release, mod, "aclcuda_wait_release"));
            k->error = rc;
            if (rc == ACL_SUCCESS)
                atomic_store_explicit(&k->ready, true, memory_order_release);
        }
        aclError rc = k->error;
        pthread_mutex_unlock(&k->lock);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    *out = k;
    return ACL_SUCCESS;
}

void cuda_notify_preload(int dev)
{
    kernels *k;
    if (dev >= 0 && dev < MAX_DEVICES)
        (void)kernels_get(dev, &k);
}

static aclError launch_one(backend_stream *s, CUfunction f, void **params)
{
    aclError rc = use_device(s->dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s->s, params, NULL));
}

static aclError launch_wait(backend_stream *s, backend_notify *n, bool counting, uint32_t cmp,
                            uint32_t value, uint32_t timeout_s, bool clear)
{
    kernels *k;
    aclError rc = kernels_get(s->dev, &k);
    uint32_t *fault = NULL;
    if (rc == ACL_SUCCESS)
        rc = cuda_stream_fault_word(s, &fault);
    if (rc != ACL_SUCCESS)
        return rc;
    unsigned counting_arg = counting, cmp_arg = cmp, value_arg = value, clear_arg = clear;
    unsigned long long timeout_ns = (unsigned long long)timeout_s * 1000000000ULL;
    unsigned code = (unsigned)ACL_ERROR_RT_TASK_TIMEOUT;
    void *params[] = {&n->word,   &counting_arg, &cmp_arg, &value_arg,
                      &clear_arg, &timeout_ns,   &fault,   &code};
    rc = launch_one(s, k->wait, params);
    if (rc == ACL_SUCCESS)
        cuda_wait_note(s, counting ? WAIT_COUNT32 : WAIT_FLAG32, n->word, value, cmp);
    return rc;
}

/* On a stream of its own, which the waits do not hold up. */
aclError cuda_waits_release(int dev, const pending_wait *w, size_t n)
{
    kernels *k;
    aclError rc = kernels_get(dev, &k);
    if (rc == ACL_SUCCESS)
        rc = use_device_checked(dev);
    cudaStream_t own;
    if (rc == ACL_SUCCESS)
        rc = check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    if (rc != ACL_SUCCESS)
        return rc;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        CUdeviceptr addr = (CUdeviceptr)w[i].addr;
        unsigned long long value = w[i].value;
        unsigned kind = w[i].kind, cmp = w[i].cmp;
        void *params[] = {&addr, &value, &kind, &cmp};
        rc = from_cu(drv.cuLaunchKernel(k->release, 1, 1, 1, 1, 1, 1, 0, own, params, NULL));
    }
    aclError done = check(cudaStreamSynchronize(own));
    (void)check(cudaStreamDestroy(own));
    return rc != ACL_SUCCESS ? rc : done;
}

/* ---- the operations -------------------------------------------------------------- */

static aclError cuda_notify_create(backend_notify *n, int32_t dev)
{
    if (dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_INVALID_DEVICEID;
    n->dev = dev;
    n->shared = false;
    aclError rc = slot_take(dev, &n->slot, &n->word);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = word_set_now(dev, n->word);
    if (rc != ACL_SUCCESS)
        slot_give(dev, n->slot);
    return rc;
}

static void cuda_notify_destroy(backend_notify *n)
{
    if (n->slot >= 0 && !n->shared)
        slot_give(n->dev, n->slot);
}

static aclError cuda_notify_reset(backend_notify *n)
{
    return word_set_now(n->dev, n->word);
}

static aclError cuda_notify_record(backend_stream *s, backend_notify *n)
{
    aclError rc = use_adopted_device(s);
    if (rc == ACL_SUCCESS)
        rc = cuda_memops_ready(s->dev, false, false);
    if (rc != ACL_SUCCESS)
        return rc;
    return from_cu(drv.cuStreamWriteValue32(s->s, (CUdeviceptr)(uintptr_t)n->word, 1,
                                            CU_STREAM_WRITE_VALUE_DEFAULT));
}

static aclError cuda_notify_wait(backend_stream *s, backend_notify *n, uint32_t timeout_s)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (timeout_s)
        return launch_wait(s, n, false, 0, 0, timeout_s, false);
    rc = cuda_memops_ready(s->dev, false, false);
    if (rc != ACL_SUCCESS)
        return rc;
    CUstreamBatchMemOpParams ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = (CUdeviceptr)(uintptr_t)n->word;
    ops[0].waitValue.value = 1;
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[1].writeValue.address = (CUdeviceptr)(uintptr_t)n->word;
    ops[1].writeValue.value = 0;
    ops[1].writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
    rc = from_cu(drv.cuStreamBatchMemOp(s->s, 2, ops, 0));
    if (rc == ACL_SUCCESS)
        cuda_wait_note(s, WAIT_FLAG32, n->word, 1, 0);
    return rc;
}

static aclError cuda_notify_count(backend_stream *s, backend_notify *n, uint32_t mode,
                                  uint32_t value)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (mode == ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE &&
        cuda_memops_ready(s->dev, false, false) == ACL_SUCCESS)
        return from_cu(drv.cuStreamWriteValue32(s->s, (CUdeviceptr)(uintptr_t)n->word, value,
                                                CU_STREAM_WRITE_VALUE_DEFAULT));
    kernels *k;
    rc = kernels_get(s->dev, &k);
    if (rc != ACL_SUCCESS)
        return rc;
    unsigned mode_arg = mode, value_arg = value;
    void *params[] = {&n->word, &mode_arg, &value_arg};
    return launch_one(s, k->count, params);
}

static aclError cuda_notify_count_wait(backend_stream *s, backend_notify *n, uint32_t cmp,
                                       uint32_t value, uint32_t timeout_s, bool clear)
{
    aclError rc = use_adopted_device(s);
    if (rc != ACL_SUCCESS)
        return rc;
    return launch_wait(s, n, true, cmp, value, timeout_s, clear);
}

/* ---- sharing with other processes ------------------------------------------------
 * The blob names the word's slab chunk by its CUDA IPC handle and the word
 * by its offset; the same process gets the address itself (CUDA does not
 * open its own IPC handles). */
typedef struct notify_blob {
    uint32_t magic;
    int32_t pid;
    int32_t dev;
    uint32_t offset;
    uint64_t address; /* in the exporting process */
    cudaIpcMemHandle_t handle;
} notify_blob;

_Static_assert(sizeof(notify_blob) <= NOTIFY_BLOB_SIZE, "notify blob too large");

static aclError cuda_notify_share(backend_notify *n, _Atomic uint32_t *word, void *blob)
{
    (void)word; /* the word stays in device memory */
    if (n->slot < 0)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* an imported notify is not exported again */
    slab *sl = &slabs[n->dev];
    pthread_mutex_lock(&sl->lock);
    uint32_t *chunk = sl->chunks[n->slot / CHUNK_WORDS];
    pthread_mutex_unlock(&sl->lock);
    notify_blob b = {
        .magic = BLOB_MAGIC,
        .pid = (int32_t)getpid(),
        .dev = n->dev,
        .offset = (uint32_t)((n->slot % CHUNK_WORDS) * sizeof(uint32_t)),
        .address = (uint64_t)(uintptr_t)n->word,
    };
    aclError rc = use_device_checked(n->dev);
    if (rc == ACL_SUCCESS)
        rc = check(cudaIpcGetMemHandle(&b.handle, chunk));
    if (rc != ACL_SUCCESS)
        return rc;
    n->shared = true;
    memcpy(blob, &b, sizeof b);
    return ACL_SUCCESS;
}

/* Chunks of other processes this process opened: CUDA opens an IPC
 * handle once per process, and they stay open. */
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

static aclError cuda_notify_open(backend_notify *n, int32_t dev, _Atomic uint32_t *word,
                                 const void *blob, bool peer_access)
{
    (void)word;
    (void)peer_access; /* CUDA IPC always opens with lazy peer access */
    notify_blob b;
    memcpy(&b, blob, sizeof b);
    if (b.magic != BLOB_MAGIC || dev < 0 || dev >= MAX_DEVICES)
        return ACL_ERROR_RT_PARAM_INVALID;
    n->dev = dev;
    n->slot = -1;
    n->shared = true;
    if (b.pid == (int32_t)getpid()) {
        n->word = (uint32_t *)(uintptr_t)b.address;
        return ACL_SUCCESS;
    }
    char *base;
    aclError rc = open_chunk(dev, &b.handle, &base);
    if (rc == ACL_SUCCESS)
        n->word = (uint32_t *)(base + b.offset);
    return rc;
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
