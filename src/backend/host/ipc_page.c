/* The page of an event shared between processes (ipc.c): how many records
 * were made and how many completed, what a record task does to it and how
 * a wait sleeps on it (a futex of the shared page, process-shared); and
 * this process's counted mapping of it, which the tasks hold. */
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend/host/host.h"
#include "util/clock.h"
#include "util/futex.h"

struct ipc_page {
    _Atomic uint64_t recorded;  /* records made */
    _Atomic uint64_t completed; /* the highest record completed */
    _Atomic uint32_t wake;      /* bumped on every completion; the futex word */
    uint32_t magic;
};

#define PAGE_MAGIC 0x61636c65u /* "acle" */

void host_ipc_page_init(ipc_page *page)
{
    page->magic = PAGE_MAGIC;
}

bool host_ipc_page_valid(const ipc_page *page)
{
    return page->magic == PAGE_MAGIC;
}

uint64_t host_ipc_record_next(ipc_page *page)
{
    return atomic_fetch_add_explicit(&page->recorded, 1, memory_order_acq_rel) + 1;
}

uint64_t host_ipc_recorded(ipc_page *page)
{
    return atomic_load_explicit(&page->recorded, memory_order_acquire);
}

bool host_ipc_complete(ipc_page *page, uint64_t target)
{
    return atomic_load_explicit(&page->completed, memory_order_acquire) >= target;
}

void host_ipc_signal(ipc_page *page, uint64_t seq)
{
    uint64_t seen = atomic_load_explicit(&page->completed, memory_order_relaxed);
    while (seen < seq &&
           !atomic_compare_exchange_weak_explicit(&page->completed, &seen, seq,
                                                  memory_order_release, memory_order_relaxed))
        ;
    atomic_fetch_add_explicit(&page->wake, 1, memory_order_release);
    futex_wake_all(&page->wake);
}

bool host_ipc_wait_for(ipc_page *page, uint64_t target, int32_t timeout_ms)
{
    int64_t deadline = timeout_ms >= 0 ? monotonic_ns() + (int64_t)timeout_ms * 1000000 : 0;
    for (;;) {
        uint32_t word = atomic_load_explicit(&page->wake, memory_order_acquire);
        if (host_ipc_complete(page, target))
            return true;
        struct timespec ts, *timeout = NULL;
        if (timeout_ms >= 0) {
            int64_t left = deadline - monotonic_ns();
            if (left <= 0)
                return false;
            ts.tv_sec = left / 1000000000;
            ts.tv_nsec = left % 1000000000;
            timeout = &ts;
        }
        futex_wait(&page->wake, word, timeout);
    }
}

void host_ipc_map_retain(ipc_map *map)
{
    atomic_fetch_add_explicit(&map->refs, 1, memory_order_relaxed);
}

void host_ipc_map_release(ipc_map *map)
{
    if (atomic_fetch_sub_explicit(&map->refs, 1, memory_order_acq_rel) != 1)
        return;
    munmap(map->page, host_config_get()->page_size);
    close(map->fd);
    free(map);
}
