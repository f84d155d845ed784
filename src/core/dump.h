/* Dumps (acl/acl_dump.h) that have a meaning without CANN's operators: the
 * exception dump's directory, the exception information written there when
 * a device faults, and files an application saves there. Configured as
 * CANN's are, by environment: ASCEND_DUMP_SCENE (lite_exception,
 * aic_err_brief_dump, aic_err_norm_dump, aic_err_detail_dump) or
 * NPU_COLLECT_PATH turn exception dumps on; the directory is
 * ASCEND_DUMP_PATH, else ASCEND_WORK_PATH, else NPU_COLLECT_PATH, else ".".
 * A callback registered with acldumpRegCallback receives the files'
 * contents instead of the files. */
#ifndef ACLCUDA_CORE_DUMP_H
#define ACLCUDA_CORE_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_dump.h"

/* The exception dump level in force: AIC_ERR_BRIEF_DUMP, _NORM_ or
 * _DETAIL_, or 0 when exception dumps are off. */
acldumpType dump_exception_level(void);
/* The exception dump's root directory, NULL when exception dumps are off. */
const char *dump_exception_root(void);
/* <root>/extra-info/data-dump/<device>/ in out (max bytes), made. Bare
 * codes: ACL_ERROR_DUMP_NOT_RUN when exception dumps are off,
 * ACL_ERROR_INVALID_PARAM when it does not fit, ACL_ERROR_FAILURE when it
 * cannot be made. */
aclError dump_exception_dir(int32_t device, char *out, size_t max);
/* Writes parts (count of them, each len bytes) as the file at path, or
 * gives them to the registered callback. Bare codes. */
aclError dump_write(const char *path, const void *const *parts, const size_t *lens, size_t count);

void dump_set_callback(int32_t (*fn)(const acldumpChunk *, int32_t), int32_t flag);

/* A device fault (core/exception.c): the exception information of device
 * (its stream and task as the core knows them), written when exception
 * dumps are on. */
void dump_device_fault(int32_t device, int32_t stream_id, uint32_t task_id, aclError code);

#endif
