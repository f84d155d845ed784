/* CANN's environment variables for HCCL, read once per process. A value
 * that is not a whole number in CANN's documented range is replaced by the
 * default, with a warning. */
#ifndef ACLCUDA_HCCL_ENV_H
#define ACLCUDA_HCCL_ENV_H

#include <stdint.h>

#define HCCL_CONNECT_TIMEOUT_DEFAULT_S 120 /* [120, 7200] */
#define HCCL_EXEC_TIMEOUT_DEFAULT_S 1836   /* [0, 2147483647], 0 = no limit */
#define HCCL_IF_BASE_PORT_DEFAULT 60000    /* [1, 65520] */

typedef struct hccl_env_values {
    double connect_timeout_s; /* HCCL_CONNECT_TIMEOUT: rendezvous and link setup */
    double exec_timeout_s;    /* HCCL_EXEC_TIMEOUT; "no limit" is INT32_MAX s */
    uint16_t base_port;       /* HCCL_IF_BASE_PORT: a rank table's rendezvous */
} hccl_env_values;

const hccl_env_values *hccl_env(void);

/* An execution timeout in CANN's seconds (0 = no limit) as engines take it. */
double hccl_exec_timeout_s(int64_t seconds);

#endif
