#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "hccl/env.h"
#include "hccl/errors.h"

static hccl_env_values values;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int64_t read_integer(const char *name, int64_t min, int64_t max, int64_t fallback)
{
    const char *text = getenv(name);
    if (!text)
        return fallback;
    char *end;
    errno = 0;
    long long parsed = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno || parsed < min || parsed > max) {
        hccl_warn("%s=\"%s\" is not a whole number in [%lld, %lld]: %lld is used", name, text,
                  (long long)min, (long long)max, (long long)fallback);
        return fallback;
    }
    return parsed;
}

double hccl_exec_timeout_s(int64_t seconds)
{
    return seconds == 0 ? (double)INT32_MAX : (double)seconds;
}

static void read_environment(void)
{
    values.connect_timeout_s =
        (double)read_integer("HCCL_CONNECT_TIMEOUT", 120, 7200, HCCL_CONNECT_TIMEOUT_DEFAULT_S);
    /* Ours, below CANN's floor of 120 s: tests and CI wait seconds, not
     * minutes, for a rank that never comes. */
    if (getenv("ACLCUDA_HCCL_CONNECT_TIMEOUT"))
        values.connect_timeout_s = (double)read_integer("ACLCUDA_HCCL_CONNECT_TIMEOUT", 1, 7200,
                                                        (int64_t)values.connect_timeout_s);
    values.exec_timeout_s = hccl_exec_timeout_s(
        read_integer("HCCL_EXEC_TIMEOUT", 0, INT32_MAX, HCCL_EXEC_TIMEOUT_DEFAULT_S));
    values.base_port =
        (uint16_t)read_integer("HCCL_IF_BASE_PORT", 1, 65520, HCCL_IF_BASE_PORT_DEFAULT);
}

const hccl_env_values *hccl_env(void)
{
    pthread_once(&once, read_environment);
    return &values;
}
