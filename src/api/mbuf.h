/* The shared buffers' argument checks, for both of their APIs: acl_rt.h's
 * aclrt*Buf* and acl_tdt_queue.h's acltdt*Buf* take the same buffers (an
 * acltdtBuf is an aclrtMbuf) and the same arguments, and answer them with
 * the same codes and messages. Each function checks in CANN's order in the
 * name of api, then calls core/mbuf.h; all raise. */
#ifndef ACLCUDA_API_MBUF_H
#define ACLCUDA_API_MBUF_H

#include <stdbool.h>

#include "api/api.h"

/* Checks only: acltdtAllocBuf checks its type between these and the
 * allocation. */
aclError api_buf_alloc_check(const char *api, const aclrtMbuf *buf, size_t size);
aclError api_buf_free(const char *api, aclrtMbuf buf);
aclError api_buf_data(const char *api, aclrtMbuf buf, void **dataPtr, size_t *size);
aclError api_buf_get_data_len(const char *api, aclrtMbuf buf, size_t *len);
aclError api_buf_set_data_len(const char *api, aclrtMbuf buf, size_t len);
/* Reads size bytes at offset of the user data into to, or writes them from
 * from. bounds_first: size and offset are checked before the pointers, as
 * CANN's aclrt forms do; its acltdt forms check the pointers first. */
aclError api_buf_user_data(const char *api, bool bounds_first, aclrtMbuf buf, void *to,
                           const void *from, size_t size, size_t offset);
aclError api_buf_copy_ref(const char *api, aclrtMbuf buf, aclrtMbuf *newBuf);
aclError api_buf_chain_append(const char *api, aclrtMbuf headBuf, aclrtMbuf buf);
aclError api_buf_chain_count(const char *api, aclrtMbuf headBuf, uint32_t *num);
aclError api_buf_chain_get(const char *api, aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf);

#endif
