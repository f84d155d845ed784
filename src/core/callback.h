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

/* Report threads (aclrtSubscribeReport, aclrtLaunchCallback) or host
 * function threads (aclrtSubscribeHostFunc, aclrtLaunchHostFunc). */
typedef enum callback_channel { CHANNEL_REPORT, CHANNEL_HOST_FUNC, CHANNEL_COUNT } callback_channel;

aclError callback_subscribe(const char *api, callback_channel channel, uint64_t thread_id,
                            acl_stream *s);
aclError callback_unsubscribe(const char *api, callback_channel channel, uint64_t thread_id,
                              acl_stream *s);
aclError callback_launch(const char *api, callback_channel channel, acl_stream *s, aclrtCallback fn,
                         void *user_data, bool block);
/* aclrtLaunchHostFunc's work, fn checked: to a thread subscribed to s's
 * host functions, else in s's order on its own thread (any_thread: or on a
 * thread that synchronizes s, aclcudaLaunchHostFuncAnyThread). */
aclError callback_launch_host_func(const char *api, acl_stream *s, aclrtHostFunc fn, void *args,
                                   bool any_thread);
/* Whether a thread of the channel serves s now (a hint: it may change). */
bool callback_has_subscriber(acl_stream *s, callback_channel channel);
/* aclrtProcessReport / aclrtProcessHostFunc for the calling thread;
 * timeout -1 or > 0 ms. */
aclError callback_process(const char *api, callback_channel channel, int32_t timeout);

#endif
