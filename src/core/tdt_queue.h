/* Shared queues (acl_tdt_queue.h): bounded FIFOs of messages between the
 * threads of this process and, once granted, other processes of the
 * machine.
 *
 * A queue is a sealed memfd: a header (a robust, process-shared mutex,
 * the ring's indices, two futex words, the grants), `depth` slots, and an
 * arena of TDT_QUEUE_ARENA bytes (sparse: only what messages touch is
 * memory) that holds the messages, each one or more segments of data and
 * 96 bytes of user data (a buffer chain, or the bytes of
 * acltdtEnqueueData). Messages are copied in and out under the mutex.
 *
 * Its id is the creating process's pid (22 bits) and an index (10 bits,
 * so at most 1023 queues per process). The creating process publishes the
 * memfd on the share broker (core/share.h) under that id with an empty
 * allow-list; acltdtGrantQueue adds a pid to it (and its permission bits
 * to the header's grants), and acltdtAttachQueue fetches the memfd from
 * the creating process's broker, which refuses (ACL_ERROR_RT_NO_PERMISSION)
 * a process it was not told of. Attach waits up to its timeout for a
 * grant. The header's contents are never trusted: every index, offset and
 * size read from it is checked against the creating process's own
 * description (from the broker) before use, and the memfd's size is
 * sealed, so a peer cannot make the mapping fault.
 *
 * Waits (timeout -1 for ever, 0 none, > 0 ms) sleep on futex words in
 * slices of at most 100 ms; the mutex is taken with a deadline, and a lock
 * whose holder died (EOWNERDEAD) is taken over after the ring is checked
 * (a ring found inconsistent is emptied, with a warning). Destroy is
 * refused (ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED) while a thread of this
 * process waits in the queue or a route bound here uses it; threads of
 * other processes waiting in a destroyed queue return
 * ACL_ERROR_INVALID_QUEUE_ID. A process that attached a queue and
 * destroys it only detaches.
 *
 * Routes (acltdtBindQueueRoutes) move every message of the source queue
 * into the destination queue from a thread of the binding process, under
 * both queues' locks: a message is in one queue or the other, never in
 * transit. All functions raise. */
#ifndef ACLCUDA_CORE_TDT_QUEUE_H
#define ACLCUDA_CORE_TDT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_tdt_queue.h"

enum { TDT_QUEUE_DEPTH_MAX = 8192, TDT_QUEUE_GRANTS_MAX = 64, TDT_QUEUE_ROUTES_MAX = 256 };
#define TDT_QUEUE_ARENA ((uint64_t)1 << 30)

aclError tdt_queue_create(const char *api, const acltdtQueueAttr *attr, uint32_t *qid);
aclError tdt_queue_destroy(const char *api, uint32_t qid);
/* Takes buf (and its chain) on success. */
aclError tdt_queue_enqueue_buf(const char *api, uint32_t qid, acltdtBuf buf, int32_t timeout);
aclError tdt_queue_dequeue_buf(const char *api, uint32_t qid, acltdtBuf *buf, int32_t timeout);
/* data and user data may be device memory; site: the caller's call site. */
aclError tdt_queue_enqueue_data(const char *api, const void *site, uint32_t qid, const void *data,
                                size_t size, const void *user, size_t user_size, int32_t timeout);
/* A message longer than size stays in the queue (ACL_ERROR_INVALID_PARAM,
 * *ret_size its length). */
aclError tdt_queue_dequeue_data(const char *api, const void *site, uint32_t qid, void *data,
                                size_t size, size_t *ret_size, void *user, size_t user_size,
                                int32_t timeout);
aclError tdt_queue_grant(const char *api, uint32_t qid, int32_t pid, uint32_t permission);
aclError tdt_queue_attach(const char *api, uint32_t qid, int32_t timeout, uint32_t *permission);
aclError tdt_queue_bind(const char *api, acltdtQueueRouteList *list);
aclError tdt_queue_unbind(const char *api, acltdtQueueRouteList *list);
aclError tdt_queue_query(const char *api, const acltdtQueueRouteQueryInfo *info,
                         acltdtQueueRouteList *list);

#endif
