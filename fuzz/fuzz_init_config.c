/* libFuzzer target: aclInit's configuration file. Each input is written to a
 * file that aclInit parses. A configuration it accepts is used (its
 * defaultDevice makes aclrtGetDevice set a device) and finalized again, so
 * every run starts uninitialised; a rejected one must leave a message and
 * no reference behind. Host backend only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "acl/acl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char config_path[] = "/tmp/acl-fuzz-config-XXXXXX";
static int config_fd = -1;

static void remove_config(void)
{
    unlink(config_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ACLCUDA_BACKEND", "host", 1);
    config_fd = mkstemp(config_path);
    if (config_fd < 0) {
        perror("mkstemp");
        abort();
    }
    atexit(remove_config);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ftruncate(config_fd, 0) != 0 || pwrite(config_fd, data, size, 0) != (ssize_t)size)
        abort();
    aclError ret = aclInit(config_path);
    if (ret == ACL_SUCCESS) {
        int32_t device;
        if (aclrtGetDevice(&device) == ACL_SUCCESS && device < 0)
            abort();
        if (aclFinalize() != ACL_SUCCESS)
            abort(); /* the reference aclInit took is gone */
    } else if (ret == ACL_ERROR_REPEAT_INITIALIZE) {
        abort(); /* an earlier input left the library initialised */
    } else if (aclGetRecentErrMsg() == NULL) {
        abort(); /* a rejected configuration must say why */
    }
    (void)aclGetRecentErrMsg();
    return 0;
}
