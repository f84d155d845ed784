#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/hostfill.h"

enum { PATTERN = 4096, PATTERNS = 64 }; /* up to 256 KiB per call */

/* Writes through the kernel; *filtered when the call is not allowed here.
 * (valgrind does not mark what it writes as defined.) */
static bool fill_by_kernel(void *ptr, uint8_t value, size_t n, bool *filtered)
{
    unsigned char pattern[PATTERN];
    memset(pattern, value, sizeof pattern);
    struct iovec local[PATTERNS];
    char *at = ptr;
    size_t left = n;
    *filtered = false;
    while (left > 0) {
        size_t want = left < (size_t)PATTERN * PATTERNS ? left : (size_t)PATTERN * PATTERNS;
        size_t count = (want + PATTERN - 1) / PATTERN;
        for (size_t i = 0; i < count; i++)
            local[i] = (struct iovec){pattern, PATTERN};
        local[count - 1].iov_len = want - (count - 1) * PATTERN;
        struct iovec remote = {at, want};
        ssize_t done = process_vm_writev(getpid(), local, (unsigned long)count, &remote, 1, 0);
        if (done <= 0) {
            *filtered = done < 0 && (errno == ENOSYS || errno == EPERM);
            return false;
        }
        at += done;
        left -= (size_t)done;
    }
    return true;
}

/* Whether the mappings of the process cover [start, start + n) writable. */
static bool mapped_writable(uintptr_t start, size_t n)
{
    uintptr_t end;
    if (__builtin_add_overflow(start, n, &end))
        return false;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return false;
    uintptr_t at = start;
    char line[512];
    while (at < end && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || hi <= at)
            continue; /* the tail of a long line, or a mapping below */
        if (lo > at || perms[1] != 'w')
            break;
        at = hi;
    }
    fclose(maps);
    return at >= end;
}

bool host_fill_checked(void *ptr, uint8_t value, size_t n)
{
    bool filtered;
    if (n == 0 || fill_by_kernel(ptr, value, n, &filtered))
        return true;
    if (!filtered || !mapped_writable((uintptr_t)ptr, n))
        return false;
    memset(ptr, value, n);
    return true;
}
