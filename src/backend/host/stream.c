/* The host backend's stream operations: arguments checked, then a task on
 * the stream's queue (queue.c, where the model is) or the operation of the
 * file that does the work (records and waits: event.c; launches: launch.c,
 * builtin.c; graphs: graph.c; pool memory: mempool.c). */
#include "backend/host/host.h"

static aclError host_memcpy_async(backend_stream *bs, void *dst, const void *src, size_t n,
                                  copy_dir dir)
{
    (void)dir; /* every direction is a CPU copy */
    if (n == 0)
        return ACL_SUCCESS;
    if (!dst || !src)
        return ACL_ERROR_RT_PARAM_INVALID;
    return host_enqueue_copy(bs->impl, dst, src, n);
}

static aclError host_memcpy2d_async(backend_stream *bs, void *dst, size_t dpitch, const void *src,
                                    size_t spitch, size_t width, size_t height, copy_dir dir)
{
    (void)dir;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    aclError err = host_check_2d(dst, dpitch, src, spitch, width);
    if (err != ACL_SUCCESS)
        return err;
    return host_enqueue_copy_2d(bs->impl, dst, dpitch, src, spitch, width, height);
}

static aclError host_memset_async(backend_stream *bs, void *ptr, uint8_t value, size_t n,
                                  bool on_device)
{
    (void)on_device;
    if (n == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    return host_enqueue_set(bs->impl, ptr, value, n);
}

static aclError host_memset32_async(backend_stream *bs, void *ptr, uint32_t value, size_t count,
                                    bool on_device)
{
    (void)on_device;
    if (count == 0)
        return ACL_SUCCESS;
    if (!ptr)
        return ACL_ERROR_RT_PARAM_INVALID;
    return host_enqueue_set32(bs->impl, ptr, value, count);
}

static aclError host_memcpy_batch_async(backend_stream *bs, const batch_copy *copies, size_t count,
                                        copy_dir dir)
{
    (void)dir;
    if (count == 0)
        return ACL_SUCCESS;
    return host_enqueue_batch(bs->impl, copies, count);
}

static aclError host_memcpy_indirect_async(backend_stream *bs, const indirect_copy *copy)
{
    if (copy->dst_slot == NULL)
        return ACL_SUCCESS; /* a cache prefetch: CPU caches need none */
    return host_enqueue_indirect(bs->impl, copy);
}

/* Managed memory is plain process memory here: nothing moves. */
static aclError host_prefetch_async(backend_stream *bs, const void *ptr, size_t n,
                                    managed_location loc)
{
    (void)bs;
    (void)ptr;
    (void)n;
    (void)loc;
    return ACL_SUCCESS;
}

static aclError submit_host_func(backend_stream *bs, host_fn fn, void *arg, bool any_thread)
{
    if (!fn)
        return ACL_ERROR_RT_PARAM_INVALID;
    return host_enqueue_host_fn(bs->impl, fn, arg, any_thread);
}

static aclError host_host_func(backend_stream *bs, host_fn fn, void *arg)
{
    return submit_host_func(bs, fn, arg, false);
}

static aclError host_host_func_any_thread(backend_stream *bs, host_fn fn, void *arg)
{
    return submit_host_func(bs, fn, arg, true);
}

static aclError host_value_write(backend_stream *bs, void *addr, uint64_t value)
{
    return host_enqueue_value(bs->impl, TASK_VALUE_WRITE, addr, value, 0);
}

static aclError host_value_wait(backend_stream *bs, void *addr, uint64_t value, uint32_t cmp)
{
    return host_enqueue_value(bs->impl, TASK_VALUE_WAIT, addr, value, cmp);
}

static aclError host_stream_abort(backend_stream *bs, bool *owes)
{
    *owes = host_queue_abort(bs->impl);
    return ACL_SUCCESS;
}

static void host_stream_cancel_waits(backend_stream *bs)
{
    host_queue_cancel_waits(bs->impl);
}

static aclError host_stream_create(backend_stream *bs, int32_t dev, int32_t priority)
{
    (void)priority; /* one level only, see device.c */
    if (!host_device_valid(dev))
        return ACL_ERROR_RT_INVALID_DEVICEID;
    return host_queue_create(dev, &bs->impl);
}

static void host_stream_destroy(backend_stream *bs, bool idle)
{
    (void)idle; /* nothing to recycle: a host stream costs no driver call */
    host_queue_destroy(bs->impl);
}

static aclError host_stream_synchronize(backend_stream *bs, int32_t timeout_ms)
{
    return host_queue_synchronize(bs->impl, timeout_ms);
}

static aclError host_stream_query(backend_stream *bs, bool *complete)
{
    *complete = host_queue_idle(bs->impl);
    return ACL_SUCCESS;
}

static void *host_stream_native(backend_stream *bs)
{
    (void)bs;
    return NULL;
}

const backend_stream_ops host_stream_ops = {
    .size = sizeof(backend_stream),
    .create = host_stream_create,
    .destroy = host_stream_destroy,
    .synchronize = host_stream_synchronize,
    .query = host_stream_query,
    .native = host_stream_native,
    .memcpy_async = host_memcpy_async,
    .memcpy2d_async = host_memcpy2d_async,
    .memset_async = host_memset_async,
    .record = host_record,
    .wait = host_wait,
    .record_external = host_record_external,
    .wait_external = host_wait_external,
    .host_func = host_host_func,
    .host_func_any_thread = host_host_func_any_thread,
    .value_write = host_value_write,
    .value_wait = host_value_wait,
    .abort = host_stream_abort,
    .launch = host_launch,
    .reduce = host_reduce,
    .random = host_random,
    .graph_launch = host_graph_launch,
    .graph_set_node = host_graph_set_node_ordered,
    .memset32_async = host_memset32_async,
    .memcpy_batch_async = host_memcpy_batch_async,
    .memcpy_indirect_async = host_memcpy_indirect_async,
    .prefetch_async = host_prefetch_async,
    .pool_alloc_async = host_pool_alloc_async,
    .pool_free_async = host_pool_free_async,
    .cancel_waits = host_stream_cancel_waits,
};
