/* Binaries, functions and argument lists (kernel.h). Launches are in
 * launch.c. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_cuda.h"
#include "core/context.h"
#include "core/current.h"
#include "core/errors.h"
#include "core/exception.h"
#include "core/sink.h"
#include "core/kernel.h"
#include "core/memory.h"
#include "util/fork.h"
#include "util/log.h"
#include "util/probe.h"

/* Value of an unset block in acl_function.block_packed. */
#define BLOCK_UNSET 0
#define ALIGN8(n) (((n) + 7) / 8 * 8)

static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;

/* Kernels are an optional group of backend operations. */
static aclError require_modules(const char *api)
{
    if (backend()->module)
        return ACL_SUCCESS;
    return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "the %s backend cannot load binaries (no module operations)", backend()->name);
}

/* ---- binaries (aclrtBinary) ------------------------------------------------------------ */

static void binary_free(object *o)
{
    acl_binary *b = (acl_binary *)o;
    free(b->data);
    free(b);
}

/* A copy (malloc'd) of the size bytes of a binary the caller handed over
 * at data, read through a probe. Raises. */
static aclError caller_image_copy(const char *api, const void *data, size_t size, void **out)
{
    if (size == 0 || size > KERNEL_BINARY_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "length %zu: a binary takes 1 byte to 1 GiB (more is not a kernel binary)",
                         size);
    void *copy = malloc(size);
    if (!copy)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for %zu bytes",
                         size);
    if (!probe_copy(copy, data, size)) {
        free(copy);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "data %p: %zu bytes there are not readable host memory", data, size);
    }
    *out = copy;
    return ACL_SUCCESS;
}

aclrtBinary binary_create(const char *api, const void *data, size_t size)
{
    if (!data) {
        acl_raise(api, ACL_ERROR_INVALID_PARAM, "data is NULL");
        return NULL;
    }
    acl_binary *b = calloc(1, sizeof *b);
    if (!b) {
        acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return NULL;
    }
    void *copy;
    if (caller_image_copy(api, data, size, &copy)) {
        free(b);
        return NULL;
    }
    b->data = copy;
    b->size = size;
    if (handle_publish(&b->obj, HANDLE_BINARY, binary_free)) {
        binary_free(&b->obj);
        acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the handle table");
        return NULL;
    }
    return handle_of(&b->obj);
}

static aclError not_live(const char *api, const void *handle, const char *what)
{
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%p is not a live %s%s", handle, what,
                     handle_kind_of(handle) ? " (it is another kind of handle)" : "");
}

aclError binary_get(const char *api, aclrtBinary handle, acl_binary **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "binary is NULL");
    *out = (acl_binary *)handle_get(handle, HANDLE_BINARY);
    return *out ? ACL_SUCCESS : not_live(api, handle, "binary (from aclrtCreateBinary)");
}

aclError binary_destroy(const char *api, aclrtBinary handle)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "binary is NULL");
    object *o = handle_take(handle, HANDLE_BINARY);
    if (!o)
        return not_live(api, handle, "binary (from aclrtCreateBinary)");
    object_put(o);
    return ACL_SUCCESS;
}

/* ---- modules (aclrtBinHandle) ---------------------------------------------------------- */

static void module_free(object *o)
{
    acl_module *m = (acl_module *)o;
    module_registry_remove(m);
    for (size_t i = 0; i < m->nborrowed; i++)
        memory_unregister_borrowed(m->borrowed[i]);
    free(m->borrowed);
    backend()->module->unload(m->bm);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static aclError parse_load_options(const char *api, const aclrtBinaryLoadOptions *options,
                                   bool *lazy)
{
    *lazy = false;
    if (!options)
        return ACL_SUCCESS;
    if (options->numOpt && !options->options)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "options->options is NULL with numOpt %zu",
                         options->numOpt);
    for (size_t i = 0; i < options->numOpt; i++) {
        const aclrtBinaryLoadOption *o = &options->options[i];
        switch (o->type) {
        case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
            if (o->value.isLazyLoad > 1)
                return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                 "option %zu: isLazyLoad %u is neither 0 nor 1", i,
                                 o->value.isLazyLoad);
            *lazy = o->value.isLazyLoad == 1;
            break;
        case ACL_RT_BINARY_LOAD_OPT_MAGIC:
            /* The core type of an Ascend kernel: every CUDA SM (and CPU)
             * runs every kernel, so the value is checked and not needed. */
            if (o->value.magic != ACL_RT_BINARY_MAGIC_ELF_AICORE &&
                o->value.magic != ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE &&
                o->value.magic != ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE)
                return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                                 "option %zu: magic 0x%x is none of ACL_RT_BINARY_MAGIC_ELF_*", i,
                                 o->value.magic);
            break;
        case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
            return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "option %zu: AI CPU kernels (ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE) "
                             "do not exist on acl-cuda; load a CUDA binary, or a shared object on "
                             "the host backend",
                             i);
        default:
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "option %zu: unknown type %d", i,
                             (int)o->type);
        }
    }
    return ACL_SUCCESS;
}

/* What a backend accepts, for the message about a refused binary. */
static const char *accepted_binaries(void)
{
    return strcmp(backend()->name, "cuda") == 0
               ? "a cubin, a fatbin or PTX text (nvcc -cubin / -fatbin / -ptx)"
               : "an ELF shared object exporting host kernels (acl/acl_cuda.h)";
}

aclError module_load(const char *api, const void *image, size_t size, const char *path,
                     const aclrtBinaryLoadOptions *options, aclrtBinHandle *out)
{
    aclError err = require_modules(api);
    if (err)
        return err;
    bool lazy;
    if ((err = parse_load_options(api, options, &lazy)))
        return err;
    acl_context *ctx;
    if ((err = current_context_get(api, &ctx)))
        return err;
    int32_t phys = ctx->phys, device = ctx->device;
    context_put(ctx);

    acl_module *m = calloc(1, sizeof *m);
    if (!m)
        return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    const char *why = NULL;
    err = backend()->module->load(phys, image, size, lazy, &m->bm, &why);
    if (err) {
        free(m);
        const char *what = path ? path : "the binary";
        if (err == ACL_ERROR_INVALID_PARAM)
            return acl_raise(api, err,
                             "%s (%zu bytes) is %s, not a binary the %s backend runs: it "
                             "takes %s",
                             what, size, why ? why : "unrecognised", backend()->name,
                             accepted_binaries());
        return acl_raise(api, err, "loading %s (%zu bytes) on device %d failed%s%s: %s", what, size,
                         (int)device, why ? ": " : "", why ? why : "", acl_error_text(err));
    }
    m->phys = phys;
    m->device = device;
    m->lazy = lazy;
    pthread_mutex_init(&m->lock, NULL);
    list_init(&m->loaded_link);
    if ((err = handle_publish(&m->obj, HANDLE_MODULE, module_free))) {
        module_free(&m->obj);
        return acl_raise(api, err, "out of host memory for the handle table");
    }
    module_registry_add(m);
    *out = handle_of(&m->obj);
    return ACL_SUCCESS;
}

aclError module_load_caller_image(const char *api, const void *image, size_t size,
                                  const aclrtBinaryLoadOptions *options, aclrtBinHandle *out)
{
    void *copy;
    aclError err = caller_image_copy(api, image, size, &copy);
    if (err)
        return err;
    err = module_load(api, copy, size, NULL, options, out);
    free(copy);
    return err;
}

aclError module_get(const char *api, aclrtBinHandle handle, acl_module **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    *out = (acl_module *)handle_get(handle, HANDLE_MODULE);
    return *out ? ACL_SUCCESS : not_live(api, handle, "binary handle");
}

static void args_forget_user(acl_args *a);

/* Withdraws f's handle and those of its argument lists. The caller has f
 * borrowed or owns the list it sits in. f goes first, under its lock, under
 * which args_new links a list only to a live f: no list made meanwhile is
 * missed. */
static void function_withdraw(acl_function *f)
{
    pthread_mutex_lock(&f->lock);
    (void)object_take(&f->obj);
    for (acl_args *a = f->args; a; a = a->next) {
        args_forget_user(a);
        (void)object_take(&a->obj);
    }
    pthread_mutex_unlock(&f->lock);
}

aclError module_unload(const char *api, aclrtBinHandle handle)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    acl_module *m = (acl_module *)handle_get(handle, HANDLE_MODULE);
    if (m && !object_take_hold(&m->obj)) {
        module_put(m); /* another thread's unload took it first */
        m = NULL;
    }
    if (!m)
        return not_live(api, handle, "binary handle");
    /* Its functions and argument lists go with it; each function keeps the
     * module until the last call using it ended, and the work queued so
     * far keeps it until that work is done (kernel_keep.c). */
    pthread_mutex_lock(&m->lock);
    for (acl_function *f = m->functions; f; f = f->next)
        function_withdraw(f);
    pthread_mutex_unlock(&m->lock);
    (void)exception_binary_callback(m, m->phys, NULL, NULL);
    module_put(m);
    module_release_after_work(m);
    return ACL_SUCCESS;
}

/* ---- functions (aclrtFuncHandle) ------------------------------------------------------- */

static void args_free(object *o);

static void function_free(object *o)
{
    acl_function *f = (acl_function *)o;
    if (f->module)
        object_release(&f->module->obj);
    free(f->name);
    free(f->offsets);
    free(f->sizes);
    pthread_mutex_destroy(&f->lock);
    free(f);
}

/* Asks the backend for the kernel's parameters and largest block. */
static void function_describe(acl_function *f)
{
    const backend_module_ops *mo = backend()->module;
    uint32_t threads = 0;
    if (mo->max_block_threads(f->bf, f->phys, &threads) != ACL_SUCCESS || threads == 0)
        threads = 1024;
    f->default_threads =
        threads < ACLCUDA_DEFAULT_BLOCK_THREADS ? threads : ACLCUDA_DEFAULT_BLOCK_THREADS;
    uint32_t offsets[KERNEL_MAX_PARAMS], sizes[KERNEL_MAX_PARAMS];
    uint32_t n = 0;
    size_t bytes = 0;
    for (; n < KERNEL_MAX_PARAMS; n++) {
        size_t off, size;
        aclError err = mo->param(f->bf, n, &off, &size);
        if (err == ACL_ERROR_RT_PARAM_INVALID)
            break; /* past the last one */
        if (err != ACL_SUCCESS)
            return; /* the kernel does not describe its parameters */
        offsets[n] = (uint32_t)off;
        sizes[n] = (uint32_t)size;
        if (off + size > bytes)
            bytes = off + size;
    }
    if (n == KERNEL_MAX_PARAMS)
        return; /* more than ACL can append: treat as undescribed */
    f->offsets = malloc((n ? n : 1) * sizeof *f->offsets);
    f->sizes = malloc((n ? n : 1) * sizeof *f->sizes);
    if (!f->offsets || !f->sizes) {
        free(f->offsets);
        free(f->sizes);
        f->offsets = f->sizes = NULL;
        return;
    }
    if (n) {
        memcpy(f->offsets, offsets, n * sizeof *offsets);
        memcpy(f->sizes, sizes, n * sizeof *sizes);
    }
    f->nparams = n;
    f->param_bytes = bytes;
    f->params_known = true;
}

/* A new published function (borrowed by the caller) of module m, or of no
 * module (m NULL). Bare codes. */
static aclError function_new(acl_module *m, backend_function *bf, const char *name, int32_t phys,
                             acl_function **out)
{
    acl_function *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name))) {
        free(f);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    f->bf = bf;
    f->phys = phys;
    pthread_mutex_init(&f->lock, NULL);
    function_describe(f);
    if (m && !object_hold(&m->obj)) {
        f->module = NULL;
        function_free(&f->obj);
        return ACL_ERROR_INVALID_PARAM; /* unloaded meanwhile */
    }
    f->module = m;
    aclError err = handle_publish(&f->obj, HANDLE_FUNCTION, function_free);
    if (err) {
        function_free(&f->obj);
        return err;
    }
    borrow_begin();
    *out = f;
    return ACL_SUCCESS;
}

aclError module_function(const char *api, acl_module *m, const char *name, aclrtFuncHandle *out)
{
    if (!name)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kernelName is NULL");
    if (!*name || strlen(name) > KERNEL_NAME_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kernelName is %s",
                         *name ? "too long" : "empty");
    pthread_mutex_lock(&m->lock);
    /* The unload withdraws m before it walks m's functions under this lock. */
    if (!object_live(&m->obj)) {
        pthread_mutex_unlock(&m->lock);
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "the binary was unloaded");
    }
    for (acl_function *f = m->functions; f; f = f->next) {
        if (strcmp(f->name, name) == 0 && object_live(&f->obj)) {
            *out = handle_of(&f->obj);
            pthread_mutex_unlock(&m->lock);
            return ACL_SUCCESS;
        }
    }
    backend_function *bf;
    aclError err = backend()->module->function(m->bm, name, &bf);
    acl_function *f = NULL;
    if (!err)
        err = function_new(m, bf, name, m->phys, &f);
    if (!err) {
        f->next = m->functions;
        m->functions = f;
        *out = handle_of(&f->obj);
        function_put(f);
    }
    pthread_mutex_unlock(&m->lock);
    if (err == ACL_ERROR_RT_SYMBOL_NOT_FOUND)
        return acl_raise(api, err, "the binary has no kernel named \"%s\"", name);
    if (err)
        return acl_raise(api, err, "looking up kernel \"%s\" failed: %s", name,
                         acl_error_text(err));
    return ACL_SUCCESS;
}

aclError module_function_by_entry(const char *api, acl_module *m, uint64_t entry,
                                  aclrtFuncHandle *out)
{
    /* An entry is what aclrtGetFunctionAddr reports for a kernel of the
     * binary: the kernels looked up so far are searched. */
    pthread_mutex_lock(&m->lock);
    for (acl_function *f = m->functions; f; f = f->next) {
        void *addr;
        size_t size;
        if (object_live(&f->obj) && backend()->module->code(f->bf, &addr, &size) == ACL_SUCCESS &&
            (uint64_t)(uintptr_t)addr == entry) {
            *out = handle_of(&f->obj);
            pthread_mutex_unlock(&m->lock);
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return acl_raise(api, ACL_ERROR_RT_SYMBOL_NOT_FOUND,
                     "no kernel of the binary has entry 0x%llx (an entry is what "
                     "aclrtGetFunctionAddr reports for a kernel looked up by name)",
                     (unsigned long long)entry);
}

/* Registers memory of m's as device memory (for copies to see it). */
static void module_lend(acl_module *m, void *ptr, size_t size)
{
    pthread_mutex_lock(&m->lock);
    bool known = false;
    for (size_t i = 0; i < m->nborrowed && !known; i++)
        known = m->borrowed[i] == ptr;
    if (!known && m->nborrowed == m->borrowed_cap) {
        size_t cap = m->borrowed_cap ? 2 * m->borrowed_cap : 8;
        void **grown = realloc(m->borrowed, cap * sizeof *grown);
        if (grown) {
            m->borrowed = grown;
            m->borrowed_cap = cap;
        }
    }
    if (!known && m->nborrowed < m->borrowed_cap &&
        memory_register_borrowed(ptr, size, m->phys, m->device) == ACL_SUCCESS)
        m->borrowed[m->nborrowed++] = ptr;
    pthread_mutex_unlock(&m->lock);
}

aclError module_global(const char *api, acl_module *m, const char *name, void **dptr, size_t *size)
{
    if (!name)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "name is NULL");
    if (!dptr && !size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "dptr and size are both NULL");
    void *addr = NULL;
    size_t bytes = 0;
    aclError err = backend()->module->global(m->bm, name, &addr, &bytes);
    if (err == ACL_ERROR_RT_SYMBOL_NOT_FOUND)
        return acl_raise(api, err, "the binary has no global variable named \"%s\"", name);
    if (err)
        return acl_raise(api, err, "looking up global \"%s\" failed: %s", name,
                         acl_error_text(err));
    module_lend(m, addr, bytes);
    if (dptr)
        *dptr = addr;
    if (size)
        *size = bytes;
    return ACL_SUCCESS;
}

aclError module_image(const char *api, acl_module *m, void **addr, size_t *size)
{
    if (!addr || !size)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", addr ? "binSize" : "binAddr");
    aclError err = backend()->module->image(m->bm, addr, size);
    if (err)
        return acl_raise(api, err, "placing the binary in device memory failed: %s",
                         acl_error_text(err));
    module_lend(m, *addr, *size);
    if (m->lazy)
        *addr = NULL; /* ACL: a lazily loaded binary reports no device address */
    return ACL_SUCCESS;
}

/* Functions found by symbol, for the process lifetime. */
typedef struct symbol_entry {
    const void *symbol;
    int32_t phys;
    aclrtFuncHandle handle;
} symbol_entry;

static symbol_entry *symbol_table;
static size_t symbol_count, symbol_cap;

aclError function_get(const char *api, aclrtFuncHandle handle, acl_function **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
    *out = (acl_function *)handle_get(handle, HANDLE_FUNCTION);
    return *out ? ACL_SUCCESS : not_live(api, handle, "function handle");
}

/* The symbol's function on phys, published and cached. Bare codes. */
static aclError symbol_function(const void *symbol, int32_t phys, aclrtFuncHandle *out,
                                const char **name_out)
{
    pthread_mutex_lock(&symbols_lock);
    for (size_t i = 0; i < symbol_count; i++) {
        if (symbol_table[i].symbol == symbol && symbol_table[i].phys == phys) {
            *out = symbol_table[i].handle;
            pthread_mutex_unlock(&symbols_lock);
            return ACL_SUCCESS;
        }
    }
    backend_function *bf;
    const char *name = NULL;
    aclError err = backend()->module->symbol_function(symbol, phys, &bf, &name);
    if (name_out)
        *name_out = name;
    acl_function *f = NULL;
    if (!err && symbol_count == symbol_cap) {
        size_t cap = symbol_cap ? 2 * symbol_cap : 16;
        symbol_entry *grown = realloc(symbol_table, cap * sizeof *grown);
        if (!grown)
            err = ACL_ERROR_RT_MEMORY_ALLOCATION;
        else {
            symbol_table = grown;
            symbol_cap = cap;
        }
    }
    if (!err)
        err = function_new(NULL, bf, name ? name : "(symbol)", phys, &f);
    if (!err) {
        *out = handle_of(&f->obj);
        symbol_table[symbol_count++] = (symbol_entry){symbol, phys, *out};
        function_put(f);
    }
    pthread_mutex_unlock(&symbols_lock);
    return err;
}

static aclError current_phys(const char *api, int32_t *phys)
{
    acl_context *ctx;
    aclError err = current_context_get(api, &ctx);
    if (err)
        return err;
    *phys = ctx->phys;
    context_put(ctx);
    return ACL_SUCCESS;
}

static aclError symbol_failed(const char *api, const void *symbol, aclError err, const char *name)
{
    if (err == ACL_ERROR_RT_SYMBOL_NOT_FOUND || err == ACL_ERROR_RT_INVALID_DEVICE_FUNCTION)
        return acl_raise(api, err,
                         "%p is not a kernel acl-cuda can find%s%s: pass an aclrtFuncHandle, or "
                         "on the cuda backend a __global__ function of a program linked with "
                         "the shared CUDA runtime (nvcc -cudart shared), on the host backend an "
                         "exported host kernel (acl/acl_cuda.h)",
                         symbol, name ? " " : "", name ? name : "");
    return acl_raise(api, err, "looking up the kernel at %p failed: %s", symbol,
                     acl_error_text(err));
}

aclError function_by_symbol(const char *api, const void *symbol, aclrtFuncHandle *out)
{
    aclError err = require_modules(api);
    if (err)
        return err;
    if (!symbol)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "symbol is NULL");
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
    /* A function handle is its own symbol. */
    acl_function *f = (acl_function *)handle_get(symbol, HANDLE_FUNCTION);
    if (f) {
        *out = (aclrtFuncHandle)symbol;
        function_put(f);
        return ACL_SUCCESS;
    }
    int32_t phys;
    if ((err = current_phys(api, &phys)))
        return err;
    const char *name = NULL;
    err = symbol_function(symbol, phys, out, &name);
    return err ? symbol_failed(api, symbol, err, name) : ACL_SUCCESS;
}

aclError function_resolve(const char *api, const void *func, acl_function **out)
{
    if (!func)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "func is NULL");
    *out = (acl_function *)handle_get(func, HANDLE_FUNCTION);
    if (*out)
        return ACL_SUCCESS;
    aclError err = require_modules(api);
    if (err)
        return err;
    if (handle_kind_of(func))
        return not_live(api, func, "function handle or kernel symbol");
    int32_t phys;
    if ((err = current_phys(api, &phys)))
        return err;
    aclrtFuncHandle h;
    const char *name = NULL;
    if ((err = symbol_function(func, phys, &h, &name)))
        return symbol_failed(api, func, err, name);
    *out = (acl_function *)handle_get(h, HANDLE_FUNCTION);
    return *out ? ACL_SUCCESS : not_live(api, func, "function handle or kernel symbol");
}

aclError function_code(const char *api, acl_function *f, void **entry, size_t *size)
{
    aclError err = backend()->module->code(f->bf, entry, size);
    if (err)
        return acl_raise(api, err, "reading kernel \"%s\" failed: %s", f->name,
                         acl_error_text(err));
    return ACL_SUCCESS;
}

aclError function_attribute(const char *api, acl_function *f, aclrtFuncAttribute attr,
                            int64_t *value)
{
    switch (attr) {
    case ACL_FUNC_ATTR_KERNEL_TYPE:
        /* Every CUDA SM (and every CPU) runs the whole kernel: vector and
         * matrix units together, as a mixed Ascend kernel. */
        *value = ACL_KERNEL_TYPE_MIX;
        return ACL_SUCCESS;
    case ACL_FUNC_ATTR_KERNEL_RATIO:
        *value = 1; /* one kind of core */
        return ACL_SUCCESS;
    case ACL_FUNC_ATTR_KERNEL_SCHED_MODE:
        *value = 0; /* normal scheduling unless a launch asks for batch mode */
        return ACL_SUCCESS;
    }
    return acl_raise(api, ACL_ERROR_INVALID_PARAM, "unknown attribute %d of kernel \"%s\"",
                     (int)attr, f->name);
}

aclError function_param(const char *api, acl_function *f, size_t index, size_t *offset,
                        size_t *size)
{
    if (!f->params_known)
        return acl_raise(api, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "kernel \"%s\" does not describe its parameters%s", f->name,
                         strcmp(backend()->name, "host") == 0
                             ? " (export <kernel>" ACLCUDA_HOST_KERNEL_PARAMS_SUFFIX
                               ", see acl/acl_cuda.h)"
                             : " (the CUDA driver needs 12.4 or later)");
    if (index >= f->nparams) {
        if (offset == NULL && size == NULL)
            return ACL_SUCCESS;
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kernel \"%s\" has %u parameters, not %zu",
                         f->name, f->nparams, index + 1);
    }
    if (offset)
        *offset = f->offsets[index];
    if (size)
        *size = f->sizes[index];
    return ACL_SUCCESS;
}

aclError function_max_dynamic_shared(const char *api, acl_function *f, size_t *bytes)
{
    aclError err = backend()->module->max_dynamic_shared(f->bf, f->phys, bytes);
    if (err)
        return acl_raise(api, err, "reading kernel \"%s\" failed: %s", f->name,
                         acl_error_text(err));
    return ACL_SUCCESS;
}

void function_set_block(acl_function *f, uint32_t x, uint32_t y, uint32_t z, size_t shared)
{
    uint64_t packed =
        x ? (uint64_t)x | (uint64_t)y << 21 | (uint64_t)z << 42 : (uint64_t)BLOCK_UNSET;
    atomic_store_explicit(&f->block_packed, packed, memory_order_relaxed);
    atomic_store_explicit(&f->shared_bytes, shared, memory_order_relaxed);
}

void function_get_block(acl_function *f, uint32_t block[3], size_t *shared)
{
    uint64_t packed = atomic_load_explicit(&f->block_packed, memory_order_relaxed);
    if (packed == BLOCK_UNSET) {
        block[0] = f->default_threads;
        block[1] = block[2] = 1;
    } else {
        block[0] = (uint32_t)(packed & 0x1fffff);
        block[1] = (uint32_t)(packed >> 21 & 0x1fffff);
        block[2] = (uint32_t)(packed >> 42 & 0x1fffff);
    }
    *shared = atomic_load_explicit(&f->shared_bytes, memory_order_relaxed);
}

aclError symbol_address(const char *api, const void *symbol, void **dptr, size_t *size)
{
    aclError err = require_modules(api);
    if (err)
        return err;
    if (!symbol)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "symbol is NULL");
    int32_t phys;
    if ((err = current_phys(api, &phys)))
        return err;
    void *addr = NULL;
    size_t bytes = 0;
    err = backend()->module->symbol_address(symbol, phys, &addr, &bytes);
    if (err == ACL_ERROR_RT_SYMBOL_NOT_FOUND || err == ACL_ERROR_RT_INVALID_SYMBOL)
        return acl_raise(api, err,
                         "%p is not a device variable acl-cuda can find: on the cuda backend a "
                         "__device__ variable of a program linked with the shared CUDA runtime "
                         "(nvcc -cudart shared), on the host backend an exported variable",
                         symbol);
    if (err)
        return acl_raise(api, err, "looking up the variable at %p failed: %s", symbol,
                         acl_error_text(err));
    if (dptr)
        *dptr = addr;
    if (size)
        *size = bytes;
    return ACL_SUCCESS;
}

aclError symbol_copy(const char *api, acl_stream *s, const void *symbol, size_t offset, void *host,
                     size_t count, bool to_symbol, aclrtMemcpyKind kind)
{
    aclrtMemcpyKind direction = to_symbol ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST;
    if (kind != direction && kind != ACL_MEMCPY_DEFAULT)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kind %d: only %s and ACL_MEMCPY_DEFAULT",
                         (int)kind,
                         to_symbol ? "ACL_MEMCPY_HOST_TO_DEVICE" : "ACL_MEMCPY_DEVICE_TO_HOST");
    if (!host)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s is NULL", to_symbol ? "src" : "dst");
    void *addr;
    size_t size;
    aclError err = symbol_address(api, symbol, &addr, &size);
    if (err)
        return err;
    if (offset > size || count > size - offset)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "offset %zu + count %zu runs past the %zu-byte variable", offset, count,
                         size);
    mem_block b;
    memory_locate(host, &b);
    if (b.kind == MEM_DEVICE)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "%s %p is device memory, not host memory",
                         to_symbol ? "src" : "dst", host);
    if ((err = memory_check_extent(api, to_symbol ? "src" : "dst", host, count, &b)))
        return err;
    if (count == 0)
        return ACL_SUCCESS;
    char *var = (char *)addr + offset;
    void *dst = to_symbol ? (void *)var : host;
    const void *src = to_symbol ? (const void *)host : var;
    copy_dir dir = to_symbol ? COPY_HOST_TO_DEVICE : COPY_DEVICE_TO_HOST;
    bool pinned = b.kind == MEM_HOST_PINNED;
    if (!s) {
        if ((err = sink_check_unsafe(api, "a synchronous copy to or from a device variable")))
            return err;
        int32_t phys;
        if ((err = current_phys(api, &phys)))
            return err;
        err = backend()->memory->memcpy_sync(phys, dst, src, count, dir, to_symbol && pinned);
        if (err)
            return acl_raise(api, err, "copying %zu bytes %s the variable at %p failed: %s", count,
                             to_symbol ? "to" : "from", symbol, acl_error_text(err));
        return ACL_SUCCESS;
    }
    if (!pinned &&
        (err = sink_admit(api, s,
                          &(task){.kind = TASK_COPY,
                                  .flags = TASK_PAGEABLE,
                                  .u.copy = {.dst = dst, .src = src, .n = count, .dir = dir}})))
        return err;
    err = stream_submit(api, s,
                        &(task){.kind = TASK_COPY,
                                .flags = pinned ? 0 : TASK_PAGEABLE,
                                .u.copy = {.dst = dst, .src = src, .n = count, .dir = dir}});
    if (!err && !pinned && (err = stream_synchronize(s, -1)))
        return acl_raise(api, err, "waiting for the copy through pageable memory failed: %s",
                         acl_error_text(err));
    return err;
}

/* ---- argument lists (aclrtArgsHandle) --------------------------------------------------
 * Parameters are appended in order. Where the kernel describes its
 * parameters each one goes to its offset and must have its size; else it
 * goes to the next multiple of its alignment (its size, at most 8), as in a
 * C struct. A placeholder is a pointer parameter whose value the launch
 * fills with the address of a copy of its data. Lists made with
 * aclrtKernelArgsInitByUserMem live in the caller's memory: the
 * parameters first, the placeholder data after them. The handle of such a
 * list is the caller's handle memory, found through a tree here. */

static pthread_mutex_t user_args_lock = PTHREAD_MUTEX_INITIALIZER;
static range_tree user_args_tree;

static void args_free(object *o)
{
    acl_args *a = (acl_args *)o;
    if (!a->user_mem)
        free(a->buf);
    for (uint32_t i = 0; i < a->nparams; i++)
        if (!a->user_mem)
            free(a->params[i].data);
    pthread_mutex_destroy(&a->lock);
    object_release(&a->fn->obj);
    free(a);
}

static void args_forget_user(acl_args *a)
{
    if (!a->user_handle)
        return;
    pthread_mutex_lock(&user_args_lock);
    /* A newer list of the same handle memory may have taken its place. */
    if (range_tree_find(&user_args_tree, (uintptr_t)a->user_handle) == &a->user_node)
        range_tree_remove(&user_args_tree, &a->user_node);
    pthread_mutex_unlock(&user_args_lock);
}

size_t args_handle_mem_size(void)
{
    /* The caller's handle memory only names the list; nothing is kept in it. */
    return 64;
}

size_t args_mem_size(acl_function *f, size_t user_size)
{
    size_t need = user_size;
    if (f->params_known && f->param_bytes > need)
        need = f->param_bytes;
    return ALIGN8(need);
}

/* A new list of f, published and linked, borrowed by the caller. The list
 * holds f: a thread may still be in a call on it when f's binary is
 * unloaded. ACL_ERROR_INVALID_PARAM: it was unloaded meanwhile. */
static aclError args_new(acl_function *f, acl_args **out)
{
    if (!object_hold(&f->obj))
        return ACL_ERROR_INVALID_PARAM;
    acl_args *a = calloc(1, sizeof *a);
    if (!a) {
        object_release(&f->obj);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    a->fn = f;
    pthread_mutex_init(&a->lock, NULL);
    aclError err = handle_publish(&a->obj, HANDLE_ARGS, args_free);
    if (err) {
        args_free(&a->obj);
        return err;
    }
    /* Linked only to a live f: an unload withdraws f before it walks these
     * lists under this lock (function_withdraw). */
    pthread_mutex_lock(&f->lock);
    bool live = object_live(&f->obj);
    if (live) {
        a->next = f->args;
        f->args = a;
    }
    pthread_mutex_unlock(&f->lock);
    if (!live) {
        (void)object_take(&a->obj); /* frees it, with its hold on f */
        return ACL_ERROR_INVALID_PARAM;
    }
    borrow_begin();
    *out = a;
    return ACL_SUCCESS;
}

static aclError args_new_failed(const char *api, aclError err)
{
    return acl_raise(api, err,
                     err == ACL_ERROR_INVALID_PARAM ? "the kernel's binary was unloaded"
                                                    : "out of host memory");
}

aclError args_init(const char *api, acl_function *f, aclrtArgsHandle *out)
{
    acl_args *a;
    aclError err = args_new(f, &a);
    if (err)
        return args_new_failed(api, err);
    *out = handle_of(&a->obj);
    args_put(a);
    return ACL_SUCCESS;
}

/* A list whose handle memory named a newer list since: nothing reaches it
 * any more, so it goes (unlinked and withdrawn, and freed once no call
 * uses it), or initialising the same memory in a loop would grow without
 * end. The caller holds it (object_hold). */
static void args_replaced(acl_args *old)
{
    acl_function *f = old->fn;
    pthread_mutex_lock(&f->lock);
    for (acl_args **link = &f->args; *link; link = &(*link)->next)
        if (*link == old) {
            *link = old->next;
            break;
        }
    pthread_mutex_unlock(&f->lock);
    (void)object_take(&old->obj);
    object_release(&old->obj);
}

aclError args_init_user(const char *api, acl_function *f, void *handle_mem, void *mem, size_t size)
{
    if (!handle_mem)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    if (!mem)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "userHostMem is NULL");
    if (size == 0 || size > KERNEL_ARGS_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "actualArgsSize %zu: a list takes 1 byte to %d bytes of parameters and "
                         "placeholder data",
                         size, KERNEL_ARGS_MAX);
    /* The list writes and launches read this memory: it must be there. */
    if (!probe_on_stack(mem, size) && !probe_writable(mem, size))
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "userHostMem %p: %zu bytes there are not writable host memory", mem, size);
    if (f->params_known && size < f->param_bytes)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "kernel \"%s\" takes %zu bytes of parameters; actualArgsSize %zu is "
                         "less (aclrtKernelArgsGetMemSize says how much)",
                         f->name, f->param_bytes, size);
    acl_args *a;
    aclError err = args_new(f, &a);
    if (err)
        return args_new_failed(api, err);
    a->user_mem = true;
    a->buf = mem;
    a->capacity = size;
    a->user_handle = handle_mem;
    /* The same memory initialised again names the new list. A list in the
     * tree is live: an unload takes it out before it withdraws it, under
     * its function's lock, under which the new list goes in (unless the
     * unload withdrew it already). */
    acl_args *replaced = NULL;
    pthread_mutex_lock(&f->lock);
    if (!object_live(&a->obj)) {
        pthread_mutex_unlock(&f->lock);
        args_put(a);
        return args_new_failed(api, ACL_ERROR_INVALID_PARAM);
    }
    pthread_mutex_lock(&user_args_lock);
    range_node *held = range_tree_find(&user_args_tree, (uintptr_t)handle_mem);
    if (held) {
        acl_args *old = range_entry(held, acl_args, user_node);
        if (object_hold(&old->obj))
            replaced = old;
        range_tree_remove(&user_args_tree, held);
    }
    a->user_node.base = (uintptr_t)handle_mem;
    a->user_node.size = 1;
    (void)range_tree_insert(&user_args_tree, &a->user_node);
    pthread_mutex_unlock(&user_args_lock);
    pthread_mutex_unlock(&f->lock);
    if (replaced)
        args_replaced(replaced);
    args_put(a);
    return ACL_SUCCESS;
}

aclError args_get(const char *api, aclrtArgsHandle handle, acl_args **out)
{
    if (!handle)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    *out = (acl_args *)handle_get(handle, HANDLE_ARGS);
    if (*out)
        return ACL_SUCCESS;
    aclrtArgsHandle found = NULL;
    pthread_mutex_lock(&user_args_lock);
    range_node *n = range_tree_find(&user_args_tree, (uintptr_t)handle);
    if (n)
        found = handle_of(&range_entry(n, acl_args, user_node)->obj);
    pthread_mutex_unlock(&user_args_lock);
    if (found && (*out = (acl_args *)handle_get(found, HANDLE_ARGS)))
        return ACL_SUCCESS;
    return not_live(api, handle, "argument list");
}

static aclError param_handle_index(const char *api, acl_args *a, aclrtParamHandle param,
                                   uint32_t *index)
{
    uintptr_t v = (uintptr_t)param;
    if (v == 0 || v > a->nparams)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%p is not a parameter of this argument list (it has %u)", param,
                         a->nparams);
    *index = (uint32_t)(v - 1);
    return ACL_SUCCESS;
}

/* Where the next parameter (size bytes) goes; raises when it does not fit
 * the kernel. With a->lock held. */
static aclError next_param_slot(const char *api, acl_args *a, size_t size, uint32_t *offset)
{
    acl_function *f = a->fn;
    if (a->finalized)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "the argument list was finalized: parameters can be updated, not added");
    if (a->nparams == KERNEL_MAX_PARAMS)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "an argument list holds at most %d "
                         "parameters",
                         KERNEL_MAX_PARAMS);
    if (size == 0 || size > KERNEL_PARAMS_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "paramSize %zu: a parameter takes 1 to %d bytes (CUDA's limit on a "
                         "kernel's parameters)",
                         size, KERNEL_PARAMS_MAX);
    size_t off;
    if (f->params_known) {
        if (a->nparams >= f->nparams)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "kernel \"%s\" takes %u parameters",
                             f->name, f->nparams);
        if (f->sizes[a->nparams] != size)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "parameter %u of kernel \"%s\" is %u bytes, not %zu", a->nparams,
                             f->name, f->sizes[a->nparams], size);
        off = f->offsets[a->nparams];
    } else {
        size_t align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
        off = (a->used + align - 1) / align * align;
    }
    size_t end = off + size;
    if (end > KERNEL_PARAMS_MAX)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "parameter %u would end at byte %zu: a kernel takes at most %d bytes of "
                         "parameters (CUDA's limit)",
                         a->nparams, end, KERNEL_PARAMS_MAX);
    if (a->user_mem) {
        if (end > a->capacity)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "parameter %u needs %zu bytes of the list's memory; it has %zu",
                             a->nparams, end, a->capacity);
        /* Placeholder data lies after the parameters known so far: one more
         * would land on it (a described kernel's data lies after them all). */
        if (!f->params_known && a->user_data_used > 0)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "kernel \"%s\" does not describe its parameters: in the caller's "
                             "memory, append every parameter before asking for placeholder data",
                             f->name);
    } else if (end > a->capacity) {
        size_t cap = a->capacity ? a->capacity : 64;
        while (cap < end)
            cap *= 2;
        unsigned char *grown = realloc(a->buf, cap);
        if (!grown)
            return acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        memset(grown + a->capacity, 0, cap - a->capacity);
        a->buf = grown;
        a->capacity = cap;
    }
    *offset = (uint32_t)off;
    return ACL_SUCCESS;
}

static aclError unreadable_param(const char *api, const void *from, size_t size)
{
    return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                     "param %p: %zu bytes there are not readable host memory", from, size);
}

/* A parameter's value (size bytes at from, the caller's pointer) into the
 * list at offset, read so that a bad pointer is an error, not a fault
 * (util/probe.h); and written so, where the list lies in the caller's
 * memory (aclrtKernelArgsInitByUserMem), which may be gone since: through
 * a buffer of ours unless the value is on the caller's stack. Raises. */
static aclError write_param(const char *api, acl_args *a, size_t offset, const void *from,
                            size_t size)
{
    unsigned char *to = a->buf + offset;
    bool readable = probe_on_stack(from, size);
    if (!a->user_mem) {
        if (readable) {
            memcpy(to, from, size);
            return ACL_SUCCESS;
        }
        if (probe_copy(to, from, size))
            return ACL_SUCCESS;
        return unreadable_param(api, from, size);
    }
    unsigned char bounce[256];
    for (size_t done = 0; done < size;) {
        size_t n = readable ? size : size - done < sizeof bounce ? size - done : sizeof bounce;
        const unsigned char *chunk = (const unsigned char *)from + done;
        if (!readable && !probe_copy(bounce, chunk, n))
            return unreadable_param(api, from, size);
        if (!probe_write(to + done, readable ? chunk : bounce, n))
            return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                             "the list's memory (userHostMem) at %p is no longer writable host "
                             "memory",
                             (void *)to);
        done += n;
    }
    return ACL_SUCCESS;
}

static void param_added(acl_args *a, uint32_t offset, uint32_t size, bool placeholder,
                        aclrtParamHandle *out)
{
    a->params[a->nparams] =
        (kernel_param){.offset = offset, .size = size, .placeholder = placeholder};
    a->nparams++;
    if (offset + size > a->used)
        a->used = offset + size;
    *out = (aclrtParamHandle)(uintptr_t)a->nparams;
}

aclError args_append(const char *api, acl_args *a, const void *param, size_t size,
                     aclrtParamHandle *out)
{
    if (!param)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "param is NULL");
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "paramHandle is NULL");
    pthread_mutex_lock(&a->lock);
    uint32_t offset;
    aclError err = next_param_slot(api, a, size, &offset);
    if (!err && !(err = write_param(api, a, offset, param, size)))
        param_added(a, offset, (uint32_t)size, false, out);
    pthread_mutex_unlock(&a->lock);
    return err;
}

aclError args_append_placeholder(const char *api, acl_args *a, aclrtParamHandle *out)
{
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "paramHandle is NULL");
    pthread_mutex_lock(&a->lock);
    uint32_t offset;
    aclError err = next_param_slot(api, a, sizeof(void *), &offset);
    static const void *const no_data = NULL;
    if (!err && !(err = write_param(api, a, offset, &no_data, sizeof no_data)))
        param_added(a, offset, sizeof(void *), true, out);
    pthread_mutex_unlock(&a->lock);
    return err;
}

aclError args_placeholder_buffer(const char *api, acl_args *a, aclrtParamHandle param, size_t size,
                                 void **out)
{
    if (!out)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "bufferAddr is NULL");
    if (size == 0)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "dataSize is 0");
    pthread_mutex_lock(&a->lock);
    uint32_t i = 0;
    aclError err = param_handle_index(api, a, param, &i);
    kernel_param *p = err ? NULL : &a->params[i];
    if (p && !p->placeholder)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "parameter %u was appended with aclrtKernelArgsAppend, not as a "
                        "placeholder",
                        i);
    if (!err && p->data && p->data_size >= size) {
        *out = p->data; /* asked again: the same buffer */
    } else if (!err && a->user_mem) {
        /* After every parameter, in the caller's memory: after all the
         * kernel's where it describes them, appended or not yet. */
        size_t start = a->used > a->user_data_used ? a->used : a->user_data_used;
        if (a->fn->params_known && a->fn->param_bytes > start)
            start = a->fn->param_bytes;
        start = ALIGN8(start);
        if (start > a->capacity || size > a->capacity - start)
            err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "%zu bytes of placeholder data do not fit the list's memory (%zu "
                            "bytes, %zu used)",
                            size, a->capacity, start);
        else {
            p->data = a->buf + start;
            p->data_size = size;
            a->user_data_used = start + size;
            *out = p->data;
        }
    } else if (!err && size > KERNEL_ARGS_MAX) {
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "%zu bytes of placeholder data are more than a launch takes (%d MiB)", size,
                        KERNEL_ARGS_MAX >> 20);
    } else if (!err) {
        void *data = calloc(1, size);
        if (!data)
            err = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        else {
            free(p->data);
            p->data = data;
            p->data_size = size;
            *out = data;
        }
    }
    pthread_mutex_unlock(&a->lock);
    return err;
}

aclError args_update(const char *api, acl_args *a, aclrtParamHandle param, const void *value,
                     size_t size)
{
    if (!value)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM, "param is NULL");
    pthread_mutex_lock(&a->lock);
    uint32_t i = 0;
    aclError err = param_handle_index(api, a, param, &i);
    kernel_param *p = err ? NULL : &a->params[i];
    if (p && p->placeholder)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "parameter %u is a placeholder: write its data through "
                        "aclrtKernelArgsGetPlaceHolderBuffer",
                        i);
    else if (p && size != p->size)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM, "parameter %u is %u bytes, not %zu", i,
                        p->size, size);
    if (!err && !(err = write_param(api, a, p->offset, value, size)))
        a->finalized = false; /* ACL: finalize again after an update */
    pthread_mutex_unlock(&a->lock);
    return err;
}

aclError args_finalize(const char *api, acl_args *a)
{
    pthread_mutex_lock(&a->lock);
    aclError err = ACL_SUCCESS;
    acl_function *f = a->fn;
    if (f->params_known && a->nparams != f->nparams)
        err = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                        "kernel \"%s\" takes %u parameters; %u were appended", f->name, f->nparams,
                        a->nparams);
    else
        a->finalized = true;
    pthread_mutex_unlock(&a->lock);
    return err;
}

/* ---- fork --------------------------------------------------------------------------- */

static void fork_prepare(void)
{
    pthread_mutex_lock(&symbols_lock);
    pthread_mutex_lock(&user_args_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&user_args_lock);
    pthread_mutex_unlock(&symbols_lock);
}

__attribute__((constructor)) static void kernel_init(void)
{
    fork_register(FORK_RANK_KERNELS, fork_prepare, fork_done, fork_done);
}
