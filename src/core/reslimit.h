/* Device resource limits (aclrtDevResLimitType: cube and vector cores; on
 * both backends the device's multiprocessors), at three levels, the first
 * set winning: the stream the calling thread uses (aclrtSetStreamResLimit
 * + aclrtUseStreamResInCurrentThread), the process for a device
 * (aclrtSetDeviceResLimit), the hardware. acl-cuda keeps and reports them;
 * no task of its own runs on a subset of a device's cores. */
#ifndef ACLCUDA_CORE_RESLIMIT_H
#define ACLCUDA_CORE_RESLIMIT_H

#include <stdint.h>

#include "core/stream.h"

enum { RES_LIMIT_TYPES = 2 };

/* The hardware's count on a backend device. Bare codes. */
aclError reslimit_hardware(int32_t phys, uint32_t *value);
/* value 0 resets. */
void reslimit_device_set(int32_t phys, int type, uint32_t value);
/* The process-level limit, else the hardware's. */
aclError reslimit_device_get(int32_t phys, int type, uint32_t *value);
/* The stream's limit, else its device's. */
aclError reslimit_stream_get(acl_stream *s, int type, uint32_t *value);
/* The stream whose limits the calling thread uses (NULL: none), as a
 * handle: looked up again when asked, so a destroyed one no longer counts. */
void reslimit_thread_use(aclrtStream stream);
aclrtStream reslimit_thread_stream(void);

#endif
