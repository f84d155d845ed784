/* Stream callbacks (aclrtLaunchCallback) and the report threads that run
 * them (aclrtSubscribeReport, aclrtProcessReport). See callback.c for how
 * a callback travels and what happens when subscriptions end with
 * callbacks in flight. All functions but callback_running raise. */
#ifndef ACLCUDA_CORE_CALLBACK_H
#define ACLCUDA_CORE_CALLBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/stream.h"

/* True on a report thread while it runs a callback. memory.c parks the
 * frees made there: on CUDA a free waits for the device to go idle, which
 * a BLOCK callback's stream cannot do before the callback (and any BLOCK
 * callback queued behind it) has run. */
bool callback_running(void);

aclError callback_subscribe(const char *api, uint64_t thread_id, acl_stream *s);
aclError callback_unsubscribe(const char *api, uint64_t thread_id, acl_stream *s);
aclError callback_launch(const char *api, acl_stream *s, aclrtCallback fn, void *user_data, bool block);
/* aclrtProcessReport for the calling thread; timeout -1 or > 0 ms. */
aclError callback_process(const char *api, int32_t timeout);

#endif
