/* Model run instances (aclmdlRI): graphs of stream work, recorded by stream
 * capture (aclmdlRICaptureBegin .. End) or by binding persistent streams to
 * a model being built (aclmdlRIBuildBegin .. End; with streams that others
 * start, switches between streams and labels, a build is put together when
 * it ends: graph_flow.h), then replayed with aclmdlRIExecuteAsync as one
 * task.
 *
 * A capture starts on one stream (its origin) and is the sink (sink.h) of
 * the streams it records: work queued on them goes through stream_submit
 * to its recorder, which records it through the backend (nothing runs,
 * nothing is counted as queued) or refuses it. A stream that waits for an
 * event recorded during the capture joins it; every joined stream must be
 * waited for by the origin before the capture ends. The recorder keeps
 * ACL's rules, which the code below it reaches only through the sink:
 * what ACL forbids meanwhile is refused, never left to hang:
 * synchronising or querying a capturing stream, its device or an event it
 * recorded; ACL's capture-unsafe functions (synchronous copies and fills,
 * asynchronous copies through pageable memory) according to the capture
 * modes, which also invalidates the captures that forbid them; waits that
 * would tie a capture to work outside it.
 *
 * Locks: a capture's gate, the registry of sinks, then a capture's lock
 * (docs/hacking.md: after the contexts, before the handle table). Only the
 * gate is held while the backend records or ends a capture: work that
 * another thread queues on a stream whose capture ends meanwhile is
 * recorded before the end or queued after it, never refused or lost.
 * (Work racing with a capture's begin may still be recorded by the backend
 * without being listed among the model's tasks, as it reached the backend
 * before the stream was marked capturing.) */
#ifndef ACLCUDA_CORE_GRAPH_H
#define ACLCUDA_CORE_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"
#include "core/stream.h"

typedef struct acl_model acl_model;
typedef struct acl_task_group acl_task_group;
typedef struct acl_event acl_event;

/* ---- aclmdlRI ---------------------------------------------------------------- */

aclError capture_begin(const char *api, acl_stream *s, aclmdlRICaptureMode mode);
aclError capture_end(const char *api, acl_stream *s, aclmdlRI *out);
aclError capture_info(const char *api, acl_stream *s, aclmdlRICaptureStatus *status,
                      aclmdlRI *model);
aclmdlRICaptureMode capture_exchange_mode(aclmdlRICaptureMode mode);
aclError capture_group_begin(const char *api, acl_stream *s);
aclError capture_group_end(const char *api, acl_stream *s, aclrtTaskGrp *out);
aclError capture_update_begin(const char *api, acl_stream *s, aclrtTaskGrp group);
aclError capture_update_end(const char *api, acl_stream *s);

/* The live model behind a handle, borrowed (model_put). Raises. */
aclError model_get(const char *api, aclmdlRI handle, acl_model **out);
void model_put(acl_model *m);

aclError model_build_begin(const char *api, aclmdlRI *out);
aclError model_bind(const char *api, acl_model *m, acl_stream *s, uint32_t flag);
aclError model_end_task(const char *api, acl_model *m, acl_stream *s);
aclError model_build_end(const char *api, acl_model *m);
aclError model_unbind(const char *api, acl_model *m, acl_stream *s);
aclError model_execute_async(const char *api, acl_model *m, acl_stream *s);
aclError model_execute(const char *api, acl_model *m, int32_t timeout_ms);
aclError model_destroy(const char *api, aclmdlRI handle);
aclError model_set_name(const char *api, acl_model *m, const char *name);
void model_get_name(acl_model *m, char *name, uint32_t max_len);
uint32_t model_id(const acl_model *m);
aclError model_debug_print(const char *api, acl_model *m);
aclError model_debug_json(const char *api, acl_model *m, const char *path, uint32_t flags);
aclError model_streams(const char *api, acl_model *m, aclrtStream *streams, uint32_t *count);
aclError model_destroy_callback(const char *api, acl_model *m, aclrtCallback fn, void *user_data,
                                bool add);
/* aclmdlRIAbort: the model's runs stop (backend.h says how far). Raises. */
aclError model_abort(const char *api, acl_model *m);

/* ---- the tasks of a model (graph_task.c) ---------------------------------------------
 * Every task queued on a captured stream becomes a task of the model, in
 * order, with its parameters as queued: what aclmdlRIGetTasksByStream
 * lists (for the newest live model a stream took part in), what the
 * aclmdlRITask* functions read and change. Changes are staged and reach
 * the graph with aclmdlRIUpdate. */

/* All of these raise. */
aclError model_tasks_by_stream(const char *api, acl_stream *s, aclmdlRITask *tasks,
                               uint32_t *count);
aclError model_task_type(const char *api, aclmdlRITask handle, aclmdlRITaskType *type);
aclError model_task_seq(const char *api, aclmdlRITask handle, uint32_t *id);
aclError model_task_get_params(const char *api, aclmdlRITask handle, aclmdlRITaskParams *params);
aclError model_task_set_params(const char *api, aclmdlRITask handle,
                               const aclmdlRITaskParams *params);
aclError model_task_kernel_attr(const char *api, aclmdlRITask handle, aclrtLaunchKernelAttrId id,
                                aclrtLaunchKernelAttrValue *value);
aclError model_task_disable(const char *api, aclmdlRITask handle);
aclError model_update(const char *api, acl_model *m);
/* aclrtCacheLastTaskOpInfo / ExtendInfo: to the calling thread's last
 * task queued on a capturing stream. */
aclError capture_cache_op_info(const char *api, const void *info, size_t size);
aclError capture_cache_extend_info(const char *api, const char *info, size_t size);
/* aclrtTaskUpdateAsync: task task_id of task_stream (bound to a built
 * model) takes what info describes, read from device memory after
 * exec's work so far. */
aclError model_task_update_async(const char *api, acl_stream *task_stream, uint32_t task_id,
                                 const aclrtTaskUpdateInfo *info, acl_stream *exec);

/* ---- conditional tasks (graph_cond.c) -------------------------------------------------
 * A condition is a 64-bit word of device memory of a model being
 * captured; a conditional task reads it when a run reaches it and runs
 * the models of its branches (if, while, switch), which are filled by
 * captures into them (aclmdlRICaptureToModelRIBegin). All raise. */
aclError cond_create(const char *api, acl_model *m, uint32_t default_value,
                     aclmdlRICondHandleFlag flag, aclmdlRICondHandle *out);
aclError cond_pointer(const char *api, aclmdlRICondHandle handle, uint64_t **ptr);
aclError cond_add_task(const char *api, const aclmdlRICondTaskParams *params, acl_stream *s,
                       uint32_t flags);
aclError capture_begin_into(const char *api, acl_stream *s, acl_model *m, aclmdlRICaptureMode mode);

/* ---- stream control flow of built models (graph_flow.h) -------------------------------
 * Control tasks on s, a stream bound to a model being built: the build
 * then goes on with stream control flow. All raise. */
aclError model_activate(const char *api, acl_stream *target, acl_stream *s);
/* left, right: device memory, read when a run reaches the task. */
aclError model_switch_stream(const char *api, const void *left, aclrtCondition cond,
                             const void *right, aclrtCompareDataType type, acl_stream *target,
                             acl_stream *s);
aclError model_set_label(const char *api, aclrtLabel label, acl_stream *s);
/* index: a uint32_t in device memory; the first count labels of list. */
aclError model_switch_label(const char *api, const void *index, uint32_t count, aclrtLabelList list,
                            acl_stream *s);
/* Labels and label lists (graph_label.c), of the current context. */
aclError label_create(const char *api, aclrtLabel *out);
aclError label_destroy(const char *api, aclrtLabel label);
aclError label_list_create(const char *api, const aclrtLabel *labels, size_t n,
                           aclrtLabelList *out);
aclError label_list_destroy(const char *api, aclrtLabelList list);
#endif
