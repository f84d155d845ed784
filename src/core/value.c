#include "core/errors.h"
#include "core/memory.h"
#include "core/value.h"

/* The word must be 8 bytes of live ACL memory, 8-byte aligned: device
 * memory, or page-locked host memory (which the device reaches too), that
 * its device may write (a write) or read (a wait). What ACL did not
 * allocate, or a mapping whose access forbids it, is refused here: queued,
 * the stream would fault on it (host backend) or wait forever (CUDA). */
aclError value_word_check(const char *api, const void *addr, bool write)
{
    if ((uintptr_t)addr % 8 != 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "devAddr %p is not 8-byte aligned (the value is 64 bits)", addr);
    mem_block b;
    return memory_locate_usable(api, "devAddr", addr, sizeof(uint64_t), write, &b);
}

aclError value_write(const char *api, acl_stream *s, void *addr, uint64_t value)
{
    aclError err = value_word_check(api, addr, true);
    if (err)
        return err;
    return stream_submit(
        api, s, &(task){.kind = TASK_VALUE_WRITE, .u.value = {.addr = addr, .value = value}});
}

aclError value_wait(const char *api, acl_stream *s, void *addr, uint64_t value, uint32_t cmp)
{
    aclError err = value_word_check(api, addr, false);
    if (err)
        return err;
    return stream_submit(
        api, s,
        &(task){.kind = TASK_VALUE_WAIT, .u.value = {.addr = addr, .value = value, .cmp = cmp}});
}
