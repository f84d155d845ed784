#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/pages.h"

/* The protection bits of a maps line's "rwxp" field. */
static int prot_of(const char *perms)
{
    int prot = 0;
    if (perms[0] == 'r')
        prot |= PROT_READ;
    if (perms[1] == 'w')
        prot |= PROT_WRITE;
    if (perms[2] == 'x')
        prot |= PROT_EXEC;
    return prot;
}

/* The maps file lists areas in address order, one a line: "start-end perms
 * offset dev inode [path]". The range is walked from its first byte on;
 * a gap before its end means a page that is not mapped. */
pages_state pages_protection(const void *ptr, size_t size, int *prot)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL)
        return PAGES_UNKNOWN;
    uintptr_t at = (uintptr_t)ptr, last = at + (size - 1);
    int shared = PROT_READ | PROT_WRITE | PROT_EXEC;
    pages_state state = PAGES_UNMAPPED;
    char line[256];
    bool line_start = true;
    while (fgets(line, sizeof line, maps) != NULL) {
        /* A long path fills the buffer: the rest of its line is no area. */
        bool starts_area = line_start;
        line_start = line[0] != '\0' && line[strlen(line) - 1] == '\n';
        unsigned long start, end;
        char perms[5];
        if (!starts_area || sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3)
            continue;
        if (end <= at)
            continue;
        if (start > at)
            break; /* a gap */
        shared &= prot_of(perms);
        if (end - 1 >= last) {
            state = PAGES_MAPPED;
            break;
        }
        at = end;
    }
    fclose(maps);
    if (state == PAGES_MAPPED)
        *prot = shared;
    return state;
}
