/* Kernels (acl_rt.h): binaries, functions, argument lists, launches,
 * device variables, the built-in reduce and random-number tasks, the
 * operator execution timeouts and the architecture check; acl-cuda's
 * launch shape (acl_cuda.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "api/api.h"
#include "core/builtin.h"
#include "core/current.h"
#include "core/device.h"
#include "core/exception.h"
#include "core/graph.h"
#include "core/kernel.h"

/* ---- operator execution timeouts --------------------------------------------------
 * Ascend aborts operators that run too long. No operator runs on acl-cuda's
 * streams, so the setting is kept and reported back, nothing more. The
 * timeout is counted in intervals of OP_TIMEOUT_INTERVAL_US, 1 to 254. */

enum { OP_TIMEOUT_INTERVAL_US = 1000, OP_TIMEOUT_MAX_INTERVALS = 254 };
static _Atomic uint64_t op_timeout_us;

static uint64_t clamp_op_timeout(uint64_t us)
{
    const uint64_t max = (uint64_t)OP_TIMEOUT_INTERVAL_US * OP_TIMEOUT_MAX_INTERVALS;
    if (us == 0 || us > max)
        return max; /* 0 asks for the longest timeout */
    return (us + OP_TIMEOUT_INTERVAL_US - 1) / OP_TIMEOUT_INTERVAL_US * OP_TIMEOUT_INTERVAL_US;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    PROF_API();
    atomic_store(&op_timeout_us, clamp_op_timeout((uint64_t)timeout * 1000000));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    PROF_API();
    atomic_store(&op_timeout_us, clamp_op_timeout((uint64_t)timeout * 1000));
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    PROF_API();
    if (!actualTimeout)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "actualTimeout is NULL");
    uint64_t us = clamp_op_timeout(timeout);
    atomic_store(&op_timeout_us, us);
    *actualTimeout = us;
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    PROF_API();
    if (!timeoutMs)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "timeoutMs is NULL");
    uint64_t us = atomic_load(&op_timeout_us);
    *timeoutMs = (uint32_t)((us ? us : clamp_op_timeout(0)) / 1000);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    PROF_API();
    if (!interval)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "interval is NULL");
    *interval = OP_TIMEOUT_INTERVAL_US;
    return ACL_SUCCESS;
}

/* ---- binaries -------------------------------------------------------------------- */

ACL_EXPORT aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
    PROF_API();
    return binary_create(__func__, data, dataLen);
}

ACL_EXPORT aclError aclrtDestroyBinary(aclrtBinary binary)
{
    PROF_API();
    return binary_destroy(__func__, binary);
}

ACL_EXPORT aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
    PROF_API();
    if (!binHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    acl_binary *b;
    aclError err = binary_get(__func__, binary, &b);
    if (err)
        return err;
    err = module_load(__func__, b->data, b->size, NULL, NULL, binHandle);
    object_put(&b->obj);
    return err;
}

ACL_EXPORT aclError aclrtBinaryLoadFromData(const void *data, size_t length,
                                            const aclrtBinaryLoadOptions *options,
                                            aclrtBinHandle *binHandle)
{
    PROF_API();
    if (!data)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "data is NULL");
    if (length == 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "length is 0");
    if (!binHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    return module_load_caller_image(__func__, data, length, options, binHandle);
}

/* Reads size bytes of fd into a new buffer; NULL (errno set) when it
 * cannot, or the file ends sooner (errno 0). */
static void *read_whole(int fd, size_t size)
{
    unsigned char *data = malloc(size);
    for (size_t done = 0; data && done < size;) {
        ssize_t n = read(fd, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            free(data);
            return NULL;
        }
        done += (size_t)n;
    }
    return data;
}

ACL_EXPORT aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                            aclrtBinHandle *binHandle)
{
    PROF_API();
    if (!binPath)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "binPath is NULL");
    if (!binHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    /* Without blocking: opening a FIFO (or a device) for reading may wait
     * for a writer forever. Only a regular file is read. */
    int fd = open(binPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return ACL_RAISE(ACL_ERROR_INVALID_FILE, "cannot open %s: %s", binPath, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        st.st_size > KERNEL_BINARY_MAX) {
        close(fd);
        return ACL_RAISE(ACL_ERROR_INVALID_FILE,
                         "%s is not a regular file of 1 byte to 1 GiB (a directory, FIFO, device "
                         "or socket is not a binary)",
                         binPath);
    }
    size_t size = (size_t)st.st_size;
    void *data = read_whole(fd, size);
    int read_errno = errno;
    close(fd);
    if (!data && read_errno == ENOMEM)
        return ACL_RAISE(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for %zu bytes", size);
    if (!data)
        return ACL_RAISE(ACL_ERROR_INVALID_FILE, "reading %s (%zu bytes) failed: %s", binPath, size,
                         read_errno ? strerror(read_errno) : "it ended sooner");
    aclError err = module_load(__func__, data, size, binPath, options, binHandle);
    free(data);
    return err;
}

ACL_EXPORT aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    PROF_API();
    return module_unload(__func__, binHandle);
}

/* CUDA reports a fault for the whole context, not for the kernel that
 * caused it: the callback of every binary loaded on the faulting device
 * is called (exception.h), with the info the other exception callbacks
 * get. */
ACL_EXPORT aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle,
                                                    aclrtOpExceptionCallback callback,
                                                    void *userData)
{
    PROF_API();
    if (!callback)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "callback is NULL");
    acl_module *m;
    aclError err = module_get(__func__, binHandle, &m);
    if (err)
        return err;
    err = exception_binary_callback(m, m->phys, callback, userData);
    module_put(m);
    return err ? ACL_RAISE(err, "out of host memory") : ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr,
                                             size_t *binSize)
{
    PROF_API();
    acl_module *m;
    aclError err = module_get(__func__, binHandle, &m);
    if (err)
        return err;
    err = module_image(__func__, m, binAddr, binSize);
    module_put(m);
    return err;
}

ACL_EXPORT aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr,
                                         size_t *size)
{
    PROF_API();
    acl_module *m;
    aclError err = module_get(__func__, binHandle, &m);
    if (err)
        return err;
    err = module_global(__func__, m, name, dptr, size);
    module_put(m);
    return err;
}

ACL_EXPORT aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                           aclrtFuncHandle *funcHandle)
{
    PROF_API();
    if (!funcHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
    acl_module *m;
    aclError err = module_get(__func__, binHandle, &m);
    if (err)
        return err;
    err = module_function(__func__, m, kernelName, funcHandle);
    module_put(m);
    return err;
}

ACL_EXPORT aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle, uint64_t funcEntry,
                                                  aclrtFuncHandle *funcHandle)
{
    PROF_API();
    if (!funcHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "funcHandle is NULL");
    acl_module *m;
    aclError err = module_get(__func__, binHandle, &m);
    if (err)
        return err;
    err = module_function_by_entry(__func__, m, funcEntry, funcHandle);
    module_put(m);
    return err;
}

ACL_EXPORT aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle)
{
    PROF_API();
    return function_by_symbol(__func__, symbol, funcHandle);
}

/* ---- functions ----------------------------------------------------------------------- */

ACL_EXPORT aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle,
                                           aclrtBinHandle *binHandle)
{
    PROF_API();
    if (!binHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    if (f->module)
        *binHandle = handle_of(&f->module->obj);
    else
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "kernel \"%s\" was found by symbol (aclrtGetFuncBySymbol): it belongs to "
                        "no binary handle",
                        f->name);
    function_put(f);
    return err;
}

/* The entry and code size of one kind of core: CUDA and the host have one,
 * reported as the cube (AI core) side; the vector side is empty. */
ACL_EXPORT aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
    PROF_API();
    if (!aicAddr || !aivAddr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", aicAddr ? "aivAddr" : "aicAddr");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    size_t size;
    err = function_code(__func__, f, aicAddr, &size);
    if (!err)
        *aivAddr = NULL;
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize,
                                         size_t *aivSize)
{
    PROF_API();
    if (!aicSize || !aivSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL", aicSize ? "aivSize" : "aicSize");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    void *entry;
    err = function_code(__func__, f, &entry, aicSize);
    if (!err)
        *aivSize = 0;
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
    PROF_API();
    if (!name)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "name is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    size_t len = strlen(f->name);
    if (maxLen <= len)
        err = ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                        "kernel \"%s\" needs %zu bytes with its terminator; maxLen is %u", f->name,
                        len + 1, maxLen);
    else
        memcpy(name, f->name, len + 1);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle,
                                              aclrtFuncAttribute attrType, int64_t *attrValue)
{
    PROF_API();
    if (!attrValue)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "attrValue is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    err = function_attribute(__func__, f, attrType, attrValue);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount)
{
    PROF_API();
    if (!paramCount)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "paramCount is NULL");
    acl_function *f;
    aclError err = function_resolve(__func__, func, &f);
    if (err)
        return err;
    err = function_param(__func__, f, SIZE_MAX, NULL, NULL);
    if (!err)
        *paramCount = f->nparams;
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex,
                                              size_t *paramOffset, size_t *paramSize)
{
    PROF_API();
    if (!paramOffset || !paramSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                         paramOffset ? "paramSize" : "paramOffset");
    acl_function *f;
    aclError err = function_resolve(__func__, func, &f);
    if (err)
        return err;
    err = function_param(__func__, f, paramIndex, paramOffset, paramSize);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtFunctionGetAvailDynUbufPerBlock(void *func, uint32_t flags,
                                                         size_t *dynamicUbufSize)
{
    PROF_API();
    if (!dynamicUbufSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dynamicUbufSize is NULL");
    if (flags != 0)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "flags 0x%x: must be 0", flags);
    acl_function *f;
    aclError err = function_resolve(__func__, func, &f);
    if (err)
        return err;
    err = function_max_dynamic_shared(__func__, f, dynamicUbufSize);
    function_put(f);
    return err;
}

/* ---- argument lists -------------------------------------------------------------------- */

ACL_EXPORT aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize)
{
    PROF_API();
    if (!memSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "memSize is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    *memSize = args_handle_mem_size();
    function_put(f);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize,
                                              size_t *actualArgsSize)
{
    PROF_API();
    if (!actualArgsSize)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "actualArgsSize is NULL");
    if (userArgsSize > KERNEL_ARGS_MAX)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM,
                         "userArgsSize %zu: a list takes at most %d bytes of parameters and "
                         "placeholder data",
                         userArgsSize, KERNEL_ARGS_MAX);
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    *actualArgsSize = args_mem_size(f, userArgsSize);
    function_put(f);
    return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    PROF_API();
    if (!argsHandle)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    err = args_init(__func__, f, argsHandle);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle,
                                                 aclrtArgsHandle argsHandle, void *userHostMem,
                                                 size_t actualArgsSize)
{
    PROF_API();
    acl_function *f;
    aclError err = function_get(__func__, funcHandle, &f);
    if (err)
        return err;
    err = args_init_user(__func__, f, argsHandle, userHostMem, actualArgsSize);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                          aclrtParamHandle *paramHandle)
{
    PROF_API();
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    err = args_append(__func__, a, param, paramSize, paramHandle);
    args_put(a);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
                                                     aclrtParamHandle *paramHandle)
{
    PROF_API();
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    err = args_append_placeholder(__func__, a, paramHandle);
    args_put(a);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                                        aclrtParamHandle paramHandle,
                                                        size_t dataSize, void **bufferAddr)
{
    PROF_API();
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    err = args_placeholder_buffer(__func__, a, paramHandle, dataSize, bufferAddr);
    args_put(a);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle,
                                              aclrtParamHandle paramHandle, void *param,
                                              size_t paramSize)
{
    PROF_API();
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    err = args_update(__func__, a, paramHandle, param, paramSize);
    args_put(a);
    return err;
}

ACL_EXPORT aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    PROF_API();
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    err = args_finalize(__func__, a);
    args_put(a);
    return err;
}

/* ---- launches -------------------------------------------------------------------------- */

/* Resolves the stream and the function, launches, lets both go. */
static aclError launch(const char *api, aclrtStream stream, launch_request *r, const void *func,
                       bool by_symbol)
{
    aclError err = BACKEND_REQUIRE(api, module);
    if (err)
        return err;
    acl_function *f;
    err =
        by_symbol ? function_resolve(api, func, &f) : function_get(api, (aclrtFuncHandle)func, &f);
    if (err)
        return err;
    acl_stream *s;
    if ((err = current_stream_get(api, stream, &s))) {
        function_put(f);
        return err;
    }
    r->fn = f;
    err = kernel_launch(api, s, r);
    stream_put(s);
    function_put(f);
    return err;
}

ACL_EXPORT aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                      const void *argsData, size_t argsSize, aclrtStream stream)
{
    PROF_API();
    launch_request r = {.grid = {numBlocks, 1, 1},
                        .args_kind = LAUNCH_ARGS_DEVICE,
                        .args = argsData,
                        .args_size = argsSize};
    return launch(__func__, stream, &r, funcHandle, false);
}

ACL_EXPORT aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                        const void *argsData, size_t argsSize,
                                        aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
    PROF_API();
    launch_request r = {.grid = {numBlocks, 1, 1},
                        .cfg = cfg,
                        .args_kind = LAUNCH_ARGS_DEVICE,
                        .args = argsData,
                        .args_size = argsSize};
    return launch(__func__, stream, &r, funcHandle, false);
}

ACL_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                                aclrtArgsHandle argsHandle, void *reserve)
{
    PROF_API();
    (void)reserve; /* ACL: fixed NULL, unused */
    acl_args *a;
    aclError err = args_get(__func__, argsHandle, &a);
    if (err)
        return err;
    launch_request r = {
        .grid = {numBlocks, 1, 1}, .cfg = cfg, .args_kind = LAUNCH_ARGS_LIST, .list = a};
    err = launch(__func__, stream, &r, funcHandle, false);
    args_put(a);
    return err;
}

ACL_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                  aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                                  void *hostArgs, size_t argsSize,
                                                  aclrtPlaceHolderInfo *placeHolderArray,
                                                  size_t placeHolderNum)
{
    PROF_API();
    launch_request r = {.grid = {numBlocks, 1, 1},
                        .cfg = cfg,
                        .args_kind = LAUNCH_ARGS_HOST,
                        .args = hostArgs,
                        .args_size = argsSize,
                        .placeholders = placeHolderArray,
                        .placeholder_count = placeHolderNum};
    return launch(__func__, stream, &r, funcHandle, false);
}

ACL_EXPORT aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks,
                                                   aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                                   void **args)
{
    PROF_API();
    launch_request r = {
        .grid = {numBlocks, 1, 1}, .cfg = cfg, .args_kind = LAUNCH_ARGS_ARRAY, .array = args};
    return launch(__func__, stream, &r, func, true);
}

ACL_EXPORT aclError aclrtLaunchSIMTKernelWithArgsArray(void *func, dim3 gridDim, dim3 blockDim,
                                                       size_t dynUbufSize, aclrtStream stream,
                                                       aclrtLaunchKernelCfg *cfg, void **args)
{
    PROF_API();
    launch_request r = {.grid = {gridDim.x, gridDim.y, gridDim.z},
                        .simt = true,
                        .block = {blockDim.x, blockDim.y, blockDim.z},
                        .shared = dynUbufSize,
                        .cfg = cfg,
                        .args_kind = LAUNCH_ARGS_ARRAY,
                        .array = args};
    return launch(__func__, stream, &r, func, true);
}

ACL_EXPORT aclError aclrtLaunchSIMTKernelWithHostArgs(void *func, dim3 gridDim, dim3 blockDim,
                                                      size_t dynUbufSize, aclrtStream stream,
                                                      aclrtLaunchKernelCfg *cfg, void *hostArgs,
                                                      size_t argsSize,
                                                      aclrtPlaceHolderInfo *placeHolderArray,
                                                      size_t placeHolderNum)
{
    PROF_API();
    launch_request r = {.grid = {gridDim.x, gridDim.y, gridDim.z},
                        .simt = true,
                        .block = {blockDim.x, blockDim.y, blockDim.z},
                        .shared = dynUbufSize,
                        .cfg = cfg,
                        .args_kind = LAUNCH_ARGS_HOST,
                        .args = hostArgs,
                        .args_size = argsSize,
                        .placeholders = placeHolderArray,
                        .placeholder_count = placeHolderNum};
    return launch(__func__, stream, &r, func, true);
}

/* ---- device variables ------------------------------------------------------------------ */

ACL_EXPORT aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr)
{
    PROF_API();
    if (!devPtr)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    size_t size;
    return symbol_address(__func__, symbol, devPtr, &size);
}

ACL_EXPORT aclError aclrtGetSymbolSize(const void *symbol, size_t *size)
{
    PROF_API();
    if (!size)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "size is NULL");
    void *addr;
    return symbol_address(__func__, symbol, &addr, size);
}

ACL_EXPORT aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol,
                                          size_t count, size_t offset, aclrtMemcpyKind kind)
{
    PROF_API();
    if (dstMax < count)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dstMax %zu is less than count %zu", dstMax,
                         count);
    return symbol_copy(__func__, NULL, symbol, offset, dst, count, false, kind);
}

ACL_EXPORT aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax, const void *symbol,
                                               size_t count, size_t offset, aclrtMemcpyKind kind,
                                               aclrtStream stream)
{
    PROF_API();
    if (dstMax < count)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "dstMax %zu is less than count %zu", dstMax,
                         count);
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = symbol_copy(__func__, s, symbol, offset, dst, count, false, kind);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                        size_t offset, aclrtMemcpyKind kind)
{
    PROF_API();
    return symbol_copy(__func__, NULL, symbol, offset, (void *)src, count, true, kind);
}

ACL_EXPORT aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                             size_t offset, aclrtMemcpyKind kind,
                                             aclrtStream stream)
{
    PROF_API();
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = symbol_copy(__func__, s, symbol, offset, (void *)src, count, true, kind);
    stream_put(s);
    return err;
}

/* ---- built-in tasks -------------------------------------------------------------------- */

ACL_EXPORT aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
                                     aclrtReduceKind kind, aclDataType type, aclrtStream stream,
                                     void *reserve)
{
    PROF_API();
    (void)reserve; /* ACL: fixed NULL, unused */
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = builtin_reduce(__func__, s, dst, src, count, kind, type);
    stream_put(s);
    return err;
}

ACL_EXPORT aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
                                        const aclrtStream stream, void *reserve)
{
    PROF_API();
    (void)reserve;
    if (!taskInfo)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "taskInfo is NULL");
    acl_stream *s;
    aclError err = current_stream_get(__func__, stream, &s);
    if (err)
        return err;
    err = builtin_random(__func__, s, taskInfo);
    stream_put(s);
    return err;
}

/* ---- architecture compatibility -----------------------------------------------------------
 * Whether code built for socVersion runs on this machine's device 0 (the
 * device aclrtGetSocName names): its exact name (what aclrtGetSocName
 * returns), or on CUDA an architecture: "sm_XY" machine code runs on a
 * device of major X and minor Y or more, "compute_XY" PTX on any device of
 * X.Y or more (the driver compiles it). */
ACL_EXPORT aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    PROF_API();
    if (!socVersion)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "socVersion is NULL");
    if (!canCompatible)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "canCompatible is NULL");
    device_props p;
    aclError err = device_props_get(__func__, 0, &p, NULL);
    if (err)
        return err;
    bool compatible = strncmp(socVersion, p.name, sizeof p.name) == 0;
    unsigned arch;
    int used = 0;
    int device_arch = p.cc_major * 10 + p.cc_minor;
    if (!compatible && p.cc_major > 0 && sscanf(socVersion, "sm_%u%n", &arch, &used) == 1 &&
        socVersion[used] == '\0')
        compatible = (int)arch / 10 == p.cc_major && (int)arch % 10 <= p.cc_minor;
    else if (!compatible && p.cc_major > 0 &&
             sscanf(socVersion, "compute_%u%n", &arch, &used) == 1 && socVersion[used] == '\0')
        compatible = (int)arch <= device_arch;
    *canCompatible = compatible ? 1 : 0;
    return ACL_SUCCESS;
}

/* ---- refused ------------------------------------------------------------------------------ */

ACL_EXPORT aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName,
                                         const char *kernelName, aclrtFuncHandle *funcHandle)
{
    PROF_API();
    (void)handle;
    (void)funcName;
    (void)kernelName;
    (void)funcHandle;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "AI CPU operators are shared objects that the Ascend device's own CPU cores "
                     "run; a GPU has none (binaries loaded with "
                     "ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE are refused as well): host code runs "
                     "in stream order with aclrtLaunchHostFunc");
}

ACL_EXPORT aclError aclrtGetHardwareSyncAddr(void **addr)
{
    PROF_API();
    (void)addr;
    return ACL_RAISE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "it is where the cube and vector units of an Ascend AI core synchronise; a "
                     "GPU's multiprocessors have no such pair of units (a CUDA kernel "
                     "synchronises its block with __syncthreads, and all blocks with a "
                     "cooperative launch)");
}

/* ---- aclrtTaskUpdateAsync ----------------------------------------------------------------- */

/* The update reads its device memory after execStream's work so far (the
 * stream is synchronised for it): CUDA gives a graph's nodes new
 * parameters from the host only, for the launches queued afterwards. */
ACL_EXPORT aclError aclrtTaskUpdateAsync(aclrtStream taskStream, uint32_t taskId,
                                         aclrtTaskUpdateInfo *info, aclrtStream execStream)
{
    PROF_API();
    if (!taskStream)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "taskStream is NULL");
    if (!info)
        return ACL_RAISE(ACL_ERROR_INVALID_PARAM, "info is NULL");
    acl_stream *task_stream;
    aclError err = stream_get(__func__, taskStream, &task_stream);
    if (err)
        return err;
    acl_stream *exec;
    if (!(err = current_stream_get(__func__, execStream, &exec))) {
        err = model_task_update_async(__func__, task_stream, taskId, info, exec);
        stream_put(exec);
    }
    stream_put(task_stream);
    return err;
}
