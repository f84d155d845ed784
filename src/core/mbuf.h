/* Shared buffers (aclrtMbuf): a data area, the length of the valid data in
 * it, 96 bytes of private user data, and a chain of further buffers. On
 * both backends the data area is page-locked host memory of ours
 * (ORIGIN_MBUF in the allocation registry: copies treat it as page-locked,
 * and only aclrtFreeBuf releases it); CANN places it where its AI CPU
 * reaches it, which a GPU does not have.
 *
 * A reference copy (aclrtCopyBufRef) is a new buffer on the same data area,
 * starting with a copy of the original's valid length and user data; the
 * area goes when its last buffer does. A chain holds at most 128 buffers;
 * a buffer belongs to one chain at most, and freeing a chain's head frees
 * the whole chain (a buffer inside a chain is freed with its head). */
#ifndef ACLCUDA_CORE_MBUF_H
#define ACLCUDA_CORE_MBUF_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

enum { MBUF_USER_DATA = 96, MBUF_CHAIN_MAX = 128 };

/* All raise. */
aclError mbuf_alloc(const char *api, aclrtMbuf *out, size_t size);
aclError mbuf_free(const char *api, aclrtMbuf buf);
aclError mbuf_data(const char *api, aclrtMbuf buf, void **data, size_t *size);
aclError mbuf_data_len(const char *api, aclrtMbuf buf, size_t *get, const size_t *set);
/* Copies size bytes at offset of the user data out (to) or in (from). */
aclError mbuf_user_data(const char *api, aclrtMbuf buf, void *to, const void *from, size_t size,
                        size_t offset);
aclError mbuf_copy_ref(const char *api, aclrtMbuf buf, aclrtMbuf *out);
aclError mbuf_chain_append(const char *api, aclrtMbuf head, aclrtMbuf buf);
aclError mbuf_chain_count(const char *api, aclrtMbuf head, uint32_t *num);
aclError mbuf_chain_get(const char *api, aclrtMbuf head, uint32_t index, aclrtMbuf *out);

#endif
