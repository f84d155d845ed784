/* Stream memory operations (aclrtValueWrite, aclrtValueWait): a 64-bit word
 * of ACL memory written, or waited for, in stream order. Both raise. */
#ifndef ACLCUDA_CORE_VALUE_H
#define ACLCUDA_CORE_VALUE_H

#include <stdint.h>

#include "core/stream.h"

/* Whether addr is a word a value write (write) or wait may use, as both
 * check it: also for a model's task given a new word. */
aclError value_word_check(const char *api, const void *addr, bool write);
/* cmp: ACL_STREAM_WAIT_VALUE_GEQ, EQ, AND or NOR (checked by the caller). */
aclError value_write(const char *api, acl_stream *s, void *addr, uint64_t value);
aclError value_wait(const char *api, acl_stream *s, void *addr, uint64_t value, uint32_t cmp);

#endif
