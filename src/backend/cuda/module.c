/* The cuda backend's binaries: what a CUDA user has (a cubin, a fatbin or
 * PTX, which the driver compiles), loaded with the driver's library API
 * (cuLibraryLoadData) reached through driver.h. A kernel is the CUfunction
 * of the library's kernel in the primary context of the device the binary
 * was loaded on. Kernels and variables of the application's own nvcc code
 * (aclrtGetFuncBySymbol, aclrtGetSymbolAddress) are found through the
 * application's CUDA runtime, which must be a shared library for the
 * dynamic linker to find it. */
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda.h"
#include "backend/cuda/driver.h"
#include "util/image.h"

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

struct backend_function {
    CUfunction func;
    int dev;
    _Atomic uint32_t shared_set; /* the dynamic shared memory limit raised so far */
    struct backend_function *next;
};

struct backend_module {
    CUlibrary lib;
    int dev;
    void *image; /* what was loaded (PTX with its terminator) */
    size_t size;
    pthread_mutex_t lock; /* functions, dev_image */
    struct backend_function *functions;
    void *dev_image; /* aclrtBinaryGetDevAddress: a copy in device memory */
};

struct CUfunc_st *cuda_function_handle(backend_function *f)
{
    return f->func;
}

/* Raises the kernel's dynamic shared memory limit to bytes when a launch
 * asks for more than CUDA's default 48 KiB. */
aclError cuda_function_allow_shared(backend_function *f, uint32_t bytes)
{
    if (bytes <= 48 * 1024 || bytes <= atomic_load_explicit(&f->shared_set, memory_order_relaxed))
        return ACL_SUCCESS;
    CUresult r = drv.cuFuncSetAttribute(f->func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        (int)bytes);
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    atomic_store_explicit(&f->shared_set, bytes, memory_order_relaxed);
    return ACL_SUCCESS;
}

static bool looks_like_ptx(const unsigned char *p, size_t size)
{
    bool version = false, target = false;
    for (size_t i = 0; i + 7 < size; i++) {
        if (p[i] == 0)
            return false; /* text has no NUL inside */
        if (!version && memcmp(p + i, ".version", 8) == 0)
            version = true;
        if (!target && i + 6 < size && memcmp(p + i, ".target", 7) == 0)
            target = true;
    }
    return version && target;
}

/* What the bytes are; NULL for a CUDA binary we can load. The driver is
 * given no size: it finds the extent of a cubin or fatbin from its headers,
 * so every structure they name must lie inside the bytes (util/image.h). */
static const char *cuda_classify(const unsigned char *p, size_t size, bool *ptx)
{
    *ptx = false;
    if (size >= SELFMAG && memcmp(p, ELFMAG, SELFMAG) == 0) {
        elf_image img;
        const char *why = elf_open(&img, p, size);
        if (why)
            return why;
        if (img.eh.e_machine == EM_CUDA)
            return NULL; /* a cubin */
        if (img.eh.e_machine == EM_X86_64 && img.eh.e_type == ET_DYN)
            return "a host shared object (it runs on the host backend)";
        return "an ELF object for another processor (an Ascend kernel binary?)";
    }
    if (size >= 4) {
        uint32_t magic = image_u32(p);
        if (magic == FATBIN_MAGIC || magic == FATBIN_WRAPPER_MAGIC)
            return fatbin_check(p, size);
    }
    if (looks_like_ptx(p, size)) {
        *ptx = true;
        return NULL;
    }
    return "neither ELF, a fatbin nor PTX text";
}

static aclError cuda_load(int32_t dev, const void *image, size_t size, bool lazy,
                          backend_module **out, const char **why)
{
    (void)lazy; /* CUDA_MODULE_LOADING decides when the driver loads code */
    bool ptx;
    *why = cuda_classify(image, size, &ptx);
    if (*why)
        return ACL_ERROR_INVALID_PARAM;
    if (!driver_ready() || !drv.cuLibraryLoadData) {
        *why = "the CUDA driver lacks the library API (CUDA 12.0 or later is needed)";
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    backend_module *m = calloc(1, sizeof *m);
    if (!m || !(m->image = malloc(size + 1))) {
        free(m);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    memcpy(m->image, image, size);
    ((char *)m->image)[size] = '\0'; /* PTX is a C string to the driver */
    m->size = size;
    m->dev = dev;
    aclError rc = use_device_checked(dev);
    CUresult r = CUDA_SUCCESS;
    if (!rc) {
        r = drv.cuLibraryLoadData(&m->lib, m->image, NULL, NULL, 0, NULL, NULL, 0);
        rc = from_cu(r);
    }
    if (rc) {
        switch (r) {
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_INVALID_SOURCE:
            *why = "a damaged CUDA binary (the driver refused the image)";
            rc = ACL_ERROR_INVALID_PARAM;
            break;
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
            *why = "a CUDA binary without code for this GPU (compile for its architecture, or "
                   "include PTX)";
            rc = ACL_ERROR_INVALID_PARAM;
            break;
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
            *why = "PTX that the driver cannot compile (invalid, or too new for it)";
            rc = ACL_ERROR_INVALID_PARAM;
            break;
        default:
            break;
        }
        free(m->image);
        free(m);
        return rc;
    }
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return ACL_SUCCESS;
}

static void cuda_unload(backend_module *m)
{
    for (backend_function *f = m->functions, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    if (m->dev_image && use_device_checked(m->dev) == ACL_SUCCESS)
        (void)check(cudaFree(m->dev_image));
    (void)drv.cuLibraryUnload(m->lib);
    pthread_mutex_destroy(&m->lock);
    free(m->image);
    free(m);
}

static aclError cuda_function(backend_module *m, const char *name, backend_function **out)
{
    CUkernel kernel;
    CUresult r = drv.cuLibraryGetKernel(&kernel, m->lib, name);
    if (r == CUDA_ERROR_NOT_FOUND || r == CUDA_ERROR_INVALID_VALUE)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    aclError rc = use_device_checked(m->dev);
    if (rc)
        return rc;
    backend_function *f = calloc(1, sizeof *f);
    if (!f)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    if ((r = drv.cuKernelGetFunction(&f->func, kernel)) != CUDA_SUCCESS) {
        free(f);
        return from_cu(r);
    }
    f->dev = m->dev;
    pthread_mutex_lock(&m->lock);
    f->next = m->functions;
    m->functions = f;
    pthread_mutex_unlock(&m->lock);
    *out = f;
    return ACL_SUCCESS;
}

static aclError cuda_global(backend_module *m, const char *name, void **dptr, size_t *size)
{
    aclError rc = use_device_checked(m->dev);
    if (rc)
        return rc;
    CUdeviceptr p;
    CUresult r = drv.cuLibraryGetGlobal(&p, size, m->lib, name);
    if (r == CUDA_ERROR_NOT_FOUND || r == CUDA_ERROR_INVALID_VALUE)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    *dptr = (void *)(uintptr_t)p;
    return ACL_SUCCESS;
}

static aclError cuda_image(backend_module *m, void **addr, size_t *size)
{
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&m->lock);
    if (!m->dev_image) {
        rc = use_device_checked(m->dev);
        void *p = NULL;
        if (!rc)
            rc = check(cudaMalloc(&p, m->size));
        if (!rc && (rc = check(cudaMemcpy(p, m->image, m->size, cudaMemcpyHostToDevice))))
            (void)check(cudaFree(p));
        else if (!rc)
            m->dev_image = p;
    }
    *addr = m->dev_image;
    *size = m->size;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* CUDA has no address or size for a kernel's code: the entry is the
 * CUfunction, which names it, and the size is unknown (0). */
static aclError cuda_code(backend_function *f, void **entry, size_t *size)
{
    *entry = (void *)f->func;
    *size = 0;
    return ACL_SUCCESS;
}

static aclError cuda_param(backend_function *f, size_t index, size_t *offset, size_t *size)
{
    if (!drv.cuFuncGetParamInfo)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* a driver before 12.4 */
    CUresult r = drv.cuFuncGetParamInfo(f->func, index, offset, size);
    if (r == CUDA_ERROR_INVALID_VALUE)
        return ACL_ERROR_RT_PARAM_INVALID; /* past the last parameter */
    return from_cu(r);
}

static aclError cuda_max_block_threads(backend_function *f, int32_t dev, uint32_t *threads)
{
    (void)dev;
    int v = 0;
    CUresult r = drv.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f->func);
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    *threads = v > 0 ? (uint32_t)v : 1;
    return ACL_SUCCESS;
}

static aclError cuda_max_dynamic_shared(backend_function *f, int32_t dev, size_t *bytes)
{
    int optin = 0, fixed = 0;
    CUresult r = drv.cuDeviceGetAttribute(
        &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, (CUdevice)dev);
    if (r == CUDA_SUCCESS)
        r = drv.cuFuncGetAttribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->func);
    if (r != CUDA_SUCCESS)
        return from_cu(r);
    *bytes = optin > fixed ? (size_t)(optin - fixed) : 0;
    return ACL_SUCCESS;
}

/* ---- the application's own kernels and variables ------------------------------------- */

typedef cudaError_t (*func_by_symbol_fn)(cudaFunction_t *func, const void *symbol);
typedef cudaError_t (*func_name_fn)(const char **name, const void *func);
typedef cudaError_t (*symbol_address_fn)(void **dev_ptr, const void *symbol);
typedef cudaError_t (*symbol_size_fn)(size_t *size, const void *symbol);

/* A function of the application's CUDA runtime (not ours: its symbols
 * are not exported). NULL when the application has none we can see. */
static void *app_runtime(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static backend_function *symbol_functions;

static aclError cuda_symbol_function(const void *symbol, int32_t dev, backend_function **out,
                                     const char **name)
{
    func_by_symbol_fn by_symbol;
    void *p = app_runtime("cudaGetFuncBySymbol");
    if (!p)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    memcpy(&by_symbol, &p, sizeof by_symbol);
    aclError rc = use_device_checked(dev);
    if (rc)
        return rc;
    cudaFunction_t func;
    if (by_symbol(&func, symbol) != cudaSuccess)
        return ACL_ERROR_RT_INVALID_DEVICE_FUNCTION;
    func_name_fn get_name;
    if ((p = app_runtime("cudaFuncGetName"))) {
        memcpy(&get_name, &p, sizeof get_name);
        if (get_name(name, symbol) != cudaSuccess)
            *name = NULL;
    }
    backend_function *f = calloc(1, sizeof *f);
    if (!f)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    f->func = (CUfunction)func;
    f->dev = dev;
    pthread_mutex_lock(&symbols_lock);
    f->next = symbol_functions;
    symbol_functions = f;
    pthread_mutex_unlock(&symbols_lock);
    *out = f;
    return ACL_SUCCESS;
}

static aclError cuda_symbol_address(const void *symbol, int32_t dev, void **dptr, size_t *size)
{
    symbol_address_fn address;
    symbol_size_fn get_size;
    void *a = app_runtime("cudaGetSymbolAddress"), *s = app_runtime("cudaGetSymbolSize");
    if (!a || !s)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    memcpy(&address, &a, sizeof address);
    memcpy(&get_size, &s, sizeof get_size);
    aclError rc = use_device_checked(dev);
    if (rc)
        return rc;
    if (address(dptr, symbol) != cudaSuccess || get_size(size, symbol) != cudaSuccess)
        return ACL_ERROR_RT_INVALID_SYMBOL;
    return ACL_SUCCESS;
}

const backend_module_ops cuda_module_ops = {
    .load = cuda_load,
    .unload = cuda_unload,
    .function = cuda_function,
    .global = cuda_global,
    .image = cuda_image,
    .code = cuda_code,
    .param = cuda_param,
    .max_block_threads = cuda_max_block_threads,
    .max_dynamic_shared = cuda_max_dynamic_shared,
    .symbol_function = cuda_symbol_function,
    .symbol_address = cuda_symbol_address,
};
