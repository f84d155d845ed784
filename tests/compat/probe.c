/* Names the implementation the suite runs against, for the summary and
 * for expected-differences.txt: "acl-cuda/<backend>" when the library has
 * acl-cuda's extension symbol, else "cann" (any other libascendcl). Then,
 * on a second line, what the library reports about itself. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

int main(int argc, char **argv)
{
    const char *(*backend)(void) =
        (const char *(*)(void))dlsym(RTLD_DEFAULT, "aclcudaGetBackendName");
    if (backend)
        printf("acl-cuda/%s\n", backend());
    else
        printf("cann\n");
    if (argc > 1 && strcmp(argv[1], "--name") == 0)
        return 0;
    int32_t major = -1, minor = -1, patch = -1;
    uint32_t count = 0;
    aclError init = aclInit(NULL);
    aclrtGetVersion(&major, &minor, &patch);
    aclrtGetDeviceCount(&count);
    const char *soc = aclrtGetSocName();
    printf("ACL %d.%d.%d (headers %d.%d.%d), %u device(s), SoC %s%s\n", (int)major, (int)minor,
           (int)patch, ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION, count,
           soc ? soc : "(none)", init == ACL_SUCCESS ? "" : " (aclInit failed)");
    aclFinalize();
    return 0;
}
