/* Labels in a built model, as CANN's sample 0_simple_label sets them up:
 * labels made (aclrtCreateLabel) and gathered in a list
 * (aclrtCreateLabelList), a jump by an index in device memory
 * (aclrtSwitchLabelByIndex) on a persistent stream bound to the model,
 * then the labels set on that stream (aclrtSetLabel). Where CANN's sample
 * sets its labels with nothing between them, this one adds vector_add
 * (z = x + y) after each label, so that the jump shows:
 *
 *   jump by index to [label0, label1]
 *   label0: z0 = x + y
 *   label1: z1 = x + y
 *
 * Index 1 (the sample's) goes on at label1: only z1 is computed. Index 0
 * goes on at label0 and runs on through label1: both are. It prints the
 * first elements, checks every one and prints "ok".
 *
 * The kernel binary is found as in launch_kernel.c: argv[1],
 * $ACLCUDA_SAMPLE_KERNEL, else the one the build made for the backend. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_cuda.h"

#define N 1024
#define LABELS 2

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

static float *device_copy(const float *host)
{
    float *dev = NULL;
    CHECK(aclrtMalloc((void **)&dev, N * sizeof *dev, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(dev, N * sizeof *dev, host, N * sizeof *dev, ACL_MEMCPY_HOST_TO_DEVICE));
    return dev;
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
    CHECK(aclrtLaunchKernelWithConfig(f, 4, s, NULL, args, NULL));
}

/* Whether z holds x + y (computed) or zeros (not). */
static int check(const char *what, const float *z_dev, const float *x, const float *y, int computed)
{
    static float z[N];
    CHECK(aclrtMemcpy(z, sizeof z, z_dev, sizeof z, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("[INFO]  %s: %g %g %g ... (%s)\n", what, (double)z[0], (double)z[1], (double)z[2],
           computed ? "computed" : "skipped");
    for (int i = 0; i < N; i++) {
        float want = computed ? x[i] + y[i] : 0.0f;
        if (z[i] != want) {
            fprintf(stderr, "%s: element %d is %g, expected %g\n", what, i, (double)z[i],
                    (double)want);
            return 0;
        }
    }
    return 1;
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

    static float x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.25f * (float)i;
    }
    float *dx = device_copy(x), *dy = device_copy(y);
    float *z[LABELS];
    for (int i = 0; i < LABELS; i++) {
        CHECK(aclrtMalloc((void **)&z[i], N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtMemset(z[i], N * sizeof(float), 0, N * sizeof(float)));
    }
    uint32_t *branch_index = NULL;
    CHECK(aclrtMalloc((void **)&branch_index, sizeof *branch_index, ACL_MEM_MALLOC_HUGE_FIRST));

    aclrtStream label_stream, execute_stream;
    CHECK(aclrtCreateStreamWithConfig(&label_stream, 0x00U, ACL_STREAM_PERSISTENT));
    CHECK(aclrtCreateStream(&execute_stream));
    aclmdlRI model;
    CHECK(aclmdlRIBuildBegin(&model, 0x00U));
    CHECK(aclmdlRIBindStream(model, label_stream, ACL_MODEL_STREAM_FLAG_HEAD));
    aclrtLabel labels[LABELS];
    for (int i = 0; i < LABELS; i++)
        CHECK(aclrtCreateLabel(&labels[i]));
    aclrtLabelList label_list;
    CHECK(aclrtCreateLabelList(labels, LABELS, &label_list));
    CHECK(aclrtSwitchLabelByIndex(branch_index, LABELS, label_list, label_stream));
    for (int i = 0; i < LABELS; i++) {
        CHECK(aclrtSetLabel(labels[i], label_stream));
        vector_add(add, dx, dy, z[i], label_stream);
    }
    CHECK(aclmdlRIEndTask(model, label_stream));
    CHECK(aclmdlRIBuildEnd(model, NULL));

    int ok = 1;
    for (uint32_t index = LABELS; index-- > 0;) {
        for (int i = 0; i < LABELS; i++)
            CHECK(aclrtMemset(z[i], N * sizeof(float), 0, N * sizeof(float)));
        CHECK(aclrtMemcpy(branch_index, sizeof index, &index, sizeof index,
                          ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK(aclmdlRIExecuteAsync(model, execute_stream));
        CHECK(aclrtSynchronizeStream(execute_stream));
        printf("[INFO]  Switch label executed with branch index %u.\n", index);
        ok &= check("z0 (label 0)", z[0], x, y, index == 0);
        ok &= check("z1 (label 1)", z[1], x, y, 1);
    }

    CHECK(aclmdlRIUnbindStream(model, label_stream));
    CHECK(aclmdlRIDestroy(model));
    CHECK(aclrtDestroyLabelList(label_list));
    for (int i = LABELS; i-- > 0;)
        CHECK(aclrtDestroyLabel(labels[i]));
    for (int i = 0; i < LABELS; i++)
        CHECK(aclrtFree(z[i]));
    CHECK(aclrtFree(branch_index));
    CHECK(aclrtFree(dx));
    CHECK(aclrtFree(dy));
    CHECK(aclrtDestroyStream(execute_stream));
    CHECK(aclrtDestroyStream(label_stream));
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtDestroyContext(context));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
    if (!ok)
        return 1;
    printf("the jump went on at the label its index chose: ok\n");
    return 0;
}
