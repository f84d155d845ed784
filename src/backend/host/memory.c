/* The host backend's memory. "Device" memory of each device comes from an
 * arena: one memfd per device, mapped shared and reserved far larger than
 * the device's capacity (pages exist only once touched). Blocks are charged
 * to their device's capacity. "Page-locked" host memory is plain aligned
 * heap memory; the label is all that differs.
 *
 * The arena: a header page before every block, and every block whole pages
 * of its own, so that a block can be handed to another process alone
 * (host_arena_export, for IPC keys): its first export moves its pages into a
 * memfd of their own, mapped at the same address; its free maps fresh arena
 * pages there again. Small blocks (up to SMALL_MAX, the header included) are
 * reused through free lists of their exact size; large ones (LARGE_STEP
 * steps) through an address-ordered list of free extents that merges
 * neighbours and gives their pages back (hole punch). Everything else comes
 * from the top. A block freed while streams have work queued returns to its
 * lists only once that work has run (quarantine.c); its bytes are no longer
 * charged from the free on. Only the arena below the top is readable and
 * writable (COMMIT_STEP at a time); the rest of the span is reserved without
 * access, so that tools that read every readable mapping (valgrind's leak
 * check, core dumps) skip what was never used. A forked child gets a private
 * copy of its arenas (copy-on-write), so that parent and child never write
 * each other's memory; a child's arena cannot be exported. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/host/host.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/memfd.h"

#define ALLOC_MAGIC UINT64_C(0x686f73746d656d21) /* "hostmem!" */

enum {
    SMALL_MAX = 64 * 1024, /* blocks up to this (header included) are small */
    MIN_PAGE = 4096,
    SMALL_CLASSES = SMALL_MAX / MIN_PAGE + 1, /* by size in pages */
    LARGE_STEP = 64 * 1024, /* large blocks are multiples of this (or of the page) */
};

/* The arena is made accessible in steps of this many bytes. */
#define COMMIT_STEP ((size_t)64 << 20)

/* Sits in the page before each device block (never handed to anyone). */
typedef struct alloc_header {
    uint64_t magic;
    size_t total;   /* bytes taken from the arena, the header's page included */
    size_t charged; /* bytes charged to the device */
    int32_t dev;
    int export_fd;                  /* the block's own memfd once exported, else -1 */
    struct alloc_header *next_free; /* on a small free list */
    struct alloc_header *next_exported;
} alloc_header;
_Static_assert(sizeof(alloc_header) <= MIN_PAGE, "the header fits its page");

typedef struct free_extent {
    size_t start, size; /* offsets into the arena */
    struct free_extent *next;
} free_extent;

typedef struct arena {
    pthread_mutex_t lock;
    int fd; /* -1 until first used */
    char *base;
    size_t span, top;
    size_t committed; /* bytes from base that are readable and writable */
    alloc_header *small[SMALL_CLASSES];
    free_extent *large;
    bool exportable;
    bool failed;            /* the memfd could not be made: the device has no memory */
    alloc_header *exported; /* blocks whose pages live in a memfd of their own */
} arena;

static arena arenas[HOST_MAX_DEVICES];
static pthread_once_t arenas_once = PTHREAD_ONCE_INIT;
/* Arenas 0 .. arenas_touched-1 may have been used; it grows under
 * arenas_grow_lock, which a fork holds, so that the fork locks exactly the
 * arenas in use (it already holds every module's locks at once, and TSan
 * follows at most 64 per thread). */
static _Atomic int arenas_touched;
static pthread_mutex_t arenas_grow_lock = PTHREAD_MUTEX_INITIALIZER;

static void arena_touch(int32_t dev)
{
    if (dev < atomic_load_explicit(&arenas_touched, memory_order_acquire))
        return;
    pthread_mutex_lock(&arenas_grow_lock);
    if (dev >= atomic_load_explicit(&arenas_touched, memory_order_relaxed))
        atomic_store_explicit(&arenas_touched, dev + 1, memory_order_release);
    pthread_mutex_unlock(&arenas_grow_lock);
}

static void arenas_init(void)
{
    for (int i = 0; i < HOST_MAX_DEVICES; i++) {
        pthread_mutex_init(&arenas[i].lock, NULL);
        arenas[i].fd = -1;
    }
}

/* Creates dev's arena. Under its lock. */
static bool arena_open(arena *a)
{
    if (a->fd >= 0)
        return true;
    if (a->failed)
        return false;
    const size_t most = (size_t)16 << 40, least = (size_t)16 << 30;
    size_t capacity = host_config_get()->capacity;
    size_t span = capacity > most / 4 ? most : capacity * 4;
    if (span < least)
        span = least;
    int fd = memfd_create("acl-device-memory", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)span) != 0) {
        if (fd >= 0)
            close(fd);
        a->failed = true;
        return false;
    }
    void *base = mmap(NULL, span, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (base == MAP_FAILED) {
        close(fd);
        a->failed = true;
        return false;
    }
    a->fd = fd;
    a->base = base;
    a->span = span;
    a->top = 0;
    a->committed = 0;
    a->exportable = true;
    return true;
}

static size_t page_size(void)
{
    return host_config_get()->page_size;
}

static size_t large_step(void)
{
    return page_size() > LARGE_STEP ? page_size() : LARGE_STEP;
}

/* Makes the arena accessible up to `end` at least. */
static bool commit_to(arena *a, size_t end)
{
    if (end <= a->committed)
        return true;
    size_t to =
        end > a->span - COMMIT_STEP ? a->span : (end + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
    if (mprotect(a->base + a->committed, to - a->committed, PROT_READ | PROT_WRITE) != 0)
        return false;
    a->committed = to;
    return true;
}

/* Takes `total` bytes from the top, aligned to `align`; SIZE_MAX if full. */
static size_t take_top(arena *a, size_t total, size_t align)
{
    size_t at = (a->top + align - 1) / align * align;
    if (at > a->span || total > a->span - at || !commit_to(a, at + total))
        return SIZE_MAX;
    a->top = at + total;
    return at;
}

static size_t take_large(arena *a, size_t total)
{
    for (free_extent **link = &a->large; *link; link = &(*link)->next) {
        free_extent *e = *link;
        if (e->size < total)
            continue;
        size_t at = e->start;
        e->start += total;
        e->size -= total;
        if (e->size == 0) {
            *link = e->next;
            free(e);
        }
        return at;
    }
    return take_top(a, total, large_step());
}

/* Gives a large extent back: merged with its free neighbours, its pages
 * returned to the system. */
static void give_large(arena *a, size_t start, size_t size)
{
    (void)fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)start, (off_t)size);
    free_extent *prev = NULL, *next = a->large;
    while (next && next->start < start) {
        prev = next;
        next = next->next;
    }
    if (prev && prev->start + prev->size == start) {
        prev->size += size;
        if (next && prev->start + prev->size == next->start) {
            prev->size += next->size;
            prev->next = next->next;
            free(next);
        }
        return;
    }
    if (next && start + size == next->start) {
        next->start = start;
        next->size += size;
        return;
    }
    free_extent *e = malloc(sizeof *e);
    if (!e)
        return; /* the extent stays lost to this arena; its pages went back */
    *e = (free_extent){start, size, next};
    if (prev)
        prev->next = e;
    else
        a->large = e;
}

static aclError host_malloc_device(int32_t dev, void **ptr, size_t size)
{
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t page = page_size(), step = large_step();
    if (size > SIZE_MAX - 2 * step - page)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t charged = ((size ? size : 1) + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;
    size_t total = page + (charged + page - 1) / page * page;
    bool small = total <= SMALL_MAX && page >= MIN_PAGE;
    if (!small)
        total = (total + step - 1) / step * step;

    host_release_held();
    size_t used = atomic_load(&host_device_used[dev]);
    do {
        if (charged > host_config_get()->capacity - used)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    } while (!atomic_compare_exchange_weak(&host_device_used[dev], &used, used + charged));

    pthread_once(&arenas_once, arenas_init);
    arena_touch(dev);
    arena *a = &arenas[dev];
    alloc_header *h = NULL;
    pthread_mutex_lock(&a->lock);
    if (arena_open(a)) {
        if (small && a->small[total / page]) {
            h = a->small[total / page];
            a->small[total / page] = h->next_free;
        } else {
            size_t at = small ? take_top(a, total, page) : take_large(a, total);
            if (at != SIZE_MAX)
                h = (alloc_header *)(a->base + at);
        }
    }
    pthread_mutex_unlock(&a->lock);
    if (!h) {
        atomic_fetch_sub(&host_device_used[dev], charged);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *h = (alloc_header){
        .magic = ALLOC_MAGIC, .total = total, .charged = charged, .dev = dev, .export_fd = -1};
    *ptr = (char *)h + page;
    return ACL_SUCCESS;
}

/* The arena of dev holding the block at ptr, or NULL. */
static arena *arena_of(int32_t dev, const void *ptr)
{
    if (dev < 0 || dev >= HOST_MAX_DEVICES)
        return NULL;
    arena *a = &arenas[dev];
    if (a->fd < 0 || (const char *)ptr < a->base + page_size() ||
        (const char *)ptr >= a->base + a->span)
        return NULL;
    return a;
}

/* The pages of a block its user may reach (its charged bytes): what an
 * export moves to a memfd of their own. A large block's rounding beyond
 * them stays arena. */
static size_t block_bytes(const alloc_header *h)
{
    return (h->charged + page_size() - 1) / page_size() * page_size();
}

/* Maps arena pages under an exported block again and lets its own memfd
 * go (importers keep theirs). A forked child's arena is private, and so
 * is what it maps. Under the arena's lock. */
static bool back_with_arena(arena *a, alloc_header *h)
{
    char *data = (char *)h + page_size();
    size_t off = (size_t)(data - a->base);
    int share = a->exportable ? MAP_SHARED : MAP_PRIVATE;
    if (mmap(data, block_bytes(h), PROT_READ | PROT_WRITE, share | MAP_FIXED, a->fd, (off_t)off) !=
        data)
        return false;
    close(h->export_fd);
    h->export_fd = -1;
    for (alloc_header **link = &a->exported; *link; link = &(*link)->next_exported) {
        if (*link == h) {
            *link = h->next_exported;
            break;
        }
    }
    return true;
}

/* Puts a freed block (its header) back on its arena's lists. */
static void block_return(void *header)
{
    alloc_header *h = header;
    size_t page = page_size();
    arena *a = &arenas[h->dev];
    pthread_mutex_lock(&a->lock);
    if (h->export_fd >= 0 && !back_with_arena(a, h)) {
        /* Still the importers' pages: never handed out again. */
        pthread_mutex_unlock(&a->lock);
        ACL_LOG(LOG_ERROR,
                "an exported block at %p cannot get its arena pages back (%s); it "
                "stays unused",
                (void *)((char *)h + page), strerror(errno));
        return;
    }
    if (h->total <= SMALL_MAX && page >= MIN_PAGE) {
        h->next_free = a->small[h->total / page];
        a->small[h->total / page] = h;
    } else {
        give_large(a, (size_t)((char *)h - a->base), h->total);
    }
    pthread_mutex_unlock(&a->lock);
}

/* The block is freed for everyone at once (a second free fails, its bytes
 * are free again); its pages go back once queued work is done with them. */
static aclError host_free_device(int32_t dev, void *ptr)
{
    (void)dev; /* the header knows which device the block came from */
    size_t page = page_size();
    if (!ptr || (uintptr_t)ptr % page)
        return ACL_ERROR_RT_PARAM_INVALID;
    pthread_once(&arenas_once, arenas_init);
    alloc_header *h = (alloc_header *)((char *)ptr - page);
    arena *a = arena_of(h->dev >= 0 && h->dev < HOST_MAX_DEVICES ? h->dev : -1, ptr);
    if (!a || h->magic != ALLOC_MAGIC)
        return ACL_ERROR_RT_MEMORY_FREE;
    h->magic = 0;
    atomic_fetch_sub(&host_device_used[h->dev], h->charged);
    host_release_after_work(block_return, h);
    return ACL_SUCCESS;
}

/* Writes the block's pages that hold data (holes stay holes) to fd. */
static bool copy_block(const arena *a, const char *data, size_t len, int fd)
{
    off_t start = (off_t)(data - a->base), end = start + (off_t)len, pos = start;
    while (pos < end) {
        off_t from = lseek(a->fd, pos, SEEK_DATA);
        if (from < 0 && errno == ENXIO)
            break; /* holes to the end */
        if (from < 0)
            from = pos; /* no SEEK_DATA here: copy everything */
        if (from >= end)
            break;
        off_t to = lseek(a->fd, from, SEEK_HOLE);
        if (to < 0 || to > end)
            to = end;
        while (from < to) {
            ssize_t done = pwrite(fd, a->base + from, (size_t)(to - from), (off_t)(from - start));
            if (done < 0 && errno == EINTR)
                continue;
            if (done <= 0)
                return false;
            from += done;
        }
        pos = to;
    }
    return true;
}

/* Moves a block's pages into a memfd of their own, mapped where they were.
 * The workers are paused, so nothing writes the block meanwhile (but the
 * caller's own thread, which is exporting it). */
static aclError give_own_pages(arena *a, alloc_header *h)
{
    char *data = (char *)h + page_size();
    size_t len = block_bytes(h);
    int fd = sealed_memfd("acl-ipc-export", len);
    if (fd < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    if (!copy_block(a, data, len, fd) ||
        mmap(data, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != data) {
        close(fd);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    (void)fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(data - a->base),
                    (off_t)len);
    pthread_mutex_lock(&a->lock);
    h->export_fd = fd;
    h->next_exported = a->exported;
    a->exported = h;
    pthread_mutex_unlock(&a->lock);
    return ACL_SUCCESS;
}

/* A descriptor of the block's own memfd, -1 while it has none. */
static int own_pages(arena *a, const alloc_header *h)
{
    pthread_mutex_lock(&a->lock);
    int copy = h->export_fd >= 0 ? fcntl(h->export_fd, F_DUPFD_CLOEXEC, 0) : -2;
    pthread_mutex_unlock(&a->lock);
    return copy;
}

aclError host_arena_export(int32_t dev, void *base, size_t offset, size_t size, int *fd,
                           uint64_t *fd_offset)
{
    pthread_once(&arenas_once, arenas_init);
    size_t page = page_size();
    arena *a = base && (uintptr_t)base % page == 0 ? arena_of(dev, base) : NULL;
    alloc_header *h = a ? (alloc_header *)((char *)base - page) : NULL;
    if (!h || h->magic != ALLOC_MAGIC || h->dev != dev || offset > block_bytes(h) ||
        size > block_bytes(h) - offset)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (!a->exportable)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    int copy = own_pages(a, h);
    if (copy == -2) {
        host_streams_pause();
        aclError err = own_pages(a, h) == -2 ? give_own_pages(a, h) : ACL_SUCCESS;
        host_streams_resume();
        if (err != ACL_SUCCESS)
            return err;
        copy = own_pages(a, h);
    }
    if (copy < 0)
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    *fd = copy;
    *fd_offset = offset;
    return ACL_SUCCESS;
}

/* ---- fork ---------------------------------------------------------------------- */

static void arenas_lock(void)
{
    pthread_mutex_lock(&arenas_grow_lock);
    for (int i = 0; i < atomic_load_explicit(&arenas_touched, memory_order_relaxed); i++)
        pthread_mutex_lock(&arenas[i].lock);
}

static void arenas_unlock(void)
{
    for (int i = atomic_load_explicit(&arenas_touched, memory_order_relaxed); i-- > 0;)
        pthread_mutex_unlock(&arenas[i].lock);
    pthread_mutex_unlock(&arenas_grow_lock);
}

/* The child keeps a private copy of what its parent's arenas hold. */
static void arenas_child(void)
{
    for (int i = 0; i < atomic_load_explicit(&arenas_touched, memory_order_relaxed); i++) {
        arena *a = &arenas[i];
        if (a->fd < 0)
            continue;
        void *p =
            mmap(a->base, a->span, PROT_NONE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, a->fd, 0);
        bool ok = p == a->base &&
                  (!a->committed || mprotect(a->base, a->committed, PROT_READ | PROT_WRITE) == 0);
        /* Exported blocks: a private copy of their own pages. */
        for (alloc_header *h = a->exported; h && ok; h = h->next_exported) {
            char *data = (char *)h + page_size();
            ok = mmap(data, block_bytes(h), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                      h->export_fd, 0) == data;
        }
        if (!ok)
            ACL_LOG(LOG_ERROR, "device %d's memory could not be made private after fork", i);
        a->exportable = false;
    }
    arenas_unlock();
}

__attribute__((constructor)) static void register_arena_fork_handlers(void)
{
    fork_register(FORK_RANK_BACKEND, arenas_lock, arenas_unlock, arenas_child);
}

static aclError host_malloc_host(void **ptr, size_t size)
{
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t page = host_config_get()->page_size;
    if (size > SIZE_MAX - page)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t rounded = ((size ? size : 1) + page - 1) / page * page;
    host_release_held();
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
    host_release_after_work(free, ptr);
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
    aclError err = host_check_2d(dst, dpitch, src, spitch, width);
    if (err == ACL_SUCCESS)
        host_copy_2d(dst, dpitch, src, spitch, width, height);
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

static aclError host_memset32_sync(int32_t dev, void *ptr, uint32_t value, size_t count,
                                   bool on_device)
{
    (void)dev;
    (void)on_device;
    if (!ptr && count)
        return ACL_ERROR_RT_PARAM_INVALID;
    host_fill32(ptr, value, count);
    return ACL_SUCCESS;
}

static bool host_device_address(const void *ptr)
{
    pthread_once(&arenas_once, arenas_init);
    int touched = atomic_load_explicit(&arenas_touched, memory_order_acquire);
    bool inside = false;
    for (int i = 0; i < touched && !inside; i++) {
        arena *a = &arenas[i];
        pthread_mutex_lock(&a->lock);
        inside =
            a->fd >= 0 && (const char *)ptr >= a->base && (const char *)ptr < a->base + a->span;
        pthread_mutex_unlock(&a->lock);
    }
    return inside;
}

const backend_memory_ops host_memory_ops = {
    .malloc_device = host_malloc_device,
    .free_device = host_free_device,
    .malloc_host = host_malloc_host,
    .free_host = host_free_host,
    .memcpy_sync = host_memcpy_sync,
    .memcpy2d_sync = host_memcpy2d_sync,
    .memset_sync = host_memset_sync,
    .memset32_sync = host_memset32_sync,
    .device_address = host_device_address,
};
