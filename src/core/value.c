#include "core/errors.h"
#include "core/memory.h"
#include "core/value.h"

/* The word must be 8 bytes of live ACL memory, 8-byte aligned: device
 * memory, or page-locked host memory (which the device reaches too). What
 * ACL did not allocate is refused: on the host backend the stream worker
 * would write to it, wherever it points. */
static aclError check_word(const char *api, const void *addr)
{
    if ((uintptr_t)addr % 8 != 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "devAddr %p is not 8-byte aligned (the value is 64 bits)", addr);
    mem_block b;
    memory_locate(addr, &b);
    if (b.kind == MEM_UNKNOWN)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "devAddr %p is not live memory from aclrtMalloc or aclrtMallocHost", addr);
    return memory_check_extent(api, "devAddr", addr, sizeof(uint64_t), &b);
}

aclError value_write(const char *api, acl_stream *s, void *addr, uint64_t value)
{
    aclError err = check_word(api, addr);
    if (err)
        return err;
    return stream_submit(
        api, s, &(task){.kind = TASK_VALUE_WRITE, .u.value = {.addr = addr, .value = value}});
}

aclError value_wait(const char *api, acl_stream *s, void *addr, uint64_t value, uint32_t cmp)
{
    aclError err = check_word(api, addr);
    if (err)
        return err;
    return stream_submit(
        api, s,
        &(task){.kind = TASK_VALUE_WAIT, .u.value = {.addr = addr, .value = value, .cmp = cmp}});
}
