/* Kernel launches (kernel.h): the launch shape, ACL's launch attributes,
 * the packed argument buffer in each of ACL's four forms, the placeholder
 * data staged for the device, and the task. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_cuda.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/kernel.h"
#include "core/memory.h"
#include "core/sink.h"
#include "core/staging.h"
#include "util/log.h"
#include "util/probe.h"

enum {
    LOCAL_ARGS = 4096, /* argument bytes assembled on the stack */
    LOCAL_PLACEHOLDERS = 32,
    GRID_YZ_MAX = 65535,
};

/* A placeholder's data, whose device address goes into the parameters. */
typedef struct launch_placeholder {
    size_t addr_offset; /* where in the parameters the address goes */
    const void *data;
    size_t size;
} launch_placeholder;

typedef struct launch_shape {
    uint32_t block[3];
    size_t shared;
    bool cooperative;
} launch_shape;

/* ACL's launch attributes, each with its meaning on CUDA (docs/porting.md):
 * batch scheduling is a cooperative launch (every block resident at once),
 * the dynamic UB buffer is dynamic shared memory, the acl-cuda attribute
 * sets the block; the engine, prefetch, dump, timeouts and profiling have
 * no CUDA counterpart and are checked and accepted; a block offset cannot
 * be expressed (CUDA numbers blocks from 0) and is refused. */
static aclError parse_cfg(const char *api, const aclrtLaunchKernelCfg *cfg, launch_shape *sh,
                          bool *block_set, bool *shared_set)
{
    *block_set = *shared_set = false;
    if (!cfg)
        return ACL_SUCCESS;
    if (cfg->numAttrs && !cfg->attrs)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "cfg->attrs is NULL with numAttrs %zu",
                         cfg->numAttrs);
    bool timeout = false, timeout_us = false;
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtLaunchKernelAttr *a = &cfg->attrs[i];
        switch ((int)a->id) {
        case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
            if (a->value.schemMode > 1)
                return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                 "attribute %zu: schemMode %u is neither 0 (normal) nor 1 (batch)",
                                 i, a->value.schemMode);
            sh->cooperative = a->value.schemMode == 1;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
            sh->shared = a->value.dynUBufSize;
            *shared_set = true;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
            if (a->value.engineType != ACL_RT_ENGINE_TYPE_AIC &&
                a->value.engineType != ACL_RT_ENGINE_TYPE_AIV)
                return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                 "attribute %zu: engine type %d is neither AIC nor AIV", i,
                                 (int)a->value.engineType);
            break; /* one kind of core runs everything */
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
            if (a->value.blockDimOffset != 0)
                return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "attribute %zu: a block offset (%u) cannot be expressed on "
                                 "CUDA, whose grids number their blocks from 0; launch the "
                                 "whole grid at once",
                                 i, a->value.blockDimOffset);
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
        case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
            /* uint8_t flags of the same offset in the union */
            if (a->value.isDataDump > 1)
                return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                 "attribute %zu (id %d): %u is neither 0 nor 1", i, (int)a->id,
                                 a->value.isDataDump);
            break; /* hints without a CUDA counterpart */
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
            timeout = true;
            break; /* CUDA kernels have no timeout */
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
            timeout_us = true;
            break;
        case (int)ACLCUDA_LAUNCH_KERNEL_ATTR_BLOCK_DIM:
            for (int d = 0; d < 3; d++) {
                if (a->value.rsv[d] == 0)
                    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                     "attribute %zu: block dimension %d is 0", i, d);
                sh->block[d] = a->value.rsv[d];
            }
            *block_set = true;
            break;
        default:
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "attribute %zu: unknown id %d", i,
                             (int)a->id);
        }
    }
    if (timeout && timeout_us)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and _TIMEOUT_US exclude each other");
    return ACL_SUCCESS;
}

aclError kernel_launch_shape(const char *api, acl_function *f, const aclrtLaunchKernelCfg *cfg,
                             uint32_t block[3], uint32_t *shared, bool *cooperative)
{
    launch_shape sh = {.cooperative = false};
    function_get_block(f, sh.block, &sh.shared);
    bool block_set, shared_set;
    aclError err = parse_cfg(api, cfg, &sh, &block_set, &shared_set);
    if (err)
        return err;
    if (sh.shared > UINT32_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%zu bytes of dynamic shared memory",
                         sh.shared);
    memcpy(block, sh.block, sizeof sh.block);
    *shared = (uint32_t)sh.shared;
    *cooperative = sh.cooperative;
    return ACL_SUCCESS;
}

static aclError check_grid(const char *api, const launch_request *r)
{
    if (r->grid[0] == 0 || r->grid[0] > KERNEL_GRID_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %u: a CUDA grid holds 1 to 2^31-1 blocks in x",
                         r->simt ? "gridDim.x" : "numBlocks", r->grid[0]);
    if (r->grid[1] == 0 || r->grid[1] > GRID_YZ_MAX || r->grid[2] == 0 || r->grid[2] > GRID_YZ_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "gridDim %u x %u x %u: y and z must be 1 to 65535", r->grid[0], r->grid[1],
                         r->grid[2]);
    return ACL_SUCCESS;
}

/* A scratch buffer: the caller's stack space, or the heap. */
typedef struct scratch {
    unsigned char *p;
    unsigned char *heap;
} scratch;

static aclError scratch_get(const char *api, scratch *s, unsigned char *local, size_t size)
{
    s->heap = NULL;
    if (size <= LOCAL_ARGS) {
        s->p = local;
        return ACL_SUCCESS;
    }
    s->p = s->heap = malloc(size);
    return s->p ? ACL_SUCCESS
                : acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                            "out of host memory for %zu "
                            "bytes of arguments",
                            size);
}

static aclError params_too_large(const char *api, const char *what, size_t bytes)
{
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "%s %zu: a kernel takes at most %d bytes of parameters (CUDA's limit)", what,
                     bytes, KERNEL_PARAMS_MAX);
}

/* The bytes of the kernel's parameters in a buffer of `region` bytes. */
static aclError param_region(const char *api, acl_function *f, size_t region, size_t *out)
{
    if (f->params_known) {
        if (region < f->param_bytes)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "kernel \"%s\" takes %zu bytes of parameters; the arguments "
                             "give %zu",
                             f->name, f->param_bytes, region);
        *out = f->param_bytes;
    } else {
        *out = region;
    }
    return *out > KERNEL_PARAMS_MAX ? params_too_large(api, "the parameters' size", *out)
                                    : ACL_SUCCESS;
}

/* n bytes of host memory at p that the launch reads (role names them). ACL's
 * own host memory and the caller's stack are read as they are; any other
 * address is copied into buf by a read that cannot fault (util/probe.h):
 * an argument pointer may be anything, and a launch must fail on a bad one,
 * not crash. Device memory is refused. Raises. */
static aclError host_bytes(const char *api, const char *role, const void *p, size_t n, scratch *buf,
                           unsigned char *local, const void **out)
{
    *out = p;
    if (n == 0 || probe_on_stack(p, n))
        return ACL_SUCCESS; /* the common case, asked first: no lookup */
    mem_block b;
    memory_locate(p, &b);
    if (b.kind == MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is %s, not host memory", role, p,
                         memory_where(&b));
    aclError err;
    if (b.kind != MEM_UNKNOWN) {
        if ((err = memory_check_extent(api, role, p, n, &b)))
            return err;
        return memory_check_access(api, role, p, &b, false);
    }
    /* Where the backend keeps device memory, nothing allocated: freed. */
    if (backend()->memory->device_address && backend()->memory->device_address(p))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p is device memory no longer allocated, not host memory", role, p);
    if ((err = scratch_get(api, buf, local, n)))
        return err;
    if (!probe_copy(buf->p, p, n))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%s %p: %zu bytes there are not readable host memory (unmapped, freed, "
                         "or another device's memory)",
                         role, p, n);
    *out = buf->p;
    return ACL_SUCCESS;
}

/* aclrtLaunchKernel(V2): the buffer is device memory (ACL's rule) or,
 * for CUDA habits, host memory (*host set). Device memory is read when the
 * launch is queued, after the stream's earlier work. */
static aclError device_args(const char *api, acl_stream *s, const launch_request *r,
                            const void **args, scratch *buf, unsigned char *local, bool *held,
                            bool *host)
{
    *args = r->args;
    *host = false;
    if (r->args_size == 0)
        return ACL_SUCCESS;
    if (!r->args)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "argsData is NULL with argsSize %zu",
                         r->args_size);
    if (r->args_size > KERNEL_PARAMS_MAX)
        return params_too_large(api, "argsSize", r->args_size);
    mem_block b;
    memory_locate(r->args, &b);
    if (b.kind != MEM_DEVICE) {
        *host = true;
        return ACL_SUCCESS;
    }
    aclError err = memory_check_extent(api, "argsData", r->args, r->args_size, &b);
    if (!err)
        err = memory_check_access(api, "argsData", r->args, &b, false);
    if (err)
        return err;
    /* The wait leaves the call's read section: the function stays by a
     * counted reference (kernel_launch lets it go). */
    if (!stream_sink(s) && !(*held = object_hold(&r->fn->obj)))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kernel \"%s\" was unloaded", r->fn->name);
    if (*held && (err = stream_synchronize(s, -1)))
        return acl_raise(api, err,
                         "waiting for stream %d before reading the arguments from device "
                         "memory failed: %s",
                         (int)s->id, acl_error_text(err));
    if ((err = scratch_get(api, buf, local, r->args_size)))
        return err;
    err = backend()->memory->memcpy_sync(b.phys, buf->p, r->args, r->args_size, COPY_DEVICE_TO_HOST,
                                         false);
    if (err)
        return acl_raise(api, err, "reading %zu bytes of arguments at %p failed: %s", r->args_size,
                         r->args, acl_error_text(err));
    *args = buf->p;
    return ACL_SUCCESS;
}

static int offset_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The smallest of the n sorted offsets above `after`, else `end`. */
static size_t next_offset(const uint32_t *sorted, size_t n, uint32_t after, size_t end)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo] < end ? sorted[lo] : end;
}

/* aclrtLaunchKernelWithHostArgs: placeholder i's data runs from its
 * dataOffset to the next one's (or the end), found in the offsets sorted
 * once (a launch may carry millions of placeholders); the parameters end
 * where the first data begins. */
static aclError host_placeholders(const char *api, const launch_request *r,
                                  const unsigned char *base, launch_placeholder *ph, size_t *region)
{
    *region = r->args_size;
    if (r->placeholder_count && !r->placeholders)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "placeHolderArray is NULL with placeHolderNum %zu", r->placeholder_count);
    for (size_t i = 0; i < r->placeholder_count; i++) {
        const aclrtPlaceHolderInfo *p = &r->placeholders[i];
        if ((size_t)p->addrOffset + sizeof(void *) > r->args_size || p->dataOffset > r->args_size)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "placeholder %zu (addrOffset %u, dataOffset %u) lies outside the "
                             "%zu argument bytes",
                             i, p->addrOffset, p->dataOffset, r->args_size);
        if (p->dataOffset < *region)
            *region = p->dataOffset;
    }
    size_t n = r->placeholder_count;
    uint32_t *sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (n && !sorted)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    for (size_t i = 0; i < n; i++)
        sorted[i] = r->placeholders[i].dataOffset;
    if (n)
        qsort(sorted, n, sizeof *sorted, offset_order);
    for (size_t i = 0; i < r->placeholder_count; i++) {
        const aclrtPlaceHolderInfo *p = &r->placeholders[i];
        if ((size_t)p->addrOffset + sizeof(void *) > *region) {
            free(sorted);
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "placeholder %zu: its address (offset %u) lies in the data of the "
                             "placeholders (from offset %zu)",
                             i, p->addrOffset, *region);
        }
        size_t end = next_offset(sorted, n, p->dataOffset, r->args_size);
        ph[i] = (launch_placeholder){.addr_offset = p->addrOffset,
                                     .data = base + p->dataOffset,
                                     .size = end - p->dataOffset};
    }
    free(sorted);
    return ACL_SUCCESS;
}

/* The block, shared memory and scheduling of r: the function's, ACL's
 * launch attributes, or the call's own (SIMT launches). Raises. */
static aclError shape_of(const char *api, const launch_request *r, launch_shape *sh)
{
    aclError err = check_grid(api, r);
    if (err)
        return err;
    *sh = (launch_shape){.cooperative = false};
    function_get_block(r->fn, sh->block, &sh->shared);
    bool block_set, shared_set;
    if ((err = parse_cfg(api, r->cfg, sh, &block_set, &shared_set)))
        return err;
    if (r->simt) {
        memcpy(sh->block, r->block, sizeof sh->block);
        sh->shared = r->shared;
        if (!sh->block[0] || !sh->block[1] || !sh->block[2])
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "blockDim %u x %u x %u has a 0",
                             sh->block[0], sh->block[1], sh->block[2]);
    }
    if (sh->shared > UINT32_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%zu bytes of dynamic shared memory",
                         sh->shared);
    return ACL_SUCCESS;
}

/* A launch's packed argument buffer, as each of ACL's four forms gives it,
 * and what holds it until the launch is queued. */
typedef struct packed_args {
    const void *args;
    size_t size;
    launch_placeholder *ph; /* ph_local, or the heap */
    size_t nph;
    launch_placeholder ph_local[LOCAL_PLACEHOLDERS];
    scratch buf;
    unsigned char local[LOCAL_ARGS];
    acl_args *list; /* locked while the buffer is read from it */
    bool held;      /* the function is held (device_args) */
} packed_args;

/* Room for n placeholders in pk. Raises. */
static aclError placeholders_room(const char *api, packed_args *pk, size_t n)
{
    if (n > LOCAL_PLACEHOLDERS && !(pk->ph = malloc(n * sizeof *pk->ph))) {
        pk->ph = pk->ph_local;
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    return ACL_SUCCESS;
}

/* aclrtLaunchKernel(V2): the buffer as it is (device_args). */
static aclError pack_device(const char *api, acl_stream *s, const launch_request *r,
                            packed_args *pk)
{
    bool host;
    aclError err = device_args(api, s, r, &pk->args, &pk->buf, pk->local, &pk->held, &host);
    if (!err)
        err = param_region(api, r->fn, r->args_size, &pk->size);
    if (!err && host)
        err = host_bytes(api, "argsData", pk->args, pk->size, &pk->buf, pk->local, &pk->args);
    return err;
}

/* aclrtLaunchKernelWithHostArgs: parameters and placeholder data, read
 * once. */
static aclError pack_host(const char *api, const launch_request *r, packed_args *pk)
{
    if (!r->args && r->args_size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "hostArgs is NULL with argsSize %zu",
                         r->args_size);
    if (r->args_size > KERNEL_ARGS_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "argsSize %zu: parameters and placeholder data take at most %d bytes",
                         r->args_size, KERNEL_ARGS_MAX);
    aclError err =
        host_bytes(api, "hostArgs", r->args, r->args_size, &pk->buf, pk->local, &pk->args);
    if (!err)
        err = placeholders_room(api, pk, r->placeholder_count);
    if (err)
        return err;
    size_t region;
    err = host_placeholders(api, r, pk->args, pk->ph, &region);
    pk->nph = r->placeholder_count;
    if (!err)
        err = param_region(api, r->fn, region, &pk->size);
    return err;
}

/* An argument list (aclrtKernelArgsInit..Finalize), locked until the
 * launch is queued. */
static aclError pack_list(const char *api, const launch_request *r, packed_args *pk)
{
    acl_args *list = r->list;
    if (list->fn != r->fn)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the argument list was made for kernel \"%s\", not \"%s\"", list->fn->name,
                         r->fn->name);
    pthread_mutex_lock(&list->lock);
    pk->list = list;
    if (!list->finalized)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the argument list is not finalized (aclrtKernelArgsFinalize)");
    size_t nph = 0;
    for (uint32_t i = 0; i < list->nparams; i++)
        nph += list->params[i].placeholder;
    aclError err = placeholders_room(api, pk, nph);
    for (uint32_t i = 0; i < list->nparams && !err; i++) {
        kernel_param *p = &list->params[i];
        if (!p->placeholder)
            continue;
        if (!p->data)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "placeholder parameter %u has no data "
                            "(aclrtKernelArgsGetPlaceHolderBuffer)",
                            i);
        pk->ph[pk->nph++] = (launch_placeholder){p->offset, p->data, p->data_size};
    }
    pk->args = list->buf;
    if (!err && list->user_mem) {
        /* The caller's memory (aclrtKernelArgsInitByUserMem), read as
         * host_bytes does: it may be gone since. */
        size_t total = list->used > list->user_data_used ? list->used : list->user_data_used;
        err = host_bytes(api, "the list's memory (userHostMem)", list->buf, total, &pk->buf,
                         pk->local, &pk->args);
        for (size_t i = 0; i < pk->nph && !err; i++)
            pk->ph[i].data = (const unsigned char *)pk->args +
                             ((const unsigned char *)pk->ph[i].data - list->buf);
    }
    if (!err)
        err = param_region(api, r->fn, list->used, &pk->size);
    return err;
}

/* An array of pointers to each parameter (aclrtLaunchKernelWithConfig's
 * args form): gathered into the layout the kernel's signature gives. */
static aclError pack_array(const char *api, const launch_request *r, packed_args *pk)
{
    acl_function *f = r->fn;
    if (!f->params_known) {
        aclError err = function_param(api, f, 0, NULL, NULL); /* raises why */
        return err ? err : ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    if (f->nparams && !r->array)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "args is NULL; kernel \"%s\" takes %u "
                         "parameters",
                         f->name, f->nparams);
    if (f->param_bytes > KERNEL_PARAMS_MAX)
        return params_too_large(api, "the parameters' size", f->param_bytes);
    aclError err = scratch_get(api, &pk->buf, pk->local, f->param_bytes);
    if (err)
        return err;
    unsigned char *out = pk->buf.p;
    memset(out, 0, f->param_bytes);
    /* The pointers, then what each points at, read as host_bytes does. */
    const void *pointers[KERNEL_MAX_PARAMS];
    size_t table = f->nparams * sizeof *pointers;
    if (probe_on_stack(r->array, table))
        memcpy(pointers, r->array, table);
    else if (!probe_copy(pointers, r->array, table))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "args %p: its %u pointers are not readable host memory",
                         (const void *)r->array, f->nparams);
    for (uint32_t i = 0; i < f->nparams; i++) {
        const void *from = pointers[i];
        if (!from)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "args[%u] is NULL", i);
        if (probe_on_stack(from, f->sizes[i]))
            memcpy(out + f->offsets[i], from, f->sizes[i]);
        else if (!probe_copy(out + f->offsets[i], from, f->sizes[i]))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "args[%u] %p: %u bytes there are not readable host memory", i, from,
                             f->sizes[i]);
    }
    pk->args = out;
    pk->size = f->param_bytes;
    return ACL_SUCCESS;
}

static aclError pack(const char *api, acl_stream *s, const launch_request *r, packed_args *pk)
{
    switch (r->args_kind) {
    case LAUNCH_ARGS_DEVICE:
        return pack_device(api, s, r, pk);
    case LAUNCH_ARGS_HOST:
        return pack_host(api, r, pk);
    case LAUNCH_ARGS_LIST:
        return pack_list(api, r, pk);
    case LAUNCH_ARGS_ARRAY:
        return pack_array(api, r, pk);
    }
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

/* The placeholders' data go to a staging buffer, after a copy of the
 * parameters that points at them (16-byte aligned each): host memory the
 * device reads through the same address, that stays until the launch has
 * run. pk's buffer becomes that copy. Raises. */
static aclError stage_placeholders(const char *api, packed_args *pk, staging **out)
{
    size_t at = (pk->size + 15) / 16 * 16, total = at;
    for (size_t i = 0; i < pk->nph; i++) {
        if (pk->ph[i].addr_offset + sizeof(void *) > pk->size)
            return acl_raise(api, ACL_ERROR_RT_PARAM_INVALID,
                             "placeholder %zu: its address (offset %zu) lies beyond the %zu bytes "
                             "of the kernel's parameters",
                             i, pk->ph[i].addr_offset, pk->size);
        total += (pk->ph[i].size + 15) / 16 * 16;
    }
    staging *b = staging_get(total);
    if (!b)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION,
                         "no page-locked memory for %zu bytes of placeholder data", total);
    unsigned char *base = b->data;
    if (pk->size)
        memcpy(base, pk->args, pk->size);
    for (size_t i = 0; i < pk->nph; i++) {
        const launch_placeholder *ph = &pk->ph[i];
        void *where = base + at;
        if (ph->size)
            memcpy(where, ph->data, ph->size);
        memcpy(base + ph->addr_offset, &where, sizeof where);
        at += (ph->size + 15) / 16 * 16;
    }
    pk->args = base;
    *out = b;
    return ACL_SUCCESS;
}

/* The staged data of a launch on s goes back once the launch has run:
 * after it in s's order, or with the model that recorded it; at once when
 * it was not queued (err). Should that fail, it stays out of the pool. */
static void staged_release(acl_stream *s, staging *b, aclError err)
{
    if (err)
        staging_done(b);
    else if (stream_sink(s))
        (void)sink_keep(s, b, staging_done);
    else
        (void)stream_submit(NULL, s,
                            &(task){.kind = TASK_HOST_FUNC, .u.host_func = {staging_done, b}});
}

/* What pk holds goes, once the launch of f on s was queued (err: how). */
static void packed_release(packed_args *pk, acl_stream *s, acl_function *f, aclError err)
{
    if (pk->held) {
        /* Its binary unloaded while this call waited outside its read
         * section, that unload may not have seen the launch (kernel.h). */
        if (!err && f->module && !object_live(&f->module->obj))
            module_fence_launch(s, f->module);
        object_release(&f->obj);
    }
    if (pk->list)
        pthread_mutex_unlock(&pk->list->lock);
    if (pk->ph != pk->ph_local)
        free(pk->ph);
    free(pk->buf.heap);
}

aclError kernel_launch(const char *api, acl_stream *s, const launch_request *r)
{
    acl_function *f = r->fn;
    if (f->phys != s->ctx->phys)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "kernel \"%s\" was loaded on another device than stream %d's", f->name,
                         (int)s->id);
    launch_shape sh;
    aclError err = shape_of(api, r, &sh);
    if (err)
        return err;
    packed_args pk;
    pk.args = NULL;
    pk.size = pk.nph = 0;
    pk.ph = pk.ph_local;
    pk.buf = (scratch){NULL, NULL};
    pk.list = NULL;
    pk.held = false;
    staging *staged = NULL;
    err = pack(api, s, r, &pk);
    if (!err && pk.nph)
        err = stage_placeholders(api, &pk, &staged);
    if (!err) {
        launch_params p = {
            .fn = f->bf,
            .grid = {r->grid[0], r->grid[1], r->grid[2]},
            .block = {sh.block[0], sh.block[1], sh.block[2]},
            .shared_bytes = (uint32_t)sh.shared,
            .cooperative = sh.cooperative,
            .args = pk.args,
            .args_size = pk.size,
        };
        err = stream_submit(api, s,
                            &(task){.kind = TASK_LAUNCH,
                                    .u.launch = {.params = &p,
                                                 .fn = handle_of(&f->obj),
                                                 .cfg = r->cfg,
                                                 .placeholders = staged != NULL}});
        if (staged)
            staged_release(s, staged, err);
    }
    packed_release(&pk, s, f, err);
    return err;
}
