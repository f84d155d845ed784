/* Tensor data transfer channels (acl_tdt.h): named, bounded FIFOs of
 * records (tdt_data.h) between the threads of this process.
 *
 * A channel is named by (device, name). Creating a name that exists in the
 * process opens the same channel again through a new handle (its capacity
 * must then agree); the channel goes when its last handle is destroyed,
 * with whatever it still holds. Channels do not reach other processes: a
 * process that creates the same name gets a channel of its own.
 *
 * Waits: timeout -1 waits for ever, 0 not at all, > 0 that many ms. A
 * full channel at the end of a send's wait gives ACL_ERROR_RT_QUEUE_FULL,
 * an empty one at the end of a receive's ACL_ERROR_RT_QUEUE_EMPTY.
 * Stopping a channel wakes every thread blocked in it: sends fail from
 * then on and receives take what is left, then fail (ACL_ERROR_FAILURE,
 * CANN's code for a stopped channel). A handle cannot be destroyed while a
 * thread is blocked in it (ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED; stop
 * the channel first): nothing it holds is lost and nothing hangs.
 * All functions raise. */
#ifndef ACLCUDA_CORE_TDT_CHANNEL_H
#define ACLCUDA_CORE_TDT_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_tdt.h"
#include "core/tdt_data.h"

enum {
    TDT_NAME_MAX = 128,
    TDT_CAPACITY_DEFAULT = 128,
    TDT_CAPACITY_MIN = 2,
    TDT_CAPACITY_MAX = 8192
};

aclError tdt_channel_open(const char *api, uint32_t device, const char *name, size_t capacity,
                          acltdtChannelHandle **out);
aclError tdt_channel_close(const char *api, acltdtChannelHandle *h);
aclError tdt_channel_stop(const char *api, acltdtChannelHandle *h);
aclError tdt_channel_clean(const char *api, acltdtChannelHandle *h);
/* Takes rec on success (the channel frees it). */
aclError tdt_channel_send(const char *api, const acltdtChannelHandle *h, tdt_record *rec,
                          int32_t timeout);
aclError tdt_channel_receive(const char *api, const acltdtChannelHandle *h, tdt_record **rec,
                             int32_t timeout);
aclError tdt_channel_size(const char *api, const acltdtChannelHandle *h, size_t *size);

#endif
