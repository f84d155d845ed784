/* Kernel launches on the host backend: a launch is a task of its stream
 * that runs the kernel once per block, the blocks shared between the
 * stream's worker and a pool of block threads (one per CPU beyond the
 * first, started on first use). The task owns a copy of the argument
 * buffer, so it can run again in a model replay. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_cuda.h"
#include "backend/host/host.h"
#include "util/fork.h"

enum {
    MAX_BLOCK_THREADS = 63,
    CHUNK_TARGET = 64, /* chunks per worker, for balance */
};

/* ---- the block pool ------------------------------------------------------------------ */

typedef struct block_job {
    host_block_fn fn;
    void *args;
    size_t size;
    uint32_t nblocks, chunk;
    atomic_uint_fast64_t next; /* the next block to claim */
    int helpers;               /* pool threads inside, under pool_lock */
    struct block_job *next_job;
} block_job;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_left = PTHREAD_COND_INITIALIZER;
static block_job *pool_jobs; /* jobs with blocks left to claim */
static int pool_threads, pool_wanted = -1;

static void run_chunks(block_job *j)
{
    for (;;) {
        uint64_t first = atomic_fetch_add(&j->next, j->chunk);
        if (first >= j->nblocks)
            return;
        uint64_t end = first + j->chunk < j->nblocks ? first + j->chunk : j->nblocks;
        for (uint64_t b = first; b < end; b++)
            j->fn((uint32_t)b, j->nblocks, j->args, j->size);
    }
}

static void *pool_thread(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "acl-host-blocks");
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (!pool_jobs)
            pthread_cond_wait(&pool_work, &pool_lock);
        block_job *j = pool_jobs;
        j->helpers++;
        pthread_mutex_unlock(&pool_lock);
        run_chunks(j);
        pthread_mutex_lock(&pool_lock);
        /* Every block is claimed: the job leaves the list (if still in it). */
        for (block_job **p = &pool_jobs; *p; p = &(*p)->next_job)
            if (*p == j) {
                *p = j->next_job;
                break;
            }
        if (--j->helpers == 0)
            pthread_cond_broadcast(&pool_left);
    }
    return NULL;
}

/* With pool_lock held: the pool's threads, started up to one per CPU
 * beyond the caller's. */
static void pool_start(void)
{
    if (pool_wanted < 0) {
        int64_t cpus = host_config_get()->cpus;
        pool_wanted =
            cpus > 1 ? (int)(cpus - 1 < MAX_BLOCK_THREADS ? cpus - 1 : MAX_BLOCK_THREADS) : 0;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool_threads < pool_wanted) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 1024 * 1024);
        int rc = pthread_create(&t, &attr, pool_thread, NULL);
        pthread_attr_destroy(&attr);
        if (rc) {
            pool_wanted = pool_threads; /* run with what we have */
            break;
        }
        pool_threads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void host_run_blocks(host_block_fn fn, uint32_t nblocks, void *args, size_t size)
{
    if (nblocks == 0)
        return;
    pthread_mutex_lock(&pool_lock);
    pool_start();
    int workers = pool_threads + 1;
    pthread_mutex_unlock(&pool_lock);
    if (workers == 1 || nblocks == 1) {
        for (uint32_t b = 0; b < nblocks; b++)
            fn(b, nblocks, args, size);
        return;
    }
    block_job j = {.fn = fn, .args = args, .size = size, .nblocks = nblocks};
    uint64_t chunk = nblocks / ((uint64_t)workers * CHUNK_TARGET);
    j.chunk = chunk ? (uint32_t)chunk : 1;
    atomic_init(&j.next, 0);
    pthread_mutex_lock(&pool_lock);
    j.next_job = pool_jobs;
    pool_jobs = &j;
    pthread_cond_broadcast(&pool_work);
    pthread_mutex_unlock(&pool_lock);
    run_chunks(&j);
    pthread_mutex_lock(&pool_lock);
    for (block_job **p = &pool_jobs; *p; p = &(*p)->next_job)
        if (*p == &j) {
            *p = j.next_job;
            break;
        }
    while (j.helpers)
        pthread_cond_wait(&pool_left, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
}

/* A child process has none of the pool's threads. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&pool_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&pool_lock);
}

static void fork_child(void)
{
    pool_threads = 0;
    pool_jobs = NULL;
    pthread_cond_init(&pool_work, NULL);
    pthread_cond_init(&pool_left, NULL);
    pthread_mutex_unlock(&pool_lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, fork_prepare, fork_parent, fork_child);
}

/* ---- launches ------------------------------------------------------------------------- */

typedef struct host_launch_job {
    host_kernel_fn fn;
    uint32_t nblocks;
    size_t size;
    unsigned char *args; /* a copy of the parameters */
} host_launch_job;

static void launch_block(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    const host_launch_job *j = args;
    (void)size;
    j->fn(block, nblocks, j->args, j->size);
}

static void launch_run(void *payload)
{
    host_launch_job *j = payload;
    host_run_blocks(launch_block, j->nblocks, j, 0);
}

static void launch_release(void *payload)
{
    host_launch_job *j = payload;
    free(j->args);
    free(j);
}

static const host_job_ops launch_job = {"kernel", launch_run, launch_release};

aclError host_launch(backend_stream *bs, const launch_params *p)
{
    uint64_t blocks = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
    if (blocks > UINT32_MAX)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a host kernel numbers blocks in 32 bits */
    host_launch_job *j = malloc(sizeof *j);
    unsigned char *args = j ? malloc(p->args_size ? p->args_size : 1) : NULL;
    if (!args) {
        free(j);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    if (p->args_size)
        memcpy(args, p->args, p->args_size);
    *j = (host_launch_job){
        .fn = host_function_entry(p->fn),
        .nblocks = (uint32_t)blocks,
        .size = p->args_size,
        .args = args,
    };
    return stream_enqueue_job(bs->impl, &launch_job, j);
}
