/* Helpers of the kernel and model suites: the test kernels
 * (tests/kernels/test_kernels.{c,cu}), built as a shared object for the
 * host backend and a fatbin for the cuda backend, loaded for the backend in
 * use. */
#ifndef KERNELTEST_H
#define KERNELTEST_H

#include <stdint.h>

#include "acl/acl_cuda.h"
#include "acltest.h"

static inline bool kt_on_host(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

/* The test kernels' file for the backend in use. */
static inline const char *kt_kernel_path(void)
{
    static char path[4096];
    const char *dir = getenv("ACLCUDA_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/tests/kernels/test_kernels.%s", dir && *dir ? dir : ".",
             kt_on_host() ? "so" : "fatbin");
    return path;
}

static inline aclrtBinHandle kt_load(void)
{
    aclrtBinHandle bin = NULL;
    ACL_OK(aclrtBinaryLoadFromFile(kt_kernel_path(), NULL, &bin));
    ck_assert_ptr_nonnull(bin);
    return bin;
}

static inline aclrtFuncHandle kt_function(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;
    ACL_OK(aclrtBinaryGetFunction(bin, name, &f));
    ck_assert_ptr_nonnull(f);
    return f;
}

static inline void *kt_device(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static inline void *kt_pinned(size_t size)
{
    void *p = NULL;
    ACL_OK(aclrtMallocHost(&p, size));
    return p;
}

/* vector_add's parameters, laid out as the kernel takes them. */
typedef struct kt_vector_add_args {
    const float *x, *y;
    float *z;
    uint32_t n;
} kt_vector_add_args;

/* x[i] = i, y[i] = 2 * i on the device. */
static inline void kt_fill_inputs(float *x_dev, float *y_dev, uint32_t n)
{
    float *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (uint32_t i = 0; i < n; i++)
        h[i] = (float)i;
    ACL_OK(aclrtMemcpy(x_dev, n * sizeof *h, h, n * sizeof *h, ACL_MEMCPY_HOST_TO_DEVICE));
    for (uint32_t i = 0; i < n; i++)
        h[i] = 2.0f * (float)i;
    ACL_OK(aclrtMemcpy(y_dev, n * sizeof *h, h, n * sizeof *h, ACL_MEMCPY_HOST_TO_DEVICE));
    free(h);
}

/* Asserts z[i] == factor * 3 * i for all i (one assertion for all). */
static inline void kt_check_sum(const float *z_dev, uint32_t n, float factor)
{
    float *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    ACL_OK(aclrtMemcpy(h, n * sizeof *h, z_dev, n * sizeof *h, ACL_MEMCPY_DEVICE_TO_HOST));
    uint32_t bad = n;
    for (uint32_t i = 0; i < n && bad == n; i++)
        if (h[i] != factor * 3.0f * (float)i)
            bad = i;
    float got = bad < n ? h[bad] : 0;
    free(h);
    ck_assert_msg(bad == n, "z[%u] = %g, expected %g", bad, (double)got,
                  (double)(factor * 3.0f * (float)bad));
}

static inline void kt_read_i32(const int32_t *dev, int32_t *host, size_t n)
{
    ACL_OK(aclrtMemcpy(host, n * sizeof *host, dev, n * sizeof *host,
                       ACL_MEMCPY_DEVICE_TO_HOST));
}

#endif
