/* The other process of test_notify's sharing tests. It waits for a line on
 * stdin (the parent allows its pid meanwhile), then for each pair of
 * arguments:
 *   record KEY   imports the notify and records it (must work)
 *   import KEY   imports the notify (must work)
 *   refused KEY  imports the notify (must fail with ACL_ERROR_RT_NO_PERMISSION)
 * Exits 0 when everything went as expected, else 1 (with a message). */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int fail(const char *what, aclError err)
{
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr, "notify_peer: %s: %d %s\n", what, (int)err, msg ? msg : "");
    return 1;
}

int main(int argc, char **argv)
{
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return fail("no go from the parent", 0);
    aclError err = aclInit(NULL);
    if (err || (err = aclrtSetDevice(0)))
        return fail("init", err);
    for (int i = 1; i + 1 < argc; i += 2) {
        aclrtNotify n;
        err = aclrtNotifyImportByKey(&n, argv[i + 1], 0);
        if (strcmp(argv[i], "refused") == 0) {
            if (err != ACL_ERROR_RT_NO_PERMISSION)
                return fail("import of a key that does not allow this process", err);
            continue;
        }
        if (err)
            return fail("import", err);
        if (strcmp(argv[i], "record") == 0 &&
            ((err = aclrtRecordNotify(n, NULL)) || (err = aclrtSynchronizeStream(NULL))))
            return fail("record", err);
        if ((err = aclrtDestroyNotify(n)))
            return fail("destroy", err);
    }
    if ((err = aclrtResetDevice(0)) || (err = aclFinalize()))
        return fail("finalize", err);
    return 0;
}
