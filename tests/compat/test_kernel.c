/* Kernels (acl_rt.h "Kernel loading and execution", "built-in tasks"):
 * what holds without a device binary of the implementation's own (such a
 * binary is platform-specific: acl-cuda's own tests launch real kernels,
 * tests/check/test_kernel.c): refusing what is no binary, binaries made
 * from bytes, the built-in reduce task of CANN's sample and random-number
 * tasks, and the bad-argument rows of every kernel function. */
#include "bad_args.h"

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    compat_set_device();
}

static void tear_down(void)
{
    compat_reset_device();
    ACL_OK(aclFinalize());
}

COMPAT_TEST(not_a_binary_is_refused,
            "aclrtBinaryLoadFromData refuses bytes that are no operator binary, and "
            "aclrtBinaryLoadFromFile a path that names no file, with an error and a message",
            "API ref aclrtBinaryLoadFromData, aclrtBinaryLoadFromFile")
{
    unsigned char junk[COMPAT_GARBAGE];
    compat_fill_random(junk, sizeof junk, 0x5eed00a1);
    aclrtBinHandle bin = NULL;
    ACL_FAILS(aclrtBinaryLoadFromData(junk, sizeof junk, NULL, &bin));
    ACL_FAILS(aclrtBinaryLoadFromFile("/nonexistent/acl-compat/kernel.o", NULL, &bin));
}

COMPAT_TEST(binary_from_bytes,
            "aclrtCreateBinary describes a binary from host bytes and aclrtDestroyBinary "
            "destroys it",
            "API ref aclrtCreateBinary, aclrtDestroyBinary")
{
    static const unsigned char bytes[64] = {1, 2, 3};
    aclrtBinary binary = aclrtCreateBinary(bytes, sizeof bytes);
    ck_assert_ptr_nonnull(binary);
    ACL_OK(aclrtDestroyBinary(binary));
}

COMPAT_TEST(reduce_sum_as_in_the_sample,
            "aclrtReduceAsync with ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM adds src into dst element "
            "by element; count is in bytes",
            "API ref aclrtReduceAsync; CANN sample built_in_task/0_reduce_task")
{
    float in[4] = {1.0f, 2.0f, 3.0f, 4.0f}, out[4] = {0};
    void *src = compat_device_buffer(sizeof in), *dst = compat_device_buffer(sizeof in);
    ACL_OK(aclrtMemcpy(src, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dst, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtStream s = compat_new_stream();
    ACL_OK(aclrtReduceAsync(dst, src, sizeof in, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s,
                            NULL));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtMemcpy(out, sizeof out, dst, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4; i++)
        ck_assert_msg(out[i] == 2.0f * in[i], "result[%d] = %g", i, (double)out[i]);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(src));
    ACL_OK(aclrtFree(dst));
}

COMPAT_TEST(reduce_max_and_min,
            "ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX / _MIN keep the larger / smaller element",
            "API ref aclrtReduceAsync, aclrtReduceKind")
{
    int32_t a[4] = {1, 7, -3, 4}, b[4] = {5, 2, -1, 4}, out[4];
    void *dst = compat_device_buffer(sizeof a), *src = compat_device_buffer(sizeof b);
    ACL_OK(aclrtMemcpy(src, sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(dst, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtReduceAsync(dst, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT32, NULL,
                            NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(out, sizeof out, dst, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert(out[0] == 5 && out[1] == 7 && out[2] == -1 && out[3] == 4);
    ACL_OK(aclrtMemcpy(dst, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtReduceAsync(dst, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32, NULL,
                            NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(out, sizeof out, dst, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert(out[0] == 1 && out[1] == 2 && out[2] == -3 && out[3] == 4);
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtFree(src));
}

static aclrtRandomParaInfo value_param(const void *v, uint8_t size)
{
    aclrtRandomParaInfo p;
    memset(&p, 0, sizeof p);
    p.size = size;
    memcpy(p.valueOrAddr, v, size);
    return p;
}

COMPAT_TEST(random_uniform_in_range,
            "aclrtRandomNumAsync fills randomNum elements of the uniform distribution between "
            "min and max",
            "API ref aclrtRandomNumAsync, aclrtRandomNumTaskInfo, aclrtUniformDisInfo")
{
    enum { COUNT = 1024 };
    float lo = 2.0f, hi = 4.0f;
    uint64_t seed = 7, count = COUNT;
    float *out = compat_device_buffer(COUNT * sizeof(float));
    aclrtRandomNumTaskInfo info;
    memset(&info, 0, sizeof info);
    info.dataType = ACL_FLOAT;
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_param(&lo, 4);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_param(&hi, 4);
    info.randomResultAddr = out;
    info.randomSeed = value_param(&seed, 8);
    info.randomNum = value_param(&count, 8);
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    float *h = malloc(COUNT * sizeof *h);
    ACL_OK(aclrtMemcpy(h, COUNT * sizeof *h, out, COUNT * sizeof *h, ACL_MEMCPY_DEVICE_TO_HOST));
    int outside = 0, distinct = 0;
    for (int i = 0; i < COUNT; i++) {
        outside += h[i] < lo || h[i] > hi;
        distinct += i > 0 && h[i] != h[i - 1];
    }
    free(h);
    ck_assert_int_eq(outside, 0);
    ck_assert_int_gt(distinct, COUNT / 2);
    ACL_OK(aclrtFree(out));
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclrtCreateBinary)
{
    REJECTS_VALUE(aclrtCreateBinary(NULL, 8), NULL, "NULL data");
    REJECTS_VALUE_HOSTILE(aclrtCreateBinary("x", 0), NULL, "0 bytes");
}

ROW(aclrtDestroyBinary)
{
    FOR_EACH_BAD(KIND_BINARY, h, ACL_ERROR_INVALID_PARAM, aclrtDestroyBinary(h));
}

ROW(aclrtBinaryLoad)
{
    aclrtBinHandle bin;
    FOR_EACH_BAD(KIND_BINARY, h, ACL_ERROR_INVALID_PARAM, aclrtBinaryLoad(h, &bin));
}

ROW(aclrtBinaryLoadFromFile)
{
    aclrtBinHandle bin;
    REJECTS(aclrtBinaryLoadFromFile(NULL, NULL, &bin), ACL_ERROR_INVALID_PARAM, "a NULL binPath");
    REJECTS_HOSTILE(aclrtBinaryLoadFromFile("/", NULL, &bin), ANY_ERROR, "a directory");
}

ROW(aclrtBinaryLoadFromData)
{
    aclrtBinHandle bin;
    unsigned char junk[64] = {0};
    REJECTS(aclrtBinaryLoadFromData(NULL, 64, NULL, &bin), ACL_ERROR_INVALID_PARAM, "NULL data");
    REJECTS(aclrtBinaryLoadFromData(junk, sizeof junk, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL binHandle");
}

ROW(aclrtBinaryUnLoad)
{
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM, aclrtBinaryUnLoad(h));
}

ROW(aclrtBinaryGetDevAddress)
{
    void *addr;
    size_t size;
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM,
                 aclrtBinaryGetDevAddress(h, &addr, &size));
}

ROW(aclrtBinaryGetGlobal)
{
    void *addr;
    size_t size;
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM,
                 aclrtBinaryGetGlobal(h, "g", &addr, &size));
}

ROW(aclrtBinaryGetFunction)
{
    aclrtFuncHandle f;
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunction(h, "k", &f));
}

ROW(aclrtBinaryGetFunctionByEntry)
{
    aclrtFuncHandle f;
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM, aclrtBinaryGetFunctionByEntry(h, 1, &f));
}

ROW(aclrtGetFuncBySymbol)
{
    aclrtFuncHandle f;
    REJECTS(aclrtGetFuncBySymbol(NULL, &f), ACL_ERROR_INVALID_PARAM, "a NULL symbol");
}

/* Functions of a function handle. */
#define FUNCTION_ROW(name, call)                                                                   \
    ROW(name)                                                                                      \
    {                                                                                              \
        void *out_[4];                                                                             \
        (void)out_;                                                                                \
        FOR_EACH_BAD(KIND_FUNCTION, h, ACL_ERROR_INVALID_PARAM, call);                             \
    }

FUNCTION_ROW(aclrtFunctionGetBinary, aclrtFunctionGetBinary(h, (aclrtBinHandle *)out_))
FUNCTION_ROW(aclrtGetFunctionAddr, aclrtGetFunctionAddr(h, &out_[0], &out_[1]))
FUNCTION_ROW(aclrtGetFunctionSize,
             aclrtGetFunctionSize(h, (size_t *)&out_[0], (size_t *)&out_[1]))
FUNCTION_ROW(aclrtGetFunctionName, aclrtGetFunctionName(h, sizeof out_, (char *)out_))
FUNCTION_ROW(aclrtGetFunctionAttribute,
             aclrtGetFunctionAttribute(h, ACL_FUNC_ATTR_KERNEL_TYPE, (int64_t *)out_))
FUNCTION_ROW(aclrtKernelArgsGetHandleMemSize,
             aclrtKernelArgsGetHandleMemSize(h, (size_t *)out_))
FUNCTION_ROW(aclrtKernelArgsGetMemSize, aclrtKernelArgsGetMemSize(h, 64, (size_t *)out_))
FUNCTION_ROW(aclrtKernelArgsInit, aclrtKernelArgsInit(h, (aclrtArgsHandle *)out_))
FUNCTION_ROW(aclrtKernelArgsInitByUserMem,
             aclrtKernelArgsInitByUserMem(h, &out_[0], &out_[1], sizeof(void *)))
FUNCTION_ROW(aclrtLaunchKernel, aclrtLaunchKernel(h, 1, NULL, 0, NULL))
FUNCTION_ROW(aclrtLaunchKernelV2, aclrtLaunchKernelV2(h, 1, NULL, 0, NULL, NULL))
FUNCTION_ROW(aclrtLaunchKernelWithHostArgs,
             aclrtLaunchKernelWithHostArgs(h, 1, NULL, NULL, out_, sizeof out_, NULL, 0))

/* The ArgsArray and SIMT launches and the parameter queries also take a
 * kernel's host symbol: what is neither is refused with some error. */
#define SYMBOL_ROW(name, call)                                                                     \
    ROW(name)                                                                                      \
    {                                                                                              \
        void *out_[4] = {0};                                                                       \
        dim3 one_ = {1, 1, 1};                                                                     \
        (void)one_;                                                                                \
        REJECTS(({                                                                                 \
                    void *h = NULL;                                                                \
                    call;                                                                          \
                }),                                                                                \
                ACL_ERROR_INVALID_PARAM, "NULL");                                                  \
        FOR_EACH_BAD(KIND_FUNCTION, h, ANY_ERROR, call);                                           \
    }

SYMBOL_ROW(aclrtFunctionGetParamCount, aclrtFunctionGetParamCount(h, (size_t *)out_))
SYMBOL_ROW(aclrtFunctionGetParamInfo,
           aclrtFunctionGetParamInfo(h, 0, (size_t *)&out_[0], (size_t *)&out_[1]))
SYMBOL_ROW(aclrtFunctionGetAvailDynUbufPerBlock,
           aclrtFunctionGetAvailDynUbufPerBlock(h, 0, (size_t *)out_))
SYMBOL_ROW(aclrtLaunchKernelWithArgsArray, aclrtLaunchKernelWithArgsArray(h, 1, NULL, NULL, out_))
SYMBOL_ROW(aclrtLaunchSIMTKernelWithArgsArray,
           aclrtLaunchSIMTKernelWithArgsArray(h, one_, one_, 0, NULL, NULL, out_))
SYMBOL_ROW(aclrtLaunchSIMTKernelWithHostArgs,
           aclrtLaunchSIMTKernelWithHostArgs(h, one_, one_, 0, NULL, NULL, out_, sizeof out_, NULL,
                                             0))

ROW(aclrtLaunchKernelWithConfig)
{
    FOR_EACH_BAD(KIND_ARGS, h, ACL_ERROR_INVALID_PARAM,
                 aclrtLaunchKernelWithConfig(NULL, 1, NULL, NULL, h, NULL));
}

/* Functions of an argument list. */
#define ARGS_ROW(name, call)                                                                       \
    ROW(name)                                                                                      \
    {                                                                                              \
        uint64_t value_ = 0;                                                                       \
        void *out_ = NULL;                                                                         \
        aclrtParamHandle param_ = NULL;                                                            \
        (void)value_;                                                                              \
        (void)out_;                                                                                \
        (void)param_;                                                                              \
        FOR_EACH_BAD(KIND_ARGS, h, ACL_ERROR_INVALID_PARAM, call);                                 \
    }

ARGS_ROW(aclrtKernelArgsAppend, aclrtKernelArgsAppend(h, &value_, sizeof value_, &param_))
ARGS_ROW(aclrtKernelArgsAppendPlaceHolder, aclrtKernelArgsAppendPlaceHolder(h, &param_))
ARGS_ROW(aclrtKernelArgsGetPlaceHolderBuffer,
         aclrtKernelArgsGetPlaceHolderBuffer(h, (aclrtParamHandle)1, 8, &out_))
ARGS_ROW(aclrtKernelArgsParaUpdate,
         aclrtKernelArgsParaUpdate(h, (aclrtParamHandle)1, &value_, sizeof value_))
ARGS_ROW(aclrtKernelArgsFinalize, aclrtKernelArgsFinalize(h))

ROW(aclrtGetSymbolAddress)
{
    void *p;
    REJECTS(aclrtGetSymbolAddress(NULL, &p), ACL_ERROR_INVALID_PARAM, "a NULL symbol");
}

ROW(aclrtGetSymbolSize)
{
    size_t size;
    REJECTS(aclrtGetSymbolSize(NULL, &size), ACL_ERROR_INVALID_PARAM, "a NULL symbol");
}

ROW(aclrtMemcpyFromSymbol)
{
    unsigned char buf[8];
    REJECTS(aclrtMemcpyFromSymbol(buf, sizeof buf, NULL, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM, "a NULL symbol");
}

ROW(aclrtMemcpyFromSymbolAsync)
{
    unsigned char buf[8];
    REJECTS(aclrtMemcpyFromSymbolAsync(buf, sizeof buf, NULL, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL symbol");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemcpyFromSymbolAsync(buf, sizeof buf, buf, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST,
                                            h));
}

ROW(aclrtMemcpyToSymbol)
{
    unsigned char buf[8] = {0};
    REJECTS(aclrtMemcpyToSymbol(NULL, buf, 4, 0, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM, "a NULL symbol");
}

ROW(aclrtMemcpyToSymbolAsync)
{
    unsigned char buf[8] = {0};
    REJECTS(aclrtMemcpyToSymbolAsync(NULL, buf, 4, 0, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL symbol");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR,
                 aclrtMemcpyToSymbolAsync(buf, buf, 4, 0, ACL_MEMCPY_HOST_TO_DEVICE, h));
}

ROW(aclrtReduceAsync)
{
    compat_buffers b = compat_buffers_make();
    REJECTS(aclrtReduceAsync(NULL, b.device, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, NULL,
                             NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL dst");
    REJECTS(aclrtReduceAsync(b.device, NULL, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, NULL,
                             NULL),
            ACL_ERROR_INVALID_PARAM, "a NULL src");
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM,
                 aclrtReduceAsync(b.device, b.device, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                  ACL_FLOAT, h, NULL));
    REJECTS_HOSTILE(aclrtReduceAsync(b.pinned, b.device, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                     ACL_FLOAT, NULL, NULL),
                    ACL_ERROR_INVALID_PARAM, "page-locked host memory as dst");
    compat_buffers_free(&b);
}

ROW(aclrtRandomNumAsync)
{
    REJECTS(aclrtRandomNumAsync(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM, "a NULL taskInfo");
    compat_buffers b = compat_buffers_make();
    uint64_t count = 4, seed = 1;
    float lo = 0, hi = 1;
    aclrtRandomNumTaskInfo info;
    memset(&info, 0, sizeof info);
    info.dataType = ACL_FLOAT;
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_param(&lo, 4);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_param(&hi, 4);
    info.randomResultAddr = b.device;
    info.randomSeed = value_param(&seed, 8);
    info.randomNum = value_param(&count, 8);
    FOR_EACH_BAD(KIND_STREAM, h, ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&info, h, NULL));
    info.randomResultAddr = NULL;
    REJECTS(aclrtRandomNumAsync(&info, NULL, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL randomResultAddr");
    compat_buffers_free(&b);
}

ROW(aclrtGetOpExecuteTimeout)
{
    REJECTS(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM, "a NULL timeout");
}

ROW(aclrtGetOpTimeOutInterval)
{
    REJECTS(aclrtGetOpTimeOutInterval(NULL), ACL_ERROR_INVALID_PARAM, "a NULL interval");
}

ROW(aclrtSetOpExecuteTimeOutV2)
{
    REJECTS(aclrtSetOpExecuteTimeOutV2(10, NULL), ACL_ERROR_INVALID_PARAM, "a NULL result");
}

COMPAT_TEST(architecture_of_the_device_is_compatible,
            "aclrtCheckArchCompatibility says code for the device's own version (aclrtGetSocName) is compatible",
            "API ref aclrtCheckArchCompatibility")
{
    int32_t ok = -1;
    const char *soc = aclrtGetSocName();
    ck_assert_ptr_nonnull(soc);
    ACL_OK(aclrtCheckArchCompatibility(soc, &ok));
    ck_assert_int_eq(ok, 1);
}

ROW(aclrtCheckArchCompatibility)
{
    int32_t ok;
    REJECTS(aclrtCheckArchCompatibility(NULL, &ok), ACL_ERROR_INVALID_PARAM, "a NULL version");
    REJECTS(aclrtCheckArchCompatibility("Ascend910B1", NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL result");
}

static void on_op_exception(aclrtExceptionInfo *info, void *user_data)
{
    (void)info;
    (void)user_data;
}

ROW(aclrtBinarySetExceptionCallback)
{
    FOR_EACH_BAD(KIND_MODULE, h, ACL_ERROR_INVALID_PARAM,
                 aclrtBinarySetExceptionCallback(h, on_op_exception, NULL));
}

ROW(aclrtTaskUpdateAsync)
{
    aclrtTaskUpdateInfo info;
    memset(&info, 0, sizeof info);
    info.id = ACL_RT_UPDATE_AIC_AIV_TASK;
    aclrtStream s = compat_new_stream();
    REJECTS(aclrtTaskUpdateAsync(NULL, 1, &info, s), ACL_ERROR_INVALID_PARAM,
            "a NULL taskStream");
    REJECTS(aclrtTaskUpdateAsync(s, 1, NULL, s), ACL_ERROR_INVALID_PARAM, "a NULL info");
    /* A stream bound to no model. */
    REJECTS(aclrtTaskUpdateAsync(s, 1, &info, s), ANY_ERROR, "a stream bound to no model");
    FOR_EACH_BAD(KIND_STREAM, h, ANY_ERROR, aclrtTaskUpdateAsync(h, 1, &info, s));
    ACL_OK(aclrtDestroyStream(s));
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtBinarySetExceptionCallback),
    COMPAT_ROW(aclrtTaskUpdateAsync),
    COMPAT_ROW(aclrtBinaryGetDevAddress),
    COMPAT_ROW(aclrtBinaryGetFunction),
    COMPAT_ROW(aclrtBinaryGetFunctionByEntry),
    COMPAT_ROW(aclrtBinaryGetGlobal),
    COMPAT_ROW(aclrtBinaryLoad),
    COMPAT_ROW(aclrtBinaryLoadFromData),
    COMPAT_ROW(aclrtBinaryLoadFromFile),
    COMPAT_ROW(aclrtBinaryUnLoad),
    COMPAT_ROW(aclrtCheckArchCompatibility),
    COMPAT_ROW(aclrtCreateBinary),
    COMPAT_ROW(aclrtDestroyBinary),
    COMPAT_ROW(aclrtFunctionGetAvailDynUbufPerBlock),
    COMPAT_ROW(aclrtFunctionGetBinary),
    COMPAT_ROW(aclrtFunctionGetParamCount),
    COMPAT_ROW(aclrtFunctionGetParamInfo),
    COMPAT_ROW(aclrtGetFuncBySymbol),
    COMPAT_ROW(aclrtGetFunctionAddr),
    COMPAT_ROW(aclrtGetFunctionAttribute),
    COMPAT_ROW(aclrtGetFunctionName),
    COMPAT_ROW(aclrtGetFunctionSize),
    COMPAT_ROW(aclrtGetOpExecuteTimeout),
    COMPAT_ROW(aclrtGetOpTimeOutInterval),
    COMPAT_ROW(aclrtGetSymbolAddress),
    COMPAT_ROW(aclrtGetSymbolSize),
    COMPAT_ROW(aclrtKernelArgsAppend),
    COMPAT_ROW(aclrtKernelArgsAppendPlaceHolder),
    COMPAT_ROW(aclrtKernelArgsFinalize),
    COMPAT_ROW(aclrtKernelArgsGetHandleMemSize),
    COMPAT_ROW(aclrtKernelArgsGetMemSize),
    COMPAT_ROW(aclrtKernelArgsGetPlaceHolderBuffer),
    COMPAT_ROW(aclrtKernelArgsInit),
    COMPAT_ROW(aclrtKernelArgsInitByUserMem),
    COMPAT_ROW(aclrtKernelArgsParaUpdate),
    COMPAT_ROW(aclrtLaunchKernel),
    COMPAT_ROW(aclrtLaunchKernelV2),
    COMPAT_ROW(aclrtLaunchKernelWithArgsArray),
    COMPAT_ROW(aclrtLaunchKernelWithConfig),
    COMPAT_ROW(aclrtLaunchKernelWithHostArgs),
    COMPAT_ROW(aclrtLaunchSIMTKernelWithArgsArray),
    COMPAT_ROW(aclrtLaunchSIMTKernelWithHostArgs),
    COMPAT_ROW(aclrtMemcpyFromSymbol),
    COMPAT_ROW(aclrtMemcpyFromSymbolAsync),
    COMPAT_ROW(aclrtMemcpyToSymbol),
    COMPAT_ROW(aclrtMemcpyToSymbolAsync),
    COMPAT_ROW(aclrtRandomNumAsync),
    COMPAT_ROW(aclrtReduceAsync),
    COMPAT_ROW(aclrtSetOpExecuteTimeOutV2),
};
COMPAT_BAD_ARGS(kernel, rows);

Suite *compat_suite_kernel(void);
Suite *compat_suite_kernel(void)
{
    Suite *s = suite_create("kernel");
    TCase *binaries = tcase_create("binaries");
    tcase_add_checked_fixture(binaries, set_up, tear_down);
    tcase_add_test(binaries, not_a_binary_is_refused);
    tcase_add_test(binaries, binary_from_bytes);
    suite_add_tcase(s, binaries);

    TCase *builtin = tcase_create("built-in tasks");
    tcase_add_checked_fixture(builtin, set_up, tear_down);
    tcase_add_test(builtin, reduce_sum_as_in_the_sample);
    tcase_add_test(builtin, reduce_max_and_min);
    tcase_add_test(builtin, random_uniform_in_range);
    suite_add_tcase(s, builtin);

    TCase *arch = tcase_create("architectures");
    tcase_add_checked_fixture(arch, set_up, tear_down);
    tcase_add_test(arch, architecture_of_the_device_is_compatible);
    suite_add_tcase(s, arch);

    compat_add_bad_args(s, &compat_rows_kernel);
    return s;
}

COMPAT_MAIN(kernel)
