/* ACL's built-in stream tasks: aclrtReduceAsync (element-wise
 * dst = dst op src) and aclrtRandomNumAsync (random numbers of a
 * distribution from a counter-based generator: Philox4x32-10 keyed by the
 * seed, at the offset read from the counter address). Both check their
 * arguments here and run in stream order as one task on the backend. */
#ifndef ACLCUDA_CORE_BUILTIN_H
#define ACLCUDA_CORE_BUILTIN_H

#include "acl/acl.h"
#include "core/stream.h"

/* count is in bytes, as in ACL. Raise. */
aclError builtin_reduce(const char *api, acl_stream *s, void *dst, const void *src, uint64_t count,
                        aclrtReduceKind kind, aclDataType type);
aclError builtin_random(const char *api, acl_stream *s, const aclrtRandomNumTaskInfo *info);
/* builtin_random's checks and its task's parameters (*empty: no number is
 * asked for, there is nothing to queue). Raises. */
aclError builtin_random_params(const char *api, acl_stream *s, const aclrtRandomNumTaskInfo *info,
                               random_params *out, bool *empty);

#endif
