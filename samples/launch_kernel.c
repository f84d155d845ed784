/* Loading a kernel binary and launching it through ACL, as an Ascend
 * program does: aclrtBinaryLoadFromFile, aclrtBinaryGetFunction, then two
 * launches of vector_add (z = x + y):
 *   1. aclrtLaunchKernel with the arguments packed in one buffer of device
 *      memory, laid out as the kernel's parameters;
 *   2. aclrtLaunchKernelWithConfig with an argument list built parameter by
 *      parameter (aclrtKernelArgsInit, Append, Finalize): w = x + z.
 * It prints the first results, checks every element and prints "ok".
 *
 * The binary is argv[1], else $ACLCUDA_SAMPLE_KERNEL, else the one the build
 * made for the backend in use: samples/kernels/vector_add.ptx (cuda: PTX the
 * driver compiles at load time) or vector_add.so (host: a shared object of
 * host kernels). Only that default is acl-cuda specific; the rest is the
 * ACL code an Ascend program has, unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#define N 4096
#define NUM_BLOCKS 16

#define CHECK(call)                                                                                \
    do {                                                                                           \
        aclError check_ret_ = (call);                                                              \
        if (check_ret_ != ACL_SUCCESS) {                                                           \
            fprintf(stderr, "%s failed, ret=%d: %s\n", #call, (int)check_ret_,                     \
                    aclGetRecentErrMsg());                                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* vector_add's parameters as the kernel lays them out. */
struct vector_add_args {
    const float *x, *y;
    float *z;
    uint32_t n;
};

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

static void *device_copy(const void *host, size_t size)
{
    void *dev = NULL;
    CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));
    return dev;
}

static int check(const char *what, const float *got, const float *a, const float *b)
{
    printf("%s: %g %g %g %g ...\n", what, (double)got[0], (double)got[1], (double)got[2],
           (double)got[3]);
    for (int i = 0; i < N; i++)
        if (got[i] != a[i] + b[i]) {
            fprintf(stderr, "%s: element %d is %g, expected %g\n", what, i, (double)got[i],
                    (double)(a[i] + b[i]));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = kernel_path(argc, argv);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtContext context;
    CHECK(aclrtCreateContext(&context, 0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));

    aclrtBinHandle bin;
    CHECK(aclrtBinaryLoadFromFile(path, NULL, &bin));
    aclrtFuncHandle vector_add;
    CHECK(aclrtBinaryGetFunction(bin, "vector_add", &vector_add));
    printf("loaded %s on the %s backend\n", path, aclcudaGetBackendName());

    static float x[N], y[N], z[N], w[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.5f * (float)(N - i);
    }
    float *dx = device_copy(x, sizeof x), *dy = device_copy(y, sizeof y);
    float *dz = NULL, *dw = NULL;
    CHECK(aclrtMalloc((void **)&dz, sizeof z, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc((void **)&dw, sizeof w, ACL_MEM_MALLOC_HUGE_FIRST));

    /* 1. One packed argument buffer in device memory. */
    struct vector_add_args packed = {dx, dy, dz, N};
    void *dargs = device_copy(&packed, sizeof packed);
    CHECK(aclrtLaunchKernel(vector_add, NUM_BLOCKS, dargs, sizeof packed, stream));

    /* 2. An argument list, parameter by parameter: w = x + z, after launch 1. */
    aclrtArgsHandle args;
    aclrtParamHandle param;
    uint32_t n = N;
    CHECK(aclrtKernelArgsInit(vector_add, &args));
    CHECK(aclrtKernelArgsAppend(args, &dx, sizeof dx, &param));
    CHECK(aclrtKernelArgsAppend(args, &dz, sizeof dz, &param));
    CHECK(aclrtKernelArgsAppend(args, &dw, sizeof dw, &param));
    CHECK(aclrtKernelArgsAppend(args, &n, sizeof n, &param));
    CHECK(aclrtKernelArgsFinalize(args));
    CHECK(aclrtLaunchKernelWithConfig(vector_add, NUM_BLOCKS, stream, NULL, args, NULL));

    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(z, sizeof z, dz, sizeof z, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(aclrtMemcpy(w, sizeof w, dw, sizeof w, ACL_MEMCPY_DEVICE_TO_HOST));
    int failed = check("z = x + y (aclrtLaunchKernel)", z, x, y);
    failed |= check("w = x + z (aclrtLaunchKernelWithConfig)", w, x, z);

    CHECK(aclrtFree(dargs));
    CHECK(aclrtFree(dw));
    CHECK(aclrtFree(dz));
    CHECK(aclrtFree(dy));
    CHECK(aclrtFree(dx));
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    if (failed)
        return 1;
    printf("verified %d elements of two launches: ok\n", N);
    return 0;
}
