/* A model whose streams switch and start each other, as CANN's sample
 * 2_model_switch builds it (aclmdlRIBuildBegin, aclmdlRIBindStream with
 * ACL_MODEL_STREAM_FLAG_HEAD and ACL_MODEL_STREAM_FLAG_DEFAULT,
 * aclrtSwitchStream, aclrtActiveStream), with vector_add (z = x + y) where
 * CANN's uses aclnnAdd:
 *
 *   stream1 (head): data1 = self1 + other1; num = target (a device copy);
 *                   num == 1: switch to stream3; num == 2: switch to stream4
 *   stream2: data2 = self2 + other2; start endStream
 *   stream3: data3 = self3 + other3; start endStream
 *   stream4: start stream2
 *   endStream: its end (aclmdlRIEndTask)
 *
 * The first run (target 1) takes stream3: data1 and data3 are computed,
 * data2 is not; the second (target 2) takes stream4, which starts stream2.
 * It prints the results of both runs as CANN's sample does, checks them
 * and prints "ok". Inputs come from page-locked memory (aclrtMallocHost):
 * a model cannot hold copies from pageable memory (CANN's sample copies
 * from std::vector; acl-cuda refuses that in a model being built).
 *
 * The kernel binary is found as in launch_kernel.c: argv[1],
 * $ACLCUDA_SAMPLE_KERNEL, else the one the build made for the backend. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#define N 8

#define CHECK(call)                                                                                \
    do {                                                                                           \
        aclError check_ret_ = (call);                                                              \
        if (check_ret_ != ACL_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed, ret=%d: %s\n", #call, (int)check_ret_,                     \
                    aclGetRecentErrMsg());                                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const char *kernel_path(int argc, char **argv)
{
    static char path[512];
    if (argc > 1)
        return argv[1];
    const char *env = getenv("ACLCUDA_SAMPLE_KERNEL");
    if (env && *env)
        return env;
    snprintf(path, sizeof path, "samples/kernels/vector_add.%s",
             strcmp(aclcudaGetBackendName(), "host") == 0 ? "so" : "ptx");
    return path;
}

static void *device_alloc(size_t size)
{
    void *p = NULL;
    CHECK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(p, size, 0, size));
    return p;
}

/* N floats of value v in page-locked memory. */
static float *pinned_filled(float v)
{
    float *p = NULL;
    CHECK(aclrtMallocHost((void **)&p, N * sizeof *p));
    for (int i = 0; i < N; i++)
        p[i] = v;
    return p;
}

/* z = x + y on stream s. */
static void vector_add(aclrtFuncHandle f, float *x, float *y, float *z, aclrtStream s)
{
    aclrtArgsHandle args;
    aclrtParamHandle param;
    uint32_t n = N;
    CHECK(aclrtKernelArgsInit(f, &args));
    CHECK(aclrtKernelArgsAppend(args, &x, sizeof x, &param));
    CHECK(aclrtKernelArgsAppend(args, &y, sizeof y, &param));
    CHECK(aclrtKernelArgsAppend(args, &z, sizeof z, &param));
    CHECK(aclrtKernelArgsAppend(args, &n, sizeof n, &param));
    CHECK(aclrtKernelArgsFinalize(args));
    CHECK(aclrtLaunchKernelWithConfig(f, 1, s, NULL, args, NULL));
}

static aclrtStream persistent_stream(void)
{
    aclrtStream s = NULL;
    CHECK(aclrtCreateStreamWithConfig(&s, 0x00U, ACL_STREAM_PERSISTENT));
    return s;
}

/* Prints data as CANN's sample does; returns whether every element is want. */
static int print_and_check(const char *what, const float *dev, float want)
{
    float host[N];
    CHECK(aclrtMemcpy(host, sizeof host, dev, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("[INFO]  %s\n[INFO]  The vector data is:", what);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        printf(" %.4f", (double)host[i]);
        ok &= host[i] > want - 1e-4f && host[i] < want + 1e-4f;
    }
    printf("\n");
    if (!ok)
        fprintf(stderr, "%s: expected %.4f\n", what, (double)want);
    return ok;
}

int main(int argc, char **argv)
{
    const char *path = kernel_path(argc, argv);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtContext context;
    CHECK(aclrtCreateContext(&context, 0));
    aclrtBinHandle bin;
    CHECK(aclrtBinaryLoadFromFile(path, NULL, &bin));
    aclrtFuncHandle add;
    CHECK(aclrtBinaryGetFunction(bin, "vector_add", &add));

    size_t size = N * sizeof(float);
    float *self[3], *other[3], *out[3], *self_host[3], *other_host[3];
    for (int i = 0; i < 3; i++) {
        self[i] = device_alloc(size);
        other[i] = device_alloc(size);
        out[i] = device_alloc(size);
        self_host[i] = pinned_filled((float)(i + 1));
        other_host[i] = pinned_filled(2.4f);
    }
    /* The switches compare num with 1 and 2, all in device memory. */
    int32_t *right1 = device_alloc(sizeof(int32_t)), *right2 = device_alloc(sizeof(int32_t));
    int32_t *num = device_alloc(sizeof(int32_t)), *target = device_alloc(sizeof(int32_t));
    int32_t one = 1, two = 2;
    CHECK(aclrtMemcpy(right1, sizeof one, &one, sizeof one, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(right2, sizeof two, &two, sizeof two, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(target, sizeof one, &one, sizeof one, ACL_MEMCPY_HOST_TO_DEVICE));

    aclrtStream stream1 = persistent_stream(), stream2 = persistent_stream(),
                stream3 = persistent_stream(), stream4 = persistent_stream(),
                end_stream = persistent_stream();
    aclmdlRI model;
    CHECK(aclmdlRIBuildBegin(&model, 0x00U));
    CHECK(aclmdlRIBindStream(model, stream1, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK(aclmdlRIBindStream(model, stream2, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK(aclmdlRIBindStream(model, stream3, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK(aclmdlRIBindStream(model, stream4, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK(aclmdlRIBindStream(model, end_stream, ACL_MODEL_STREAM_FLAG_DEFAULT));
    aclrtStream inputs[3] = {stream1, stream2, stream3};
    for (int i = 0; i < 3; i++) {
        CHECK(aclrtMemcpyAsync(self[i], size, self_host[i], size, ACL_MEMCPY_HOST_TO_DEVICE,
                               inputs[i]));
        CHECK(aclrtMemcpyAsync(other[i], size, other_host[i], size, ACL_MEMCPY_HOST_TO_DEVICE,
                               inputs[i]));
    }
    vector_add(add, self[0], other[0], out[0], stream1);
    CHECK(aclrtMemcpyAsync(num, sizeof *num, target, sizeof *num, ACL_MEMCPY_DEVICE_TO_DEVICE,
                           stream1));
    vector_add(add, self[1], other[1], out[1], stream2);
    CHECK(aclrtActiveStream(end_stream, stream2));
    vector_add(add, self[2], other[2], out[2], stream3);
    CHECK(aclrtActiveStream(end_stream, stream3));
    CHECK(
        aclrtSwitchStream(num, ACL_RT_EQUAL, right1, ACL_RT_SWITCH_INT32, stream3, NULL, stream1));
    CHECK(
        aclrtSwitchStream(num, ACL_RT_EQUAL, right2, ACL_RT_SWITCH_INT32, stream4, NULL, stream1));
    CHECK(aclrtActiveStream(stream2, stream4));
    CHECK(aclmdlRIEndTask(model, end_stream));
    CHECK(aclmdlRIBuildEnd(model, NULL));

    aclrtStream exec;
    CHECK(aclrtCreateStream(&exec));
    CHECK(aclmdlRIExecuteAsync(model, exec));
    CHECK(aclrtSynchronizeStream(exec));
    int ok = print_and_check("After executing, print data1.", out[0], 3.4f);
    ok &= print_and_check("After executing, print data2.", out[1], 0.0f);
    ok &= print_and_check("After executing, print data3.", out[2], 5.4f);

    /* The second run copies 2 into num: stream4 starts stream2. */
    CHECK(aclrtMemcpy(target, sizeof two, &two, sizeof two, ACL_MEMCPY_HOST_TO_DEVICE));
    for (int i = 0; i < 3; i++)
        CHECK(aclrtMemset(out[i], size, 0, size));
    CHECK(aclmdlRIExecuteAsync(model, exec));
    CHECK(aclrtSynchronizeStream(exec));
    ok &= print_and_check("After second execution, print data1.", out[0], 3.4f);
    ok &= print_and_check("After second execution, print data2.", out[1], 4.4f);
    ok &= print_and_check("After second execution, print data3.", out[2], 0.0f);

    aclrtStream bound[5] = {stream1, stream2, stream3, stream4, end_stream};
    for (int i = 0; i < 5; i++)
        CHECK(aclmdlRIUnbindStream(model, bound[i]));
    CHECK(aclmdlRIDestroy(model));
    for (int i = 0; i < 5; i++)
        CHECK(aclrtDestroyStream(bound[i]));
    CHECK(aclrtDestroyStream(exec));
    for (int i = 0; i < 3; i++) {
        CHECK(aclrtFree(self[i]));
        CHECK(aclrtFree(other[i]));
        CHECK(aclrtFree(out[i]));
        CHECK(aclrtFreeHost(self_host[i]));
        CHECK(aclrtFreeHost(other_host[i]));
    }
    CHECK(aclrtFree(right1));
    CHECK(aclrtFree(right2));
    CHECK(aclrtFree(num));
    CHECK(aclrtFree(target));
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
    if (!ok)
        return 1;
    printf("two runs took stream3, then stream4 and stream2: ok\n");
    return 0;
}
