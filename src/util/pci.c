#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/pci.h"

/* The device's path below /sys/devices, e.g.
 * "pci0000:00/0000:00:01.0/0000:01:00.0", or false. */
static int sysfs_path(const char *address, char *out, size_t size)
{
    char link[128], real[PATH_MAX];
    snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", address);
    if (!realpath(link, real))
        return 0;
    const char *prefix = "/sys/devices/";
    if (strncmp(real, prefix, strlen(prefix)) != 0)
        return 0;
    snprintf(out, size, "%s", real + strlen(prefix));
    return 1;
}

static int numa_node(const char *address)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", address);
    FILE *f = fopen(path, "r");
    int node = -1;
    if (f) {
        if (fscanf(f, "%d", &node) != 1)
            node = -1;
        fclose(f);
    }
    return node;
}

pci_meeting pci_meeting_point(const char *a, const char *b)
{
    char pa[PATH_MAX], pb[PATH_MAX];
    if (!sysfs_path(a, pa, sizeof pa) || !sysfs_path(b, pb, sizeof pb))
        return PCI_MEET_UNKNOWN;
    /* Count the path components the two share, the root complex first. */
    size_t shared = 0, i = 0;
    for (;; i++) {
        char ca = pa[i], cb = pb[i];
        if (ca != cb) {
            break;
        }
        if (ca == '/' || ca == '\0') {
            shared++;
            if (ca == '\0')
                break;
        }
    }
    if (shared == 0) {
        int na = numa_node(a), nb = numa_node(b);
        return na >= 0 && na == nb ? PCI_MEET_HOST_BRIDGE : PCI_MEET_SYSTEM;
    }
    return shared == 1 ? PCI_MEET_HOST_BRIDGE : PCI_MEET_SWITCH;
}
