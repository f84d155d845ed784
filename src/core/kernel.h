/* Kernels: binaries (aclrtBinary, not loaded; aclrtBinHandle, loaded on a
 * device), their functions (aclrtFuncHandle) and argument lists
 * (aclrtArgsHandle), and the launch of a function on a stream.
 *
 * Ownership: a module owns its functions, a function its argument lists.
 * aclrtBinaryUnLoad withdraws all of them at once; a function holds a
 * counted reference to its module, so the backend module goes only when
 * the last call using one of its functions has ended. Functions found by
 * host symbol (aclrtGetFuncBySymbol) belong to no module and live for the
 * process.
 *
 * The launch shape. ACL's numBlocks is the CUDA grid (x); threads per
 * block and dynamic shared memory come from the launch (SIMT launches, or
 * the acl-cuda launch attribute and ACL's DYN_UBUF_SIZE), else from the
 * function (aclcudaFunctionSetBlockDim), else the default (acl_cuda.h).
 *
 * Arguments reach the backend as one packed host buffer, which it copies
 * (cuLaunchKernel's semantics): a device-memory argument buffer
 * (aclrtLaunchKernel, V2) is read when the launch is queued, after the
 * stream's earlier work (the stream is synchronised first when it has work
 * queued; during a capture it is read at once). Placeholder data is copied
 * with the launch to memory the kernel can read. */
#ifndef ACLCUDA_CORE_KERNEL_H
#define ACLCUDA_CORE_KERNEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "backend/backend.h"
#include "core/handle.h"
#include "core/stream.h"
#include "util/list.h"
#include "util/rangetree.h"

enum {
    KERNEL_MAX_PARAMS = 128, /* ACL's limit on appended parameters */
    /* Bytes of a kernel's parameters: CUDA's limit (CUDA 12.1 and later on
     * Volta and later; older drivers and GPUs refuse more than 4 KiB at the
     * launch). */
    KERNEL_PARAMS_MAX = 32764,
    /* Bytes of an argument buffer with its placeholder data (acl-cuda's
     * limit; CANN names none). */
    KERNEL_ARGS_MAX = 16 << 20,
    KERNEL_GRID_MAX = 0x7fffffff, /* CUDA's grid.x limit, 2^31 - 1 */
    KERNEL_NAME_MAX = 1024,
};

typedef struct acl_module acl_module;
typedef struct acl_function acl_function;

typedef struct acl_binary {
    object obj;
    void *data;
    size_t size;
} acl_binary;

struct acl_module {
    object obj;
    int32_t device, phys;
    backend_module *bm;
    bool lazy;
    pthread_mutex_t lock; /* functions, borrowed */
    acl_function *functions;
    /* Its globals and device image, registered as device memory. */
    void **borrowed;
    size_t nborrowed, borrowed_cap;
    list_node loaded_link; /* among the loaded modules (kernel_keep.c) */
};

struct acl_function {
    object obj;
    acl_module *module; /* a counted reference; NULL when found by symbol */
    acl_function *next; /* in module->functions, under its lock */
    backend_function *bf;
    char *name;
    int32_t phys;
    /* The parameter layout, when the kernel describes it. */
    bool params_known;
    uint32_t nparams;
    uint32_t *offsets, *sizes;
    size_t param_bytes;
    uint32_t default_threads; /* the default block: min(256, the kernel's maximum) */
    /* aclcudaFunctionSetBlockDim: x | y << 21 | z << 42, 0 = unset. */
    _Atomic uint64_t block_packed;
    _Atomic uint64_t shared_bytes;
    pthread_mutex_t lock; /* args */
    struct acl_args *args;
};

/* One appended parameter of an argument list. */
typedef struct kernel_param {
    uint32_t offset, size;
    bool placeholder;
    void *data; /* the placeholder's host buffer, NULL until asked for */
    size_t data_size;
} kernel_param;

typedef struct acl_args {
    object obj;
    acl_function *fn; /* its owner */
    struct acl_args *next;
    void *user_handle;    /* aclrtKernelArgsInitByUserMem: the caller's handle memory */
    range_node user_node; /* in the tree of user handles, one byte at user_handle */
    pthread_mutex_t lock;
    unsigned char *buf; /* the packed parameters */
    size_t used, capacity;
    bool user_mem; /* buf is the caller's; placeholder data lives after the parameters */
    size_t user_data_used;
    bool finalized;
    uint32_t nparams;
    kernel_param params[KERNEL_MAX_PARAMS];
} acl_args;

/* ---- binaries ---- */

/* A kernel binary is at most this large (more is not one); what a caller
 * hands over is read through a probe (util/probe.h): unreadable bytes
 * are refused, never a fault. */
enum { KERNEL_BINARY_MAX = 1 << 30 };

aclrtBinary binary_create(const char *api, const void *data, size_t size);
aclError binary_destroy(const char *api, aclrtBinary handle);
aclError binary_get(const char *api, aclrtBinary handle, acl_binary **out);

/* Loads image on the current context's device. Raises. path names the
 * file for messages (or NULL). */
aclError module_load(const char *api, const void *image, size_t size, const char *path,
                     const aclrtBinaryLoadOptions *options, aclrtBinHandle *out);
/* module_load of memory the caller handed over: copied through a probe
 * first, so that the checks and the load read bytes known to be there. */
aclError module_load_caller_image(const char *api, const void *image, size_t size,
                                  const aclrtBinaryLoadOptions *options, aclrtBinHandle *out);
aclError module_get(const char *api, aclrtBinHandle handle, acl_module **out);
static inline void module_put(acl_module *m)
{
    object_put(&m->obj);
}
aclError module_unload(const char *api, aclrtBinHandle handle);
aclError module_function(const char *api, acl_module *m, const char *name, aclrtFuncHandle *out);
aclError module_function_by_entry(const char *api, acl_module *m, uint64_t entry,
                                  aclrtFuncHandle *out);
aclError module_global(const char *api, acl_module *m, const char *name, void **dptr, size_t *size);
aclError module_image(const char *api, acl_module *m, void **addr, size_t *size);

/* ---- functions ---- */

/* The function behind a handle; func_resolve also takes a host symbol
 * (the `void *func` of the ArgsArray and SIMT launches). Borrowed
 * (function_put). Raise. */
aclError function_get(const char *api, aclrtFuncHandle handle, acl_function **out);
aclError function_resolve(const char *api, const void *func, acl_function **out);
static inline void function_put(acl_function *f)
{
    object_put(&f->obj);
}
aclError function_by_symbol(const char *api, const void *symbol, aclrtFuncHandle *out);
aclError function_code(const char *api, acl_function *f, void **entry, size_t *size);
aclError function_attribute(const char *api, acl_function *f, aclrtFuncAttribute attr,
                            int64_t *value);
aclError function_param(const char *api, acl_function *f, size_t index, size_t *offset,
                        size_t *size);
aclError function_max_dynamic_shared(const char *api, acl_function *f, size_t *bytes);
void function_set_block(acl_function *f, uint32_t x, uint32_t y, uint32_t z, size_t shared);
void function_get_block(acl_function *f, uint32_t block[3], size_t *shared);
aclError symbol_address(const char *api, const void *symbol, void **dptr, size_t *size);
/* aclrtMemcpyTo/FromSymbol(Async): count bytes between host memory and the
 * device variable at offset; s NULL for the synchronous ones. Raises. */
aclError symbol_copy(const char *api, acl_stream *s, const void *symbol, size_t offset, void *host,
                     size_t count, bool to_symbol, aclrtMemcpyKind kind);

/* ---- argument lists ---- */

aclError args_init(const char *api, acl_function *f, aclrtArgsHandle *out);
aclError args_init_user(const char *api, acl_function *f, void *handle_mem, void *mem, size_t size);
aclError args_get(const char *api, aclrtArgsHandle handle, acl_args **out);
static inline void args_put(acl_args *a)
{
    object_put(&a->obj);
}
size_t args_handle_mem_size(void);
size_t args_mem_size(acl_function *f, size_t user_size);
aclError args_append(const char *api, acl_args *a, const void *param, size_t size,
                     aclrtParamHandle *out);
aclError args_append_placeholder(const char *api, acl_args *a, aclrtParamHandle *out);
aclError args_placeholder_buffer(const char *api, acl_args *a, aclrtParamHandle param, size_t size,
                                 void **out);
aclError args_update(const char *api, acl_args *a, aclrtParamHandle param, const void *value,
                     size_t size);
aclError args_finalize(const char *api, acl_args *a);

/* ---- keeping binaries (kernel_keep.c) ----
 * A module's code stays loaded while work that runs it may run: launches
 * queued or running, the models that captured its kernels (or were given
 * one by a task update) and their replays. A launch holds nothing (a
 * reference per launch would cost every launch). Instead, the unload's
 * reference is released only once every stream of the module's device has
 * completed the work queued before it: at once for streams known idle,
 * else by a host function queued on each busy stream (a fence), and a
 * stream destroyed with work queued fences every module of its device
 * likewise. A model holds the modules of its kernels until it is
 * destroyed, then releases them the same way. Where no fence can be queued
 * (a busy stream being captured, or fed only by the device; out of
 * memory) the module stays until its device is reset or ACL finalized. */

void module_registry_add(acl_module *m);
void module_registry_remove(acl_module *m);
/* Releases the caller's counted reference to m as above. */
void module_release_after_work(acl_module *m);
/* A launch on s whose call left its read section (to wait for the stream)
 * found m withdrawn meanwhile: m stays until s completed its work. */
void module_fence_launch(acl_stream *s, acl_module *m);
/* The model (its handle) holds the module of fn until
 * module_release_for_model; nothing for a function found by symbol. */
void module_keep_for_model(const void *model, aclrtFuncHandle fn);
void module_release_for_model(const void *model);

/* ---- launches ---- */

typedef enum launch_args_kind {
    LAUNCH_ARGS_DEVICE, /* aclrtLaunchKernel(V2): the buffer may be device memory */
    LAUNCH_ARGS_HOST,   /* a host buffer, placeholders given as aclrtPlaceHolderInfo */
    LAUNCH_ARGS_LIST,   /* an aclrtArgsHandle */
    LAUNCH_ARGS_ARRAY,  /* one pointer per parameter */
} launch_args_kind;

typedef struct launch_request {
    acl_function *fn;
    uint32_t grid[3];
    bool simt; /* block and shared below come from the call */
    uint32_t block[3];
    size_t shared;
    const aclrtLaunchKernelCfg *cfg;
    launch_args_kind args_kind;
    const void *args;
    size_t args_size;
    const aclrtPlaceHolderInfo *placeholders;
    size_t placeholder_count;
    acl_args *list;
    void *const *array;
} launch_request;

/* The block, dynamic shared memory and scheduling of a launch of f with
 * cfg (ACL's launch attributes), as kernel_launch works them out. Raises. */
aclError kernel_launch_shape(const char *api, acl_function *f, const aclrtLaunchKernelCfg *cfg,
                             uint32_t block[3], uint32_t *shared, bool *cooperative);
/* Checks and queues a launch on s. Raises. */
aclError kernel_launch(const char *api, acl_stream *s, const launch_request *r);

#endif
