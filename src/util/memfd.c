/* Sealed memory files (memfd.h). */
#include "util/memfd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SIZE_SEALS = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL };

int sealed_memfd(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, SIZE_SEALS) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

bool memfd_holds(int fd, uint64_t end)
{
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & SIZE_SEALS) == SIZE_SEALS && fstat(fd, &st) == 0 &&
           st.st_size >= 0 && (uint64_t)st.st_size >= end;
}
