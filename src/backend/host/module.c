/* The host backend's binaries: ELF shared objects of the machine we run on,
 * loaded with dlopen from an in-memory file (the bytes ACL hands over may
 * come from anywhere), their kernels exported C functions of
 * acl_cuda.h's aclcudaHostKernel type. Each symbol is checked to be a
 * function (or, for globals, an object) defined by the binary itself, not
 * by a library it depends on. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "backend/host/host.h"
#include "util/image.h"

enum { HOST_MAX_BLOCK_THREADS = 1024 };

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#else
#define HOST_MACHINE EM_NONE
#endif

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

struct backend_function {
    aclcudaHostKernel fn;
    const uint32_t *params; /* {count, sizes...}, or NULL */
    size_t code_size;
    struct backend_function *next;
};

struct backend_module {
    void *dl;
    /* The anonymous file dlopen read, open while loaded: the dynamic loader
     * knows objects by name, and /proc/self/fd/N names another binary once
     * N is reused. */
    int fd;
    void *image; /* our copy of the bytes: what aclrtBinaryGetDevAddress reports */
    size_t size;
    uintptr_t base;
    pthread_mutex_t lock;
    struct backend_function *functions;
};

/* What a binary is, when it is not one of ours. */
static const char *describe(const unsigned char *p, size_t size)
{
    if (size >= sizeof(Elf64_Ehdr) && memcmp(p, ELFMAG, SELFMAG) == 0) {
        Elf64_Ehdr header; /* the bytes may sit at any alignment */
        memcpy(&header, p, sizeof header);
        const Elf64_Ehdr *h = &header;
        if (h->e_ident[EI_CLASS] != ELFCLASS64)
            return "a 32-bit ELF object";
        if (h->e_machine == EM_CUDA)
            return "a CUDA cubin (it runs on the cuda backend)";
        if (h->e_machine != HOST_MACHINE)
            return "an ELF object for another machine (an Ascend kernel binary?)";
        if (h->e_type != ET_DYN)
            return "an ELF object that is not a shared object (link it with -shared)";
        return NULL;
    }
    if (size >= 4) {
        uint32_t magic;
        memcpy(&magic, p, sizeof magic);
        if (magic == FATBIN_MAGIC || magic == FATBIN_WRAPPER_MAGIC)
            return "a CUDA fatbin (it runs on the cuda backend)";
    }
    for (size_t i = 0; i + 8 < size && i < 4096; i++)
        if (memcmp(p + i, ".version", 8) == 0)
            return "PTX text (it runs on the cuda backend)";
    return "not an ELF object";
}

static aclError host_load(int32_t dev, const void *image, size_t size, bool lazy,
                          backend_module **out, const char **why)
{
    (void)dev;
    (void)lazy; /* nothing to place on a device */
    *why = describe(image, size);
    if (!*why)
        *why = host_elf_check(image, size);
    if (*why)
        return ACL_ERROR_INVALID_PARAM;
    backend_module *m = calloc(1, sizeof *m);
    if (!m || !(m->image = malloc(size))) {
        free(m);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    memcpy(m->image, image, size);
    m->size = size;
    /* dlopen needs a file: an anonymous one holds the bytes. Each load gets
     * its own, so one binary loaded twice is two modules, as in ACL. */
    int fd = memfd_create("acl-binary", MFD_CLOEXEC);
    aclError err = fd < 0 ? ACL_ERROR_RT_RESOURCE_ALLOC_FAIL : ACL_SUCCESS;
    const unsigned char *p = image;
    for (size_t done = 0; !err && done < size;) {
        ssize_t n = write(fd, p + done, size - done);
        if (n <= 0)
            err = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        else
            done += (size_t)n;
    }
    if (!err) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!m->dl) {
            *why = "a shared object that the dynamic loader refused (dlerror: unresolved "
                   "symbols or a missing library?)";
            err = ACL_ERROR_INVALID_PARAM;
        }
    }
    struct link_map *lm = NULL;
    if (!err && dlinfo(m->dl, RTLD_DI_LINKMAP, &lm) == 0 && lm)
        m->base = lm->l_addr;
    if (err) {
        if (fd >= 0)
            close(fd);
        free(m->image);
        free(m);
        return err;
    }
    m->fd = fd;
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return ACL_SUCCESS;
}

static void host_unload(backend_module *m)
{
    for (struct backend_function *f = m->functions, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    dlclose(m->dl);
    close(m->fd);
    pthread_mutex_destroy(&m->lock);
    free(m->image);
    free(m);
}

/* The symbol `name` defined by the object loaded at base, of ELF type
 * `type`; NULL when there is none. */
static void *own_symbol(void *dl, uintptr_t base, const char *name, int type, size_t *size)
{
    void *sym = dlsym(dl, name);
    if (!sym)
        return NULL;
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (!dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT) || !entry ||
        (uintptr_t)info.dli_fbase != base || info.dli_saddr != sym ||
        ELF64_ST_TYPE(entry->st_info) != type)
        return NULL;
    if (size)
        *size = entry->st_size;
    return sym;
}

/* The optional parameter sizes of kernel `name` (acl_cuda.h). */
static const uint32_t *kernel_params(void *dl, uintptr_t base, const char *name)
{
    size_t len = strlen(name), suffix = strlen(ACLCUDA_HOST_KERNEL_PARAMS_SUFFIX);
    char *full = malloc(len + suffix + 1);
    if (!full)
        return NULL;
    memcpy(full, name, len);
    memcpy(full + len, ACLCUDA_HOST_KERNEL_PARAMS_SUFFIX, suffix + 1);
    size_t size = 0;
    const uint32_t *p = own_symbol(dl, base, full, STT_OBJECT, &size);
    free(full);
    /* {count, sizes...}: the object must hold them all. */
    if (!p || size < sizeof *p || p[0] > 128 || size < (p[0] + 1) * sizeof *p)
        return NULL;
    for (uint32_t i = 1; i <= p[0]; i++)
        if (p[i] == 0)
            return NULL;
    return p;
}

static struct backend_function *host_function_new(aclcudaHostKernel fn, const uint32_t *params,
                                                  size_t code_size)
{
    struct backend_function *f = calloc(1, sizeof *f);
    if (f) {
        f->fn = fn;
        f->params = params;
        f->code_size = code_size;
    }
    return f;
}

static aclError host_function(backend_module *m, const char *name, backend_function **out)
{
    size_t size = 0;
    void *sym = own_symbol(m->dl, m->base, name, STT_FUNC, &size);
    if (!sym)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    aclcudaHostKernel fn;
    memcpy(&fn, &sym, sizeof fn);
    struct backend_function *f = host_function_new(fn, kernel_params(m->dl, m->base, name), size);
    if (!f)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    pthread_mutex_lock(&m->lock);
    f->next = m->functions;
    m->functions = f;
    pthread_mutex_unlock(&m->lock);
    *out = f;
    return ACL_SUCCESS;
}

static aclError host_global(backend_module *m, const char *name, void **dptr, size_t *size)
{
    void *sym = own_symbol(m->dl, m->base, name, STT_OBJECT, size);
    if (!sym)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    *dptr = sym;
    return ACL_SUCCESS;
}

static aclError host_image(backend_module *m, void **addr, size_t *size)
{
    *addr = m->image;
    *size = m->size;
    return ACL_SUCCESS;
}

static aclError host_code(backend_function *f, void **entry, size_t *size)
{
    memcpy(entry, &f->fn, sizeof f->fn);
    *size = f->code_size;
    return ACL_SUCCESS;
}

/* Parameters laid out as a C struct of them would be. */
static aclError host_param(backend_function *f, size_t index, size_t *offset, size_t *size)
{
    if (!f->params)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (index >= f->params[0])
        return ACL_ERROR_RT_PARAM_INVALID;
    size_t off = 0;
    for (size_t i = 0; i <= index; i++) {
        size_t sz = f->params[i + 1];
        size_t align = sz >= 8 ? 8 : sz >= 4 ? 4 : sz >= 2 ? 2 : 1;
        off = (off + align - 1) / align * align;
        if (i == index) {
            *offset = off;
            *size = sz;
        }
        off += sz;
    }
    return ACL_SUCCESS;
}

static aclError host_max_block_threads(backend_function *f, int32_t dev, uint32_t *threads)
{
    (void)f;
    (void)dev;
    *threads = HOST_MAX_BLOCK_THREADS; /* nominal: a block is one call */
    return ACL_SUCCESS;
}

static aclError host_max_dynamic_shared(backend_function *f, int32_t dev, size_t *bytes)
{
    (void)f;
    (void)dev;
    *bytes = 0; /* host kernels get no shared memory */
    return ACL_SUCCESS;
}

/* Functions found by symbol live for the process. */
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static struct backend_function *symbol_functions;

static aclError host_symbol_function(const void *symbol, int32_t dev, backend_function **out,
                                     const char **name)
{
    (void)dev;
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (!dladdr1(symbol, &info, (void **)&entry, RTLD_DL_SYMENT) || !entry ||
        info.dli_saddr != symbol || ELF64_ST_TYPE(entry->st_info) != STT_FUNC)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    *name = info.dli_sname;
    /* Its parameter sizes, from the object that defines it. */
    const uint32_t *params = NULL;
    void *dl = info.dli_fname ? dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!dl)
        dl = dlopen(NULL, RTLD_NOW);
    if (dl && info.dli_sname) {
        params = kernel_params(dl, (uintptr_t)info.dli_fbase, info.dli_sname);
        dlclose(dl);
    }
    aclcudaHostKernel fn;
    memcpy(&fn, &symbol, sizeof fn);
    struct backend_function *f = host_function_new(fn, params, entry->st_size);
    if (!f)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    pthread_mutex_lock(&symbols_lock);
    f->next = symbol_functions;
    symbol_functions = f;
    pthread_mutex_unlock(&symbols_lock);
    *out = f;
    return ACL_SUCCESS;
}

static aclError host_symbol_address(const void *symbol, int32_t dev, void **dptr, size_t *size)
{
    (void)dev;
    Dl_info info;
    const ElfW(Sym) *entry = NULL;
    if (!dladdr1(symbol, &info, (void **)&entry, RTLD_DL_SYMENT) || !entry ||
        info.dli_saddr != symbol || ELF64_ST_TYPE(entry->st_info) != STT_OBJECT)
        return ACL_ERROR_RT_SYMBOL_NOT_FOUND;
    *dptr = (void *)symbol; /* "device" memory is host memory here */
    *size = entry->st_size;
    return ACL_SUCCESS;
}

/* Called by launch.c: the kernel to run. */
host_kernel_fn host_function_entry(const backend_function *f)
{
    return f->fn;
}

const backend_module_ops host_module_ops = {
    .load = host_load,
    .unload = host_unload,
    .function = host_function,
    .global = host_global,
    .image = host_image,
    .code = host_code,
    .param = host_param,
    .max_block_threads = host_max_block_threads,
    .max_dynamic_shared = host_max_dynamic_shared,
    .symbol_function = host_symbol_function,
    .symbol_address = host_symbol_address,
};
