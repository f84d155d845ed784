/* Model run instances (aclmdlRI, acl_rt.h): stream capture, models built
 * from persistent streams, their execution and inspection. */
#include "api/api.h"
#include "core/current.h"
#include "core/graph.h"

/* A stream ACL requires (no NULL: the default stream cannot take part). */
static aclError explicit_stream(const char *api, aclrtStream stream, acl_stream **s)
{
    if (!stream)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "stream is NULL");
    return stream_get(api, stream, s);
}

ACL_EXPORT aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_begin(__func__, s, mode);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                           aclmdlRI *modelRI)
{
    PROF_API();
    if (!status)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "status is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_info(__func__, s, status, modelRI);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    PROF_API();
    if (!modelRI)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_end(__func__, s, modelRI);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    PROF_API();
    if (!mode)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "mode is NULL");
    if (*mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
        *mode != ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL &&
        *mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)*mode);
    *mode = capture_exchange_mode(*mode);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_group_begin(__func__, s);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    PROF_API();
    if (!handle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_group_end(__func__, s, handle);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_update_begin(__func__, s, handle);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = capture_update_end(__func__, s);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    PROF_API();
    if (!modelRI)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (flag != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flag 0x%x: must be 0", flag);
    return model_build_begin(__func__, modelRI);
}

/* A model and an explicit stream, both borrowed. */
static aclError model_and_stream(const char *api, aclmdlRI modelRI, aclrtStream stream,
                                 acl_model **m, acl_stream **s)
{
    aclError err = model_get(api, modelRI, m);
    if (err)
        return err;
    if ((err = explicit_stream(api, stream, s)))
        model_put(*m);
    return err;
}

ACL_EXPORT aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    PROF_API();
    acl_model *m;
    acl_stream *s;
    aclError err = model_and_stream(__func__, modelRI, stream, &m, &s);
    if (err)
        return err;
    err = model_bind(__func__, m, s, flag);
    stream_put(s);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    PROF_API();
    acl_model *m;
    acl_stream *s;
    aclError err = model_and_stream(__func__, modelRI, stream, &m, &s);
    if (err)
        return err;
    err = model_end_task(__func__, m, s);
    stream_put(s);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    PROF_API();
    (void)reserve; /* ACL: fixed NULL */
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_build_end(__func__, m);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    PROF_API();
    acl_model *m;
    acl_stream *s;
    aclError err = model_and_stream(__func__, modelRI, stream, &m, &s);
    if (err)
        return err;
    err = model_unbind(__func__, m, s);
    stream_put(s);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    acl_stream *s;
    if (!(err = current_stream_get(__func__, stream, &s))) {
        err = model_execute_async(__func__, m, s);
        stream_put(s);
    }
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    PROF_API();
    if (timeout < -1 || timeout == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeout %d ms: -1 (forever) or more than 0",
                         (int)timeout);
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_execute(__func__, m, timeout);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    PROF_API();
    return model_destroy(__func__, modelRI);
}

ACL_EXPORT aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func,
                                                    void *userData)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_destroy_callback(__func__, m, func, userData, true);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_destroy_callback(__func__, m, func, NULL, false);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_set_name(__func__, m, name);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
    PROF_API();
    if (!name)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "name is NULL");
    if (maxLen == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    model_get_name(m, name, maxLen);
    model_put(m);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
    PROF_API();
    if (!modelRIId)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "modelRIId is NULL");
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    *modelRIId = model_id(m);
    model_put(m);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_debug_print(__func__, m);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_debug_json(__func__, m, path, flags);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_streams(__func__, m, streams, numStreams);
    model_put(m);
    return err;
}

/* ---- captures into branches, abort, update -------------------------------------------- */

ACL_EXPORT aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                                  aclmdlRICaptureMode mode)
{
    PROF_API();
    acl_model *m;
    acl_stream *s;
    aclError err = model_and_stream(__func__, modelRI, stream, &m, &s);
    if (err)
        return err;
    err = capture_begin_into(__func__, s, m, mode);
    stream_put(s);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIAbort(aclmdlRI modelRI)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_abort(__func__, m);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
    PROF_API();
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = model_update(__func__, m);
    model_put(m);
    return err;
}

/* ---- the tasks of a model -------------------------------------------------------------- */

ACL_EXPORT aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks,
                                             uint32_t *numTasks)
{
    PROF_API();
    if (!numTasks)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "numTasks is NULL");
    acl_stream *s;
    aclError err = explicit_stream(__func__, stream, &s);
    if (err)
        return err;
    err = model_tasks_by_stream(__func__, s, tasks, numTasks);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclmdlRITaskGetType(aclmdlRITask modelTask, aclmdlRITaskType *type)
{
    PROF_API();
    return model_task_type(__func__, modelTask, type);
}

ACL_EXPORT aclError aclmdlRITaskGetSeqId(aclmdlRITask modelTask, uint32_t *id)
{
    PROF_API();
    return model_task_seq(__func__, modelTask, id);
}

ACL_EXPORT aclError aclmdlRITaskGetParams(aclmdlRITask modelTask, aclmdlRITaskParams *params)
{
    PROF_API();
    return model_task_get_params(__func__, modelTask, params);
}

ACL_EXPORT aclError aclmdlRITaskSetParams(aclmdlRITask modelTask, aclmdlRITaskParams *params)
{
    PROF_API();
    return model_task_set_params(__func__, modelTask, params);
}

ACL_EXPORT aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask modelTask,
                                                   aclrtLaunchKernelAttrId attrId,
                                                   aclrtLaunchKernelAttrValue *attrValue)
{
    PROF_API();
    return model_task_kernel_attr(__func__, modelTask, attrId, attrValue);
}

ACL_EXPORT aclError aclmdlRITaskDisable(aclmdlRITask modelTask)
{
    PROF_API();
    return model_task_disable(__func__, modelTask);
}

/* ---- conditional tasks ------------------------------------------------------------------- */

ACL_EXPORT aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                             aclmdlRICondHandleFlag flag,
                                             aclmdlRICondHandle *handle)
{
    PROF_API();
    if (!handle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    acl_model *m;
    aclError err = model_get(__func__, modelRI, &m);
    if (err)
        return err;
    err = cond_create(__func__, m, defaultLaunchValue, flag, handle);
    model_put(m);
    return err;
}

ACL_EXPORT aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    PROF_API();
    return cond_pointer(__func__, handle, ptr);
}

ACL_EXPORT aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
                                        uint32_t flags)
{
    PROF_API();
    acl_stream *s;
    aclError err = explicit_stream(__func__, stream, &s);
    if (err)
        return err;
    err = cond_add_task(__func__, &params, s, flags);
    stream_put(s);
    return err;
}

/* ---- labels ------------------------------------------------------------------------------ */

ACL_EXPORT aclError aclrtCreateLabel(aclrtLabel *label)
{
    PROF_API();
    if (!label)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "label is NULL");
    return label_create(__func__, label);
}

ACL_EXPORT aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    PROF_API();
    if (!label)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "label is NULL");
    acl_stream *s;
    aclError err = explicit_stream(__func__, stream, &s);
    if (err)
        return err;
    err = model_set_label(__func__, label, s);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtDestroyLabel(aclrtLabel label)
{
    PROF_API();
    return label_destroy(__func__, label);
}

ACL_EXPORT aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    PROF_API();
    if (!labels)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "labels is NULL");
    if (!labelList)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "labelList is NULL");
    return label_list_create(__func__, labels, num, labelList);
}

ACL_EXPORT aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
    PROF_API();
    return label_list_destroy(__func__, labelList);
}

ACL_EXPORT aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
                                            aclrtStream stream)
{
    PROF_API();
    if (!ptr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (!labelList)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "labelList is NULL");
    acl_stream *s;
    aclError err = explicit_stream(__func__, stream, &s);
    if (err)
        return err;
    err = model_switch_label(__func__, ptr, maxValue, labelList, s);
    stream_put(s);
    return err;
}
