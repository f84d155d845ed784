/* Kernels: binaries, functions, argument lists, every launch style with
 * real results, the launch limits and errors, device variables, and the
 * built-in reduce and random-number tasks. The kernels are
 * tests/kernels/test_kernels.{c,cu}, loaded for the backend in use. */
#include <elf.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <unistd.h>

#include "kerneltest.h"

enum { N = 10000, BLOCKS = (N + 255) / 256 };

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

/* Device buffers for vector_add. */
typedef struct vectors {
    float *x, *y, *z;
} vectors;

static vectors vectors_make(void)
{
    vectors v = {kt_device(N * sizeof(float)), kt_device(N * sizeof(float)),
                 kt_device(N * sizeof(float))};
    kt_fill_inputs(v.x, v.y, N);
    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    return v;
}

static void vectors_free(vectors *v)
{
    ACL_OK(aclrtFree(v->x));
    ACL_OK(aclrtFree(v->y));
    ACL_OK(aclrtFree(v->z));
}

/* ---- binaries ---------------------------------------------------------------------- */

START_TEST(load_and_unload)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    /* The same name gives the same function. */
    aclrtFuncHandle again = kt_function(bin, "vector_add");
    ck_assert_ptr_eq(f, again);
    aclrtBinHandle owner = NULL;
    ACL_OK(aclrtFunctionGetBinary(f, &owner));
    ck_assert_ptr_eq(owner, bin);
    char name[64];
    ACL_OK(aclrtGetFunctionName(f, sizeof name, name));
    ck_assert_str_eq(name, "vector_add");
    ACL_FAILS_WITH(aclrtGetFunctionName(f, 5, name), ACL_ERROR_INVALID_PARAM);
    int64_t type = -1;
    ACL_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, &type));
    ck_assert_int_eq(type, ACL_KERNEL_TYPE_MIX);
    ACL_OK(aclrtBinaryUnLoad(bin));
    /* Its functions went with it. */
    ACL_FAILS_WITH(aclrtGetFunctionName(f, sizeof name, name), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 1, NULL, 0, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtBinaryUnLoad(bin), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(load_from_data_and_binary)
{
    FILE *f = fopen(kt_kernel_path(), "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc((size_t)size);
    ck_assert_int_eq(fread(data, 1, (size_t)size, f), size);
    fclose(f);

    aclrtBinHandle bin = NULL;
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, .value.isLazyLoad = 0};
    aclrtBinaryLoadOptions options = {.options = &opt, .numOpt = 1};
    ACL_OK(aclrtBinaryLoadFromData(data, (size_t)size, &options, &bin));
    void *addr = NULL;
    size_t bytes = 0;
    ACL_OK(aclrtBinaryGetDevAddress(bin, &addr, &bytes));
    ck_assert_ptr_nonnull(addr);
    ck_assert_uint_eq(bytes, (size_t)size);
    ACL_OK(aclrtBinaryUnLoad(bin));

    aclrtBinary binary = aclrtCreateBinary(data, (size_t)size);
    ck_assert_ptr_nonnull(binary);
    free(data); /* the binary holds its own copy */
    ACL_OK(aclrtBinaryLoad(binary, &bin));
    kt_function(bin, "empty");
    ACL_OK(aclrtBinaryUnLoad(bin));
    ACL_OK(aclrtDestroyBinary(binary));
    ACL_FAILS_WITH(aclrtBinaryLoad(binary, &bin), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtDestroyBinary(binary), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(bad_binaries)
{
    aclrtBinHandle bin = NULL;
    unsigned char junk[512];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    ACL_FAILS_WITH(aclrtBinaryLoadFromData(junk, sizeof junk, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    /* An ELF object of another processor, as an Ascend kernel binary is. */
    unsigned char elf[128] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    elf[18] = 0x34; /* e_machine: not x86-64, aarch64 or CUDA */
    elf[19] = 0x12;
    ACL_FAILS_WITH(aclrtBinaryLoadFromData(elf, sizeof elf, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    (void)msg;
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile("/nonexistent/kernel.o", NULL, &bin),
                   ACL_ERROR_INVALID_FILE);
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile(NULL, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtBinaryLoadFromData(junk, 0, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    /* AI CPU kernels have no counterpart. */
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE,
                                 .value.cpuKernelMode = 2};
    aclrtBinaryLoadOptions options = {.options = &opt, .numOpt = 1};
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile(kt_kernel_path(), &options, &bin),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    opt.type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
    opt.value.magic = 0x1234;
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile(kt_kernel_path(), &options, &bin),
                   ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(missing_symbols)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = NULL;
    ACL_FAILS_WITH(aclrtBinaryGetFunction(bin, "no_such_kernel", &f),
                   ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    /* A function the binary does not define itself (libc's) is not its kernel. */
    ACL_FAILS_WITH(aclrtBinaryGetFunction(bin, "memcpy", &f), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    void *p;
    size_t size;
    ACL_FAILS_WITH(aclrtBinaryGetGlobal(bin, "no_such_global", &p, &size),
                   ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    ACL_FAILS_WITH(aclrtBinaryGetFunctionByEntry(bin, 12345, &f), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(function_address_and_entry)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    void *aic = NULL, *aiv = (void *)1;
    ACL_OK(aclrtGetFunctionAddr(f, &aic, &aiv));
    ck_assert_ptr_nonnull(aic);
    ck_assert_ptr_null(aiv);
    aclrtFuncHandle by_entry = NULL;
    ACL_OK(aclrtBinaryGetFunctionByEntry(bin, (uint64_t)(uintptr_t)aic, &by_entry));
    ck_assert_ptr_eq(by_entry, f);
    size_t aic_size = 1, aiv_size = 1;
    ACL_OK(aclrtGetFunctionSize(f, &aic_size, &aiv_size));
    ck_assert_uint_eq(aiv_size, 0);
    if (kt_on_host())
        ck_assert_uint_gt(aic_size, 0);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(parameters_described)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "add_scalar");
    size_t count = 0;
    ACL_OK(aclrtFunctionGetParamCount(f, &count));
    ck_assert_uint_eq(count, 3);
    size_t offsets[3], sizes[3];
    for (size_t i = 0; i < 3; i++)
        ACL_OK(aclrtFunctionGetParamInfo(f, i, &offsets[i], &sizes[i]));
    /* int32_t *data, int32_t value, uint32_t n: a C struct's layout. */
    ck_assert_uint_eq(offsets[0], 0);
    ck_assert_uint_eq(sizes[0], 8);
    ck_assert_uint_eq(offsets[1], 8);
    ck_assert_uint_eq(sizes[1], 4);
    ck_assert_uint_eq(offsets[2], 12);
    ck_assert_uint_eq(sizes[2], 4);
    ACL_FAILS_WITH(aclrtFunctionGetParamInfo(f, 3, &offsets[0], &sizes[0]),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(global_variable)
{
    aclrtBinHandle bin = kt_load();
    int32_t *g = NULL;
    size_t size = 0;
    ACL_OK(aclrtBinaryGetGlobal(bin, "test_global", (void **)&g, &size));
    ck_assert_uint_eq(size, 4 * sizeof(int32_t));
    int32_t values[4];
    kt_read_i32(g, values, 4);
    ck_assert_int_eq(values[0], 11);
    ck_assert_int_eq(values[3], 44);
    /* Written through ACL, read by a kernel. */
    int32_t fresh[4] = {5, 6, 7, 8};
    ACL_OK(aclrtMemcpy(g, sizeof fresh, fresh, sizeof fresh, ACL_MEMCPY_DEFAULT));
    int32_t *out = kt_device(4 * sizeof(int32_t));
    aclrtFuncHandle f = kt_function(bin, "read_global");
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, NULL, NULL, &out, sizeof out, NULL, 0));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_read_i32(out, values, 4);
    ck_assert_int_eq(values[0], 5);
    ck_assert_int_eq(values[3], 8);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(two_loads_are_two_binaries)
{
    aclrtBinHandle first = kt_load(), second = kt_load();
    int32_t *g1 = NULL, *g2 = NULL;
    size_t size = 0;
    ACL_OK(aclrtBinaryGetGlobal(first, "test_global", (void **)&g1, &size));
    ACL_OK(aclrtBinaryGetGlobal(second, "test_global", (void **)&g2, &size));
    ck_assert_ptr_ne(g1, g2);
    int32_t fresh[4] = {5, 6, 7, 8}, values[4];
    ACL_OK(aclrtMemcpy(g1, sizeof fresh, fresh, sizeof fresh, ACL_MEMCPY_DEFAULT));
    kt_read_i32(g2, values, 4);
    ck_assert_int_eq(values[0], 11);
    /* A third load, after the first went, is a binary of its own too. */
    ACL_OK(aclrtBinaryUnLoad(first));
    aclrtBinHandle third = kt_load();
    int32_t *g3 = NULL;
    ACL_OK(aclrtBinaryGetGlobal(third, "test_global", (void **)&g3, &size));
    ACL_OK(aclrtMemcpy(g3, sizeof fresh, fresh, sizeof fresh, ACL_MEMCPY_DEFAULT));
    kt_read_i32(g2, values, 4);
    ck_assert_int_eq(values[0], 11);
    ACL_OK(aclrtBinaryUnLoad(second));
    ACL_OK(aclrtBinaryUnLoad(third));
}
END_TEST

/* ---- damaged binaries ------------------------------------------------------------------ */

static unsigned char *read_kernel_image(size_t *size)
{
    FILE *f = fopen(kt_kernel_path(), "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_assert_int_gt(n, 0);
    unsigned char *data = malloc((size_t)n);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(fread(data, 1, (size_t)n, f), n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* Loads n bytes of a damaged image (from their own buffer, so that a read
 * past them is a fault under ASan): loaded, then unloaded, or refused with
 * a message; on the host backend, as ACL_ERROR_INVALID_PARAM. */
static void load_damaged(const unsigned char *image, size_t n, size_t *loaded)
{
    unsigned char *copy = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, image, n);
    aclrtBinHandle bin = NULL;
    aclError err = aclrtBinaryLoadFromData(copy, n, NULL, &bin);
    free(copy);
    if (err == ACL_SUCCESS) {
        ACL_OK(aclrtBinaryUnLoad(bin));
        (*loaded)++;
        return;
    }
    const char *msg = aclGetRecentErrMsg();
    ck_assert_msg(msg && *msg, "a refused image (%zu bytes) left no message", n);
    if (kt_on_host())
        ck_assert_msg(err == ACL_ERROR_INVALID_PARAM, "a damaged image: %d (%s)", err, msg);
}

START_TEST(non_regular_files_are_refused)
{
    alarm(10); /* a FIFO once blocked the load forever */
    char dir[] = "/tmp/acl-kernel-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/kernel.o", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    aclrtBinHandle bin = NULL;
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile(fifo, NULL, &bin), ACL_ERROR_INVALID_FILE);
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile(dir, NULL, &bin), ACL_ERROR_INVALID_FILE);
    ACL_FAILS_WITH(aclrtBinaryLoadFromFile("/dev/null", NULL, &bin), ACL_ERROR_INVALID_FILE);
    ck_assert_int_eq(unlink(fifo), 0);
    ck_assert_int_eq(rmdir(dir), 0);
    alarm(0);
}
END_TEST

/* A binary handed over in memory is read through a probe: bytes that are
 * not there (a length past the mapping, an unmapped address) are refused
 * with ACL_ERROR_INVALID_PARAM, never a fault. */
START_TEST(unreadable_images_are_refused)
{
    FILE *f = fopen(kt_kernel_path(), "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    size_t size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (size + page - 1) / page * page;
    unsigned char *map =
        mmap(NULL, mapped + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(munmap(map + mapped, page), 0);
    /* The image ends where the mapping does. */
    unsigned char *image = map + mapped - size;
    ck_assert_uint_eq(fread(image, 1, size, f), size);
    fclose(f);

    aclrtBinHandle bin = NULL;
    ACL_FAILS_WITH(aclrtBinaryLoadFromData(image, size + 64, NULL, &bin), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtBinaryLoadFromData((void *)(uintptr_t)0x1000, 4096, NULL, &bin),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtBinaryLoadFromData(image, (size_t)1 << 31, NULL, &bin),
                   ACL_ERROR_INVALID_PARAM);
    ck_assert_ptr_null(aclrtCreateBinary(image, size + 64));
    ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "not readable"));
    ck_assert_ptr_null(aclrtCreateBinary((void *)(uintptr_t)0x1000, 100));
    ck_assert_ptr_null(aclrtCreateBinary(image, (size_t)1 << 31));
    /* The bytes that are there load. */
    ACL_OK(aclrtBinaryLoadFromData(image, size, NULL, &bin));
    ACL_OK(aclrtBinaryUnLoad(bin));
    aclrtBinary binary = aclrtCreateBinary(image, size);
    ck_assert_ptr_nonnull(binary);
    ACL_OK(aclrtDestroyBinary(binary));
    ck_assert_int_eq(munmap(map, mapped), 0);
}
END_TEST

START_TEST(truncated_images)
{
    size_t size, loaded = 0;
    unsigned char *image = read_kernel_image(&size);
    /* Every length through the headers, then a spread of them, then the
     * last bytes one by one. */
    for (size_t n = 0; n < size; n += n < 1024 ? 1 : n + 256 < size ? 61 : 1)
        load_damaged(image, n, &loaded);
    ck_assert_uint_eq(loaded, 0); /* the whole image ends in what is cut */
    free(image);
}
END_TEST

/* Whether byte `at` of the host image is worth damaging: what the dynamic
 * loader reads. Code, and the relocations, whose symbols and values are
 * what the object's own code later calls (damage there is damage to the
 * program, which no loader can tell), are left alone. */
static bool loader_reads(const unsigned char *image, size_t size, size_t at)
{
    Elf64_Ehdr h;
    memcpy(&h, image, sizeof h);
    for (size_t i = 0; i < h.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, image + h.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_NOBITS && at >= sh.sh_offset && at - sh.sh_offset < sh.sh_size &&
            ((sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL))
            return false;
    }
    return at < size;
}

START_TEST(bit_flipped_images)
{
    size_t size, loaded = 0;
    unsigned char *image = read_kernel_image(&size);
    unsigned char *damaged = malloc(size);
    ck_assert_ptr_nonnull(damaged);
    /* Every bit of the headers (ELF and program headers; a fatbin's own and
     * its first entry's), then one bit of each byte the loader reads (on
     * the cuda backend, of every 97th byte: a damaged cubin may send the
     * driver to compile the fatbin's PTX). */
    size_t headers = 80;
    if (kt_on_host()) {
        Elf64_Ehdr h;
        memcpy(&h, image, sizeof h);
        headers = h.e_phoff + (size_t)h.e_phnum * h.e_phentsize;
    }
    for (size_t at = 0; at < size; at += at < headers || kt_on_host() ? 1 : 97) {
        if (at >= headers && kt_on_host() && !loader_reads(image, size, at))
            continue;
        for (int bit = 0; bit < 8; bit++) {
            if (at >= headers && bit != (int)(at % 8))
                continue;
            memcpy(damaged, image, size);
            damaged[at] ^= (unsigned char)(1u << bit);
            load_damaged(damaged, size, &loaded);
        }
    }
    ck_assert_uint_gt(loaded, 0); /* many flips change nothing that matters */
    free(damaged);
    free(image);
}
END_TEST

/* ---- binaries unloaded with work in flight ----------------------------------------- */

/* A host function that holds its stream until the test lets it go. */
static void hold_stream(void *arg)
{
    atomic_int *gate = arg;
    while (!atomic_load(gate))
        usleep(100);
}

START_TEST(unload_with_launch_queued)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "increment");
    int32_t *counter = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(counter, sizeof(int32_t), 0, sizeof(int32_t)));
    aclrtStream s = acltest_new_stream();
    atomic_int gate = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &gate));
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &counter, sizeof counter, NULL, 0));
    /* Returns at once; the queued launch keeps the binary's code. */
    ACL_OK(aclrtBinaryUnLoad(bin));
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &counter, sizeof counter, NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    atomic_store(&gate, 1);
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t c = 0;
    kt_read_i32(counter, &c, 1);
    ck_assert_int_eq(c, 1);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(counter));
}
END_TEST

START_TEST(unload_with_kernel_running)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "store_after_flag");
    int32_t *flag = kt_pinned(sizeof(int32_t));
    *flag = 0;
    int32_t *out = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(out, sizeof(int32_t), 0, sizeof(int32_t)));
    aclrtStream s = acltest_new_stream();
    struct {
        int32_t *flag, *out;
    } args = {flag, out};
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &args, sizeof args, NULL, 0));
    ACL_OK(aclrtBinaryUnLoad(bin));
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t got = 0;
    kt_read_i32(out, &got, 1);
    ck_assert_int_eq(got, 1);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFreeHost(flag));
}
END_TEST

/* A model of one task: f incrementing a new zeroed counter, captured on a
 * new stream; its task in *task when task is not NULL. */
typedef struct counter_model {
    int32_t *counter;
    aclrtStream s;
    aclmdlRI model;
} counter_model;

static void counter_model_capture(aclrtFuncHandle f, counter_model *cm, aclmdlRITask *task)
{
    cm->counter = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(cm->counter, sizeof(int32_t), 0, sizeof(int32_t)));
    cm->s = acltest_new_stream();
    cm->model = NULL;
    ACL_OK(aclmdlRICaptureBegin(cm->s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, cm->s, NULL, &cm->counter, sizeof cm->counter, NULL,
                                         0));
    ACL_OK(aclmdlRICaptureEnd(cm->s, &cm->model));
    if (task) {
        uint32_t n = 1;
        ACL_OK(aclmdlRIGetTasksByStream(cm->s, task, &n));
        ck_assert_uint_eq(n, 1);
    }
}

static int32_t counter_model_count(const counter_model *cm)
{
    int32_t c = 0;
    kt_read_i32(cm->counter, &c, 1);
    return c;
}

static void counter_model_free(counter_model *cm)
{
    if (cm->model)
        ACL_OK(aclmdlRIDestroy(cm->model));
    ACL_OK(aclrtDestroyStream(cm->s));
    ACL_OK(aclrtFree(cm->counter));
}

START_TEST(unload_before_model_replay)
{
    aclrtBinHandle bin = kt_load();
    counter_model cm;
    counter_model_capture(kt_function(bin, "increment"), &cm, NULL);
    /* The model keeps the binary of the kernel it captured. */
    ACL_OK(aclrtBinaryUnLoad(bin));
    ACL_OK(aclmdlRIExecuteAsync(cm.model, cm.s));
    ACL_OK(aclmdlRIExecuteAsync(cm.model, cm.s));
    ACL_OK(aclrtSynchronizeStream(cm.s));
    ck_assert_int_eq(counter_model_count(&cm), 2);
    /* Destroyed with a replay queued: the replay still runs the kernel. */
    atomic_int gate = 0;
    ACL_OK(aclrtLaunchHostFunc(cm.s, hold_stream, &gate));
    ACL_OK(aclmdlRIExecuteAsync(cm.model, cm.s));
    ACL_OK(aclmdlRIDestroy(cm.model));
    cm.model = NULL;
    atomic_store(&gate, 1);
    ACL_OK(aclrtSynchronizeStream(cm.s));
    ck_assert_int_eq(counter_model_count(&cm), 3);
    counter_model_free(&cm);
}
END_TEST

/* Binaries loaded on the host backend: each is a memfd named acl-binary,
 * open while loaded (docs/backends.md); -1 on another backend. */
static int host_binaries_loaded(void)
{
    if (strcmp(aclcudaGetBackendName(), "host") != 0)
        return -1;
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char target[256];
        ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            count += strstr(target, "acl-binary") != NULL;
        }
    }
    closedir(d);
    return count;
}

/* A capture whose stream is destroyed before its end is abandoned; no end
 * will return its model, so what it captured goes at once: the binary of
 * its kernel unloads with its unload (it stayed loaded until aclFinalize).
 * The model's handle is still destroyed as usual. */
START_TEST(abandoned_capture_keeps_no_binary)
{
    int before = host_binaries_loaded();
    int32_t *counter = kt_device(sizeof(int32_t));
    for (int force = 0; force < 2; force++) {
        aclrtBinHandle bin = kt_load();
        aclrtFuncHandle f = kt_function(bin, "increment");
        aclrtStream s = acltest_new_stream();
        ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &counter, sizeof counter, NULL, 0));
        aclmdlRICaptureStatus status;
        aclmdlRI model = NULL;
        ACL_OK(aclmdlRICaptureGetInfo(s, &status, &model));
        ACL_OK(force ? aclrtDestroyStreamForce(s) : aclrtDestroyStream(s));
        ACL_OK(aclrtBinaryUnLoad(bin));
        ACL_OK(aclrtSynchronizeDevice());
        ck_assert_int_eq(host_binaries_loaded(), before);
        aclrtStream plain = acltest_new_stream();
        ACL_FAILS_WITH(aclmdlRIExecuteAsync(model, plain), ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclmdlRIDestroy(model));
        ACL_OK(aclrtDestroyStream(plain));
    }
    ACL_OK(aclrtFree(counter));
}
END_TEST

START_TEST(unload_with_stream_destroyed_by_force)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "increment");
    int32_t *counter = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(counter, sizeof(int32_t), 0, sizeof(int32_t)));
    aclrtStream s = acltest_new_stream();
    atomic_int gate = 0;
    ACL_OK(aclrtLaunchHostFunc(s, hold_stream, &gate));
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &counter, sizeof counter, NULL, 0));
    /* The stream goes first, its work still queued, then the binary. */
    ACL_OK(aclrtDestroyStreamForce(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
    atomic_store(&gate, 1);
    ACL_OK(aclrtSynchronizeDevice());
    int32_t c = 0;
    kt_read_i32(counter, &c, 1);
    ck_assert_int_eq(c, 1);
    ACL_OK(aclrtFree(counter));
}
END_TEST

START_TEST(unload_after_task_update_to_its_kernel)
{
    aclrtBinHandle first = kt_load(), second = kt_load();
    counter_model cm;
    aclmdlRITask task = NULL;
    counter_model_capture(kt_function(first, "increment"), &cm, &task);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(task, &p));
    /* The task now runs the second binary's kernel, which the model keeps. */
    p.kernelTaskParams.funcHandle = kt_function(second, "increment");
    p.kernelTaskParams.args = &cm.counter;
    p.kernelTaskParams.argsSize = sizeof cm.counter;
    p.kernelTaskParams.isHostArgs = 1;
    p.kernelTaskParams.cfg = NULL;
    ACL_OK(aclmdlRITaskSetParams(task, &p));
    ACL_OK(aclmdlRIUpdate(cm.model));
    ACL_OK(aclrtBinaryUnLoad(second));
    ACL_OK(aclmdlRIExecuteAsync(cm.model, cm.s));
    ACL_OK(aclrtSynchronizeStream(cm.s));
    ck_assert_int_eq(counter_model_count(&cm), 1);
    counter_model_free(&cm);
    ACL_OK(aclrtBinaryUnLoad(first));
}
END_TEST

/* aclmdlRITaskSetParams reads a kernel task's arguments as a launch does:
 * within CUDA's limit, and so that a bad pointer is an error, not a fault. */
START_TEST(task_params_arguments_are_checked)
{
    aclrtBinHandle bin = kt_load();
    counter_model cm;
    aclmdlRITask task = NULL;
    counter_model_capture(kt_function(bin, "increment"), &cm, &task);
    aclmdlRITaskParams p;
    ACL_OK(aclmdlRITaskGetParams(task, &p));
    p.kernelTaskParams.cfg = NULL;
    p.kernelTaskParams.isHostArgs = 1;
    p.kernelTaskParams.args = (void *)(uintptr_t)0x1000;
    p.kernelTaskParams.argsSize = sizeof cm.counter;
    ACL_FAILS_WITH(aclmdlRITaskSetParams(task, &p), ACL_ERROR_INVALID_PARAM);
    p.kernelTaskParams.args = &cm.counter;
    p.kernelTaskParams.argsSize = (size_t)1 << 30;
    ACL_FAILS_WITH(aclmdlRITaskSetParams(task, &p), ACL_ERROR_INVALID_PARAM);
    void *freed = kt_device(64);
    ACL_OK(aclrtFree(freed));
    p.kernelTaskParams.args = freed;
    p.kernelTaskParams.argsSize = sizeof cm.counter;
    ACL_FAILS_WITH(aclmdlRITaskSetParams(task, &p), ACL_ERROR_INVALID_PARAM);
    /* The task is as it was, and takes good arguments. */
    p.kernelTaskParams.args = &cm.counter;
    ACL_OK(aclmdlRITaskSetParams(task, &p));
    ACL_OK(aclmdlRIUpdate(cm.model));
    ACL_OK(aclmdlRIExecuteAsync(cm.model, cm.s));
    ACL_OK(aclrtSynchronizeStream(cm.s));
    ck_assert_int_eq(counter_model_count(&cm), 1);
    counter_model_free(&cm);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* Launches increment on a stream until the function is unloaded, with its
 * arguments in host memory and in device memory by turns. */
typedef struct launcher {
    aclrtContext ctx;
    aclrtFuncHandle f;
    aclrtStream s;
    int32_t *counter;
    void *dev_args;
    atomic_int launched;
} launcher;

static void *launch_until_unloaded(void *arg)
{
    launcher *l = arg;
    ACL_OK(aclrtSetCurrentContext(l->ctx));
    for (int i = 0;; i++) {
        aclError err = i % 2 ? aclrtLaunchKernel(l->f, 1, l->dev_args, sizeof l->counter, l->s)
                             : aclrtLaunchKernelWithHostArgs(l->f, 1, l->s, NULL, &l->counter,
                                                             sizeof l->counter, NULL, 0);
        if (err != ACL_SUCCESS) {
            ck_assert_int_eq(err, ACL_ERROR_INVALID_PARAM);
            return NULL;
        }
        atomic_fetch_add(&l->launched, 1);
    }
}

START_TEST(unload_while_another_thread_launches)
{
    for (int round = 0; round < 20; round++) {
        aclrtBinHandle bin = kt_load();
        launcher l = {.f = kt_function(bin, "increment"), .s = acltest_new_stream()};
        ACL_OK(aclrtGetCurrentContext(&l.ctx));
        l.counter = kt_device(sizeof(int32_t));
        ACL_OK(aclrtMemset(l.counter, sizeof(int32_t), 0, sizeof(int32_t)));
        l.dev_args = kt_device(sizeof l.counter);
        ACL_OK(aclrtMemcpy(l.dev_args, sizeof l.counter, &l.counter, sizeof l.counter,
                           ACL_MEMCPY_HOST_TO_DEVICE));
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, launch_until_unloaded, &l), 0);
        while (atomic_load(&l.launched) < round)
            sched_yield();
        ACL_OK(aclrtBinaryUnLoad(bin));
        pthread_join(t, NULL);
        ACL_OK(aclrtSynchronizeStream(l.s));
        int32_t c = 0;
        kt_read_i32(l.counter, &c, 1);
        ck_assert_int_eq(c, atomic_load(&l.launched));
        ACL_OK(aclrtDestroyStream(l.s));
        ACL_OK(aclrtFree(l.counter));
        ACL_OK(aclrtFree(l.dev_args));
    }
}
END_TEST

/* Builds argument lists of "increment" and appends to them until the
 * function is unloaded: each call works, or is refused, on a list whose
 * function is still there (a list holds it). */
static void *append_until_unloaded(void *arg)
{
    launcher *l = arg;
    ACL_OK(aclrtSetCurrentContext(l->ctx));
    for (;;) {
        aclrtArgsHandle args;
        aclError err = aclrtKernelArgsInit(l->f, &args);
        for (int i = 0; err == ACL_SUCCESS && i < 8; i++) {
            aclrtParamHandle param;
            err = aclrtKernelArgsAppend(args, &l->counter, sizeof l->counter, &param);
            if (err == ACL_ERROR_INVALID_PARAM && i > 0)
                err = ACL_SUCCESS; /* one parameter only: the list is full */
        }
        if (err != ACL_SUCCESS) {
            ck_assert_int_eq(err, ACL_ERROR_INVALID_PARAM);
            return NULL;
        }
        atomic_fetch_add(&l->launched, 1);
    }
}

START_TEST(unload_while_other_threads_append_arguments)
{
    for (int round = 0; round < 20; round++) {
        aclrtBinHandle bin = kt_load();
        launcher l = {.f = kt_function(bin, "increment")};
        ACL_OK(aclrtGetCurrentContext(&l.ctx));
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(pthread_create(&t[i], NULL, append_until_unloaded, &l), 0);
        while (atomic_load(&l.launched) < round)
            sched_yield();
        ACL_OK(aclrtBinaryUnLoad(bin));
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
    }
}
END_TEST

/* Makes handles of a binary until its unload refuses them: argument lists
 * of one of its functions, or (functions) the function itself looked up
 * again. The last one made is kept. */
typedef struct handle_maker {
    aclrtContext ctx;
    aclrtBinHandle bin;
    aclrtFuncHandle f;
    bool functions;
    atomic_int made;
    void *last;
} handle_maker;

static void *make_until_unloaded(void *arg)
{
    handle_maker *m = arg;
    ACL_OK(aclrtSetCurrentContext(m->ctx));
    for (;;) {
        void *h = NULL;
        aclError err = m->functions ? aclrtBinaryGetFunction(m->bin, "increment", &h)
                                    : aclrtKernelArgsInit(m->f, &h);
        if (err != ACL_SUCCESS) {
            ck_assert_int_eq(err, ACL_ERROR_INVALID_PARAM);
            return NULL;
        }
        m->last = h;
        atomic_fetch_add(&m->made, 1);
    }
}

/* What is made while a binary unloads goes with it: a list or a function
 * made in the window stayed live, and kept the binary loaded, while
 * another list held the function. */
START_TEST(handles_made_during_an_unload_go_with_it)
{
    for (int round = 0; round < 100; round++) {
        aclrtBinHandle bin = kt_load();
        handle_maker lists = {.bin = bin, .f = kt_function(bin, "increment")};
        handle_maker functions = {.bin = bin, .functions = true};
        ACL_OK(aclrtGetCurrentContext(&lists.ctx));
        functions.ctx = lists.ctx;
        aclrtArgsHandle held; /* holds the function across the unload */
        ACL_OK(aclrtKernelArgsInit(lists.f, &held));
        pthread_t t[2];
        ck_assert_int_eq(pthread_create(&t[0], NULL, make_until_unloaded, &lists), 0);
        ck_assert_int_eq(pthread_create(&t[1], NULL, make_until_unloaded, &functions), 0);
        while (atomic_load(&lists.made) < 1 + round % 8 || atomic_load(&functions.made) < 1)
            sched_yield();
        ACL_OK(aclrtBinaryUnLoad(bin));
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        aclrtParamHandle p;
        int32_t value = 0;
        ACL_FAILS_WITH(aclrtKernelArgsAppend(lists.last, &value, sizeof value, &p),
                       ACL_ERROR_INVALID_PARAM);
        ACL_FAILS_WITH(aclrtKernelArgsAppend(held, &value, sizeof value, &p),
                       ACL_ERROR_INVALID_PARAM);
        aclrtArgsHandle late;
        ACL_FAILS_WITH(aclrtKernelArgsInit(functions.last, &late), ACL_ERROR_INVALID_PARAM);
    }
}
END_TEST

/* ---- every launch style ------------------------------------------------------------- */

START_TEST(launch_with_device_args)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    vectors v = vectors_make();
    aclrtStream s = acltest_new_stream();
    kt_vector_add_args a = {v.x, v.y, v.z, N};
    /* ACL's form: the packed arguments in device memory. */
    void *dev_args = kt_device(sizeof a);
    ACL_OK(aclrtMemcpy(dev_args, sizeof a, &a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtLaunchKernel(f, BLOCKS, dev_args, sizeof a, s));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_check_sum(v.z, N, 1.0f);
    /* Arguments written by the stream's own earlier work are read after it. */
    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    kt_vector_add_args *staged = kt_pinned(sizeof a);
    *staged = a;
    void *dev_args2 = kt_device(sizeof a);
    ACL_OK(aclrtMemcpyAsync(dev_args2, sizeof a, staged, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE, s));
    ACL_OK(aclrtLaunchKernelV2(f, BLOCKS, dev_args2, sizeof a, NULL, s));
    ACL_OK(aclrtSynchronizeStream(s));
    kt_check_sum(v.z, N, 1.0f);
    ACL_OK(aclrtFree(dev_args));
    ACL_OK(aclrtFree(dev_args2));
    ACL_OK(aclrtFreeHost(staged));
    ACL_OK(aclrtDestroyStream(s));
    vectors_free(&v);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(launch_with_host_args_and_config)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    vectors v = vectors_make();
    kt_vector_add_args a = {v.x, v.y, v.z, N};
    /* A host buffer, a launch shape of our own, and ACL's attributes. */
    aclrtLaunchKernelAttr attrs[] = {
        {.id = ACLCUDA_LAUNCH_KERNEL_ATTR_BLOCK_DIM, .value.rsv = {128, 1, 1, 0}},
        {.id = ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, .value.engineType = ACL_RT_ENGINE_TYPE_AIV},
        {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value.timeout = 5},
        {.id = ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH, .value.isBlockTaskPrefetch = 1},
    };
    aclrtLaunchKernelCfg cfg = {.attrs = attrs, .numAttrs = 4};
    ACL_OK(aclrtLaunchKernelV2(f, (N + 127) / 128, &a, sizeof a, &cfg, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);
    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, 7, NULL, NULL, &a, sizeof a, NULL, 0));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);
    /* Attributes CUDA cannot honour, or that contradict each other. */
    aclrtLaunchKernelAttr offset = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET,
                                    .value.blockDimOffset = 4};
    aclrtLaunchKernelCfg bad = {.attrs = &offset, .numAttrs = 1};
    ACL_FAILS_WITH(aclrtLaunchKernelV2(f, 1, &a, sizeof a, &bad, NULL),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtLaunchKernelAttr both[] = {
        {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, .value.timeout = 5},
        {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, .value.timeoutUs = {5, 0}},
    };
    bad = (aclrtLaunchKernelCfg){.attrs = both, .numAttrs = 2};
    ACL_FAILS_WITH(aclrtLaunchKernelV2(f, 1, &a, sizeof a, &bad, NULL), ACL_ERROR_INVALID_PARAM);
    aclrtLaunchKernelAttr unknown = {.id = (aclrtLaunchKernelAttrId)77};
    bad = (aclrtLaunchKernelCfg){.attrs = &unknown, .numAttrs = 1};
    ACL_FAILS_WITH(aclrtLaunchKernelV2(f, 1, &a, sizeof a, &bad, NULL), ACL_ERROR_INVALID_PARAM);
    vectors_free(&v);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(launch_with_args_handle)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    vectors v = vectors_make();
    aclrtArgsHandle args = NULL;
    ACL_OK(aclrtKernelArgsInit(f, &args));
    aclrtParamHandle px, py, pz, pn;
    uint32_t n = N;
    ACL_OK(aclrtKernelArgsAppend(args, &v.x, sizeof v.x, &px));
    ACL_OK(aclrtKernelArgsAppend(args, &v.y, sizeof v.y, &py));
    ACL_OK(aclrtKernelArgsAppend(args, &v.z, sizeof v.z, &pz));
    /* Not finalized yet: refused. */
    ACL_FAILS_WITH(aclrtLaunchKernelWithConfig(f, BLOCKS, NULL, NULL, args, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtKernelArgsAppend(args, &n, sizeof n, &pn));
    ACL_OK(aclrtKernelArgsFinalize(args));
    ACL_OK(aclrtLaunchKernelWithConfig(f, BLOCKS, NULL, NULL, args, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);
    /* Update a parameter: half the elements; finalize again. */
    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    n = N / 2;
    ACL_OK(aclrtKernelArgsParaUpdate(args, pn, &n, sizeof n));
    ACL_FAILS_WITH(aclrtLaunchKernelWithConfig(f, BLOCKS, NULL, NULL, args, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtKernelArgsFinalize(args));
    ACL_OK(aclrtLaunchKernelWithConfig(f, BLOCKS, NULL, NULL, args, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N / 2, 1.0f);
    float tail;
    ACL_OK(aclrtMemcpy(&tail, sizeof tail, v.z + N - 1, sizeof tail, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert(tail == 0.0f);
    /* Wrong sizes are refused where the kernel describes its parameters. */
    uint64_t wide = 1;
    ACL_FAILS_WITH(aclrtKernelArgsParaUpdate(args, pn, &wide, sizeof wide),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtKernelArgsParaUpdate(args, (aclrtParamHandle)(uintptr_t)99, &n, sizeof n),
                   ACL_ERROR_INVALID_PARAM);
    aclrtArgsHandle other = NULL;
    ACL_OK(aclrtKernelArgsInit(f, &other));
    aclrtParamHandle p;
    ACL_FAILS_WITH(aclrtKernelArgsAppend(other, &n, sizeof n, &p), ACL_ERROR_INVALID_PARAM);
    vectors_free(&v);
    ACL_OK(aclrtBinaryUnLoad(bin));
    /* The lists went with the binary. */
    ACL_FAILS_WITH(aclrtKernelArgsFinalize(args), ACL_ERROR_INVALID_PARAM);
}
END_TEST

/* The first and last of the N floats at dev (read through host) are value. */
static void expect_first_and_last(const float *dev, float *host, float value)
{
    ACL_OK(aclrtMemcpy(host, N * sizeof(float), dev, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(host[0] == value && host[N - 1] == value, "got %g and %g, expected %g",
                  (double)host[0], (double)host[N - 1], (double)value);
}

START_TEST(launch_with_user_memory_and_placeholders)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    float *data = kt_device(N * sizeof(float));
    float *ones = malloc(N * sizeof *ones);
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    ACL_OK(
        aclrtMemcpy(data, N * sizeof(float), ones, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
    size_t handle_size = 0, mem_size = 0;
    ACL_OK(aclrtKernelArgsGetHandleMemSize(f, &handle_size));
    ACL_OK(aclrtKernelArgsGetMemSize(f, 8 + 8 + 8 + 64, &mem_size));
    ck_assert_uint_ge(mem_size, 88);
    void *handle_mem = malloc(handle_size);
    void *mem = malloc(mem_size);
    ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem, mem, mem_size));
    aclrtArgsHandle args = handle_mem; /* the caller's memory names the list */
    aclrtParamHandle pd, pf, pn;
    uint32_t n = N;
    ACL_OK(aclrtKernelArgsAppend(args, &data, sizeof data, &pd));
    ACL_OK(aclrtKernelArgsAppendPlaceHolder(args, &pf));
    ACL_OK(aclrtKernelArgsAppend(args, &n, sizeof n, &pn));
    float *factor = NULL;
    ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, pf, sizeof *factor, (void **)&factor));
    ck_assert_ptr_nonnull(factor);
    *factor = 3.0f;
    ACL_OK(aclrtKernelArgsFinalize(args));
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtLaunchKernelWithConfig(f, BLOCKS, s, NULL, args, NULL));
    /* The placeholder's data was copied with the launch. */
    *factor = 100.0f;
    ACL_OK(aclrtLaunchKernelWithConfig(f, BLOCKS, s, NULL, args, NULL));
    ACL_OK(aclrtSynchronizeStream(s));
    expect_first_and_last(data, ones, 300.0f);
    /* A parameter appended as a value is not a placeholder. */
    void *buf;
    ACL_FAILS_WITH(aclrtKernelArgsGetPlaceHolderBuffer(args, pd, 4, &buf), ACL_ERROR_INVALID_PARAM);
    /* The data asked for before the last parameter is appended lies after
     * all of the kernel's parameters: the append does not land on it. */
    void *handle_mem2 = malloc(handle_size), *mem2 = malloc(mem_size);
    ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem2, mem2, mem_size));
    aclrtArgsHandle early = handle_mem2;
    ACL_OK(aclrtKernelArgsAppend(early, &data, sizeof data, &pd));
    ACL_OK(aclrtKernelArgsAppendPlaceHolder(early, &pf));
    ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(early, pf, sizeof *factor, (void **)&factor));
    *factor = 2.0f;
    ACL_OK(aclrtKernelArgsAppend(early, &n, sizeof n, &pn));
    ck_assert(*factor == 2.0f);
    ACL_OK(aclrtKernelArgsFinalize(early));
    ACL_OK(aclrtLaunchKernelWithConfig(f, BLOCKS, s, NULL, early, NULL));
    ACL_OK(aclrtSynchronizeStream(s));
    expect_first_and_last(data, ones, 600.0f);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(data));
    ACL_OK(aclrtBinaryUnLoad(bin));
    free(ones);
    free(mem);
    free(handle_mem);
    free(mem2);
    free(handle_mem2);
}
END_TEST

START_TEST(launch_with_host_args_placeholders)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    float *data = kt_device(N * sizeof(float));
    float *host = malloc(N * sizeof *host);
    for (int i = 0; i < N; i++)
        host[i] = 2.0f;
    ACL_OK(
        aclrtMemcpy(data, N * sizeof(float), host, N * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
    /* The parameters, then the placeholder's data at dataOffset 32. */
    unsigned char buf[48] = {0};
    uint32_t n = N;
    float factor = 0.5f;
    memcpy(buf, &data, 8);
    memcpy(buf + 16, &n, 4);
    memcpy(buf + 32, &factor, 4);
    aclrtPlaceHolderInfo ph = {.addrOffset = 8, .dataOffset = 32};
    ACL_OK(aclrtLaunchKernelWithHostArgs(f, BLOCKS, NULL, NULL, buf, sizeof buf, &ph, 1));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(
        aclrtMemcpy(host, N * sizeof(float), data, N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_msg(host[0] == 1.0f && host[N - 1] == 1.0f, "got %g", (double)host[0]);
    /* A placeholder outside the buffer. */
    ph.addrOffset = 44;
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(f, BLOCKS, NULL, NULL, buf, sizeof buf, &ph, 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(data));
    free(host);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(launch_with_args_array_and_simt)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    vectors v = vectors_make();
    uint32_t n = N;
    void *array[] = {&v.x, &v.y, &v.z, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(f, BLOCKS, NULL, NULL, array));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);

    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    dim3 grid = {4, 2, 1}, block = {64, 2, 1};
    ACL_OK(aclrtLaunchSIMTKernelWithArgsArray(f, grid, block, 0, NULL, NULL, array));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);

    ACL_OK(aclrtMemset(v.z, N * sizeof(float), 0, N * sizeof(float)));
    kt_vector_add_args a = {v.x, v.y, v.z, N};
    ACL_OK(aclrtLaunchSIMTKernelWithHostArgs(f, grid, block, 0, NULL, NULL, &a, sizeof a, NULL, 0));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);
    dim3 zero = {0, 1, 1};
    ACL_FAILS_WITH(aclrtLaunchSIMTKernelWithArgsArray(f, zero, block, 0, NULL, NULL, array),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchSIMTKernelWithArgsArray(f, grid, zero, 0, NULL, NULL, array),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(f, 1, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    vectors_free(&v);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(block_shape_extension)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    uint32_t x, y, z;
    size_t shared;
    ACL_OK(aclcudaFunctionGetBlockDim(f, &x, &y, &z, &shared));
    ck_assert_uint_ge(x, 1);
    ck_assert_uint_le(x, ACLCUDA_DEFAULT_BLOCK_THREADS);
    ck_assert_uint_eq(y, 1);
    ck_assert_uint_eq(shared, 0);
    ACL_OK(aclcudaFunctionSetBlockDim(f, 32, 2, 1, 0));
    ACL_OK(aclcudaFunctionGetBlockDim(f, &x, &y, &z, &shared));
    ck_assert_uint_eq(x, 32);
    ck_assert_uint_eq(y, 2);
    vectors v = vectors_make();
    kt_vector_add_args a = {v.x, v.y, v.z, N};
    ACL_OK(aclrtLaunchKernel(f, 3, &a, sizeof a, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    kt_check_sum(v.z, N, 1.0f);
    ACL_FAILS_WITH(aclcudaFunctionSetBlockDim(f, 0, 2, 1, 0), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclcudaFunctionSetBlockDim(f, 0, 0, 0, 0));
    ACL_OK(aclcudaFunctionGetBlockDim(f, &x, &y, &z, &shared));
    ck_assert_uint_eq(y, 1);
    vectors_free(&v);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* ---- limits and errors ---------------------------------------------------------------- */

START_TEST(wrong_args_size)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "vector_add");
    kt_vector_add_args a = {0};
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 1, &a, 8, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(f, 1, NULL, NULL, &a, 16, NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 1, NULL, sizeof a, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* add_pair's parameters. */
typedef struct pair_args {
    int32_t *out;
    int32_t a, b;
} pair_args;

/* An argument buffer of `size` bytes whose end is the end of readable
 * memory: the page after it is not mapped. */
static unsigned char *buffer_before_a_hole(size_t size, void **mapping)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *m =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    ck_assert_int_eq(munmap(m + page, (size_t)page), 0);
    *mapping = m;
    return m + page - size;
}

START_TEST(argument_sizes_beyond_the_limit)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle pair = kt_function(bin, "add_pair");
    aclrtStream s = acltest_new_stream();
    unsigned char small[8] = {0};
    /* 32764 bytes: CUDA's limit on a kernel's parameters. */
    ACL_FAILS_WITH(aclrtLaunchKernel(pair, 1, small, (size_t)1 << 30, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(pair, 1, small, 32765, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelV2(pair, 1, small, 32765, NULL, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(pair, 1, s, NULL, small, (size_t)1 << 30, NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    aclrtArgsHandle args = NULL;
    ACL_OK(aclrtKernelArgsInit(pair, &args));
    aclrtParamHandle param = NULL;
    if (kt_on_host()) /* add_pair describes its parameters on CUDA: sizes are its own */
        ACL_FAILS_WITH(aclrtKernelArgsAppend(args, small, (size_t)1 << 30, &param),
                       ACL_ERROR_INVALID_PARAM);
    size_t handle_size = 0;
    ACL_OK(aclrtKernelArgsGetHandleMemSize(pair, &handle_size));
    void *handle_mem = calloc(1, handle_size);
    ACL_FAILS_WITH(aclrtKernelArgsInitByUserMem(pair, handle_mem, small, (size_t)1 << 30),
                   ACL_ERROR_INVALID_PARAM);
    free(handle_mem);
    /* A size no list takes gets no size back (it wrapped to 0 once). */
    size_t mem_size = 0;
    ACL_FAILS_WITH(aclrtKernelArgsGetMemSize(pair, SIZE_MAX, &mem_size), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtKernelArgsGetMemSize(pair, (size_t)1 << 30, &mem_size),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtKernelArgsGetMemSize(pair, 100, &mem_size));
    ck_assert_uint_ge(mem_size, 100);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(unreadable_arguments_are_refused)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle pair = kt_function(bin, "add_pair");
    aclrtStream s = acltest_new_stream();
    void *bad = (void *)(uintptr_t)0x1000;
    ACL_FAILS_WITH(aclrtLaunchKernel(pair, 1, bad, sizeof(pair_args), s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(pair, 1, s, NULL, bad, sizeof(pair_args), NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    /* 8 readable bytes declared as the whole 16. */
    void *mapping;
    unsigned char *edge = buffer_before_a_hole(8, &mapping);
    ACL_FAILS_WITH(
        aclrtLaunchKernelWithHostArgs(pair, 1, s, NULL, edge, sizeof(pair_args), NULL, 0),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(pair, 1, edge, sizeof(pair_args), s), ACL_ERROR_INVALID_PARAM);
    /* Pointers of an argument array, and what they point at. */
    int32_t *out = kt_device(sizeof(int32_t));
    int32_t a = 2;
    void *array[3] = {&out, &a, bad};
    aclrtFuncHandle add = kt_function(bin, "add_scalar");
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(add, 1, s, NULL, array), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(add, 1, s, NULL, (void **)bad),
                   ACL_ERROR_INVALID_PARAM);
    /* Device memory is no host memory. */
    void *dev_args = kt_device(sizeof(pair_args));
    ACL_FAILS_WITH(
        aclrtLaunchKernelWithHostArgs(pair, 1, s, NULL, dev_args, sizeof(pair_args), NULL, 0),
        ACL_ERROR_INVALID_PARAM);
    /* A parameter's value. */
    aclrtArgsHandle args = NULL;
    ACL_OK(aclrtKernelArgsInit(pair, &args));
    aclrtParamHandle param = NULL;
    ACL_FAILS_WITH(aclrtKernelArgsAppend(args, bad, sizeof out, &param), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtKernelArgsAppend(args, &out, sizeof out, &param));
    ACL_FAILS_WITH(aclrtKernelArgsParaUpdate(args, param, bad, sizeof out),
                   ACL_ERROR_INVALID_PARAM);
    /* The same arguments, readable, do run. */
    pair_args good = {out, 2, 3};
    memcpy(edge - 8, &good, sizeof good);
    ACL_OK(aclrtLaunchKernelWithHostArgs(pair, 1, s, NULL, edge - 8, sizeof good, NULL, 0));
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t got = 0;
    kt_read_i32(out, &got, 1);
    ck_assert_int_eq(got, 5);
    ck_assert_int_eq(munmap(mapping, (size_t)sysconf(_SC_PAGESIZE)), 0);
    ACL_OK(aclrtFree(dev_args));
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(freed_device_memory_as_arguments)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle pair = kt_function(bin, "add_pair");
    aclrtStream s = acltest_new_stream();
    int32_t *out = kt_device(sizeof(int32_t));
    ACL_OK(aclrtMemset(out, sizeof(int32_t), 0, sizeof(int32_t)));
    pair_args good = {out, 4, 5};
    void *dev_args = kt_device(sizeof good);
    ACL_OK(aclrtMemcpy(dev_args, sizeof good, &good, sizeof good, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtLaunchKernel(pair, 1, dev_args, sizeof good, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtFree(dev_args));
    ACL_FAILS_WITH(aclrtLaunchKernel(pair, 1, dev_args, sizeof good, s), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(s));
    int32_t got = 0;
    kt_read_i32(out, &got, 1);
    ck_assert_int_eq(got, 9);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(user_memory_lists_must_be_there)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle pair = kt_function(bin, "add_pair");
    size_t handle_size = 0;
    ACL_OK(aclrtKernelArgsGetHandleMemSize(pair, &handle_size));
    void *handle_mem = calloc(1, handle_size);
    void *mapping;
    unsigned char *edge = buffer_before_a_hole(8, &mapping);
    /* 8 bytes of memory declared as 64. */
    ACL_FAILS_WITH(aclrtKernelArgsInitByUserMem(pair, handle_mem, edge, 64),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtKernelArgsInitByUserMem(pair, handle_mem, (void *)(uintptr_t)0x1000, 64),
                   ACL_ERROR_INVALID_PARAM);
    ck_assert_int_eq(munmap(mapping, (size_t)sysconf(_SC_PAGESIZE)), 0);
    free(handle_mem);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* Zeroed handle memory of f's size for a list in the caller's memory
 * (aclrtKernelArgsInitByUserMem); the caller frees it. */
static void *args_handle_memory(aclrtFuncHandle f)
{
    size_t handle_size = 0;
    ACL_OK(aclrtKernelArgsGetHandleMemSize(f, &handle_size));
    void *handle_mem = calloc(1, handle_size);
    ck_assert_ptr_nonnull(handle_mem);
    return handle_mem;
}

/* A list in the caller's memory: its placeholder data must fit after its
 * parameters, however large the size asked for (a size near SIZE_MAX
 * wrapped the bound and corrupted the heap at the launch). */
START_TEST(user_memory_placeholder_sizes_are_bounded)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    void *handle_mem = args_handle_memory(f);
    unsigned char mem[256];
    ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem, mem, sizeof mem));
    aclrtArgsHandle args = handle_mem;
    aclrtParamHandle ph;
    ACL_OK(aclrtKernelArgsAppendPlaceHolder(args, &ph));
    void *buf = NULL;
    const size_t huge[] = {SIZE_MAX, SIZE_MAX - 7, SIZE_MAX / 2, sizeof mem};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        ACL_FAILS_WITH(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, huge[i], &buf),
                       ACL_ERROR_INVALID_PARAM);
        ck_assert_ptr_null(buf);
    }
    ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, 64, &buf));
    ck_assert_ptr_nonnull(buf);
    /* A list on the heap takes no more than a launch does. */
    aclrtArgsHandle heap;
    ACL_OK(aclrtKernelArgsInit(f, &heap));
    ACL_OK(aclrtKernelArgsAppendPlaceHolder(heap, &ph));
    ACL_FAILS_WITH(aclrtKernelArgsGetPlaceHolderBuffer(heap, ph, SIZE_MAX, &buf),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtBinaryUnLoad(bin));
    free(handle_mem);
}
END_TEST

/* The caller's list memory unmapped after the list was made: the list's
 * writes fail with ACL_ERROR_INVALID_PARAM instead of faulting. */
START_TEST(user_memory_unmapped_after_init)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    void *handle_mem = args_handle_memory(f);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(mem, MAP_FAILED);
    ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem, mem, page));
    aclrtArgsHandle args = handle_mem;
    aclrtParamHandle p;
    uint64_t value = 7;
    ACL_OK(aclrtKernelArgsAppend(args, &value, sizeof value, &p));
    ck_assert_int_eq(munmap(mem, page), 0);
    aclrtParamHandle q;
    ACL_FAILS_WITH(aclrtKernelArgsAppend(args, &value, sizeof value, &q), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtKernelArgsAppendPlaceHolder(args, &q), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtKernelArgsParaUpdate(args, p, &value, sizeof value),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtBinaryUnLoad(bin));
    free(handle_mem);
}
END_TEST

static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* Initialising the same handle memory again replaces its list: the old
 * one goes, so a program that does it per launch does not grow. */
START_TEST(user_memory_lists_replaced_in_place)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    void *handle_mem = args_handle_memory(f);
    unsigned char mem[256];
    ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem, mem, sizeof mem));
    long before = resident_kib();
    enum { ROUNDS = 20000 };
    for (int i = 0; i < ROUNDS; i++) {
        ACL_OK(aclrtKernelArgsInitByUserMem(f, handle_mem, mem, sizeof mem));
        aclrtParamHandle p;
        uint64_t value = (uint64_t)i;
        ACL_OK(aclrtKernelArgsAppend(handle_mem, &value, sizeof value, &p));
    }
    long grown = resident_kib() - before;
    /* A list kept per round would be some 4 KiB each: 80 MiB. */
    ck_assert_msg(grown < 16 * 1024, "%d re-initialisations grew the process by %ld KiB", ROUNDS,
                  grown);
    ACL_OK(aclrtBinaryUnLoad(bin));
    free(handle_mem);
}
END_TEST

/* Many lists in the caller's memory live at once: each handle memory names
 * its own list (the parameter lands in that list's memory), and none
 * names one after the binary is unloaded. */
START_TEST(user_memory_lists_each_named_by_their_handle)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "scale");
    size_t handle_size = 0;
    ACL_OK(aclrtKernelArgsGetHandleMemSize(f, &handle_size));
    enum { LISTS = 3000, LIST_BYTES = 64 };
    unsigned char *handles = calloc(LISTS, handle_size);
    uint64_t *mem = calloc(LISTS, LIST_BYTES);
    ck_assert(handles && mem);
    for (size_t i = 0; i < LISTS; i++)
        ACL_OK(aclrtKernelArgsInitByUserMem(f, handles + i * handle_size,
                                            (unsigned char *)mem + i * LIST_BYTES, LIST_BYTES));
    /* Appended in another order than made. */
    for (size_t k = 0; k < LISTS; k++) {
        size_t i = (k * 7919) % LISTS;
        aclrtParamHandle p;
        uint64_t value = 1000000 + i;
        ACL_OK(aclrtKernelArgsAppend(handles + i * handle_size, &value, sizeof value, &p));
    }
    for (size_t i = 0; i < LISTS; i++)
        ck_assert_uint_eq(mem[i * (LIST_BYTES / sizeof *mem)], 1000000 + i);
    ACL_OK(aclrtBinaryUnLoad(bin));
    aclrtParamHandle p;
    uint64_t value = 0;
    ACL_FAILS_WITH(aclrtKernelArgsAppend(handles, &value, sizeof value, &p),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtKernelArgsAppend(handles + (LISTS - 1) * handle_size, &value, sizeof value, &p),
        ACL_ERROR_INVALID_PARAM);
    free(handles);
    free(mem);
}
END_TEST

START_TEST(block_count_limits)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "last_block");
    /* One thread per block: this is about the grid. */
    ACL_OK(aclcudaFunctionSetBlockDim(f, 1, 1, 1, 0));
    uint32_t *out = kt_device(2 * sizeof(uint32_t));
    const uint32_t counts[] = {1, 2, 1000, 0x7fffffffu};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        ACL_OK(aclrtMemset(out, 8, 0xff, 8));
        ACL_OK(aclrtLaunchKernel(f, counts[i], &out, sizeof out, NULL));
        ACL_OK(aclrtSynchronizeStream(NULL));
        uint32_t got[2];
        ACL_OK(aclrtMemcpy(got, sizeof got, out, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));
        ck_assert_uint_eq(got[0], counts[i] - 1);
        ck_assert_uint_eq(got[1], counts[i]);
    }
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 0, &out, sizeof out, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 0x80000000u, &out, sizeof out, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernel(f, UINT32_MAX, &out, sizeof out, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(launch_on_destroyed_stream)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "empty");
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtLaunchKernel(f, 1, NULL, 0, s));
    ACL_OK(aclrtDestroyStream(s));
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 1, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, NULL, 0, NULL, 0),
                   ACL_ERROR_INVALID_PARAM);
    void *none[1] = {NULL};
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(f, 1, s, NULL, none), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

START_TEST(persistent_streams_refuse_host_launches)
{
    aclrtBinHandle bin = kt_load();
    aclrtFuncHandle f = kt_function(bin, "empty");
    aclrtStream s = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    ACL_FAILS_WITH(aclrtLaunchKernel(f, 1, NULL, 0, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtBinaryUnLoad(bin));
}
END_TEST

/* ---- device variables and symbols -------------------------------------------------------- */

/* Found through the dynamic symbol table on the host backend (the test is
 * linked with -rdynamic). */
__attribute__((visibility("default"))) int32_t kt_symbol[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__attribute__((visibility("default"))) void kt_host_kernel(uint32_t block, uint32_t nblocks,
                                                           void *args, size_t size);
void kt_host_kernel(uint32_t block, uint32_t nblocks, void *args, size_t size)
{
    (void)nblocks;
    (void)size;
    int32_t *out;
    memcpy(&out, args, sizeof out);
    out[block] = (int32_t)block * 10;
}

START_TEST(device_variables)
{
    void *addr = NULL;
    size_t size = 0;
    if (!kt_on_host()) {
        /* A C program has no __device__ variables: a clean error. */
        ACL_FAILS(aclrtGetSymbolAddress(kt_symbol, &addr));
        aclrtFuncHandle f;
        ACL_FAILS(aclrtGetFuncBySymbol((void *)kt_host_kernel, &f));
        return;
    }
    ACL_OK(aclrtGetSymbolAddress(kt_symbol, &addr));
    ck_assert_ptr_eq(addr, kt_symbol);
    ACL_OK(aclrtGetSymbolSize(kt_symbol, &size));
    ck_assert_uint_eq(size, sizeof kt_symbol);
    int32_t values[2] = {70, 80};
    ACL_OK(aclrtMemcpyToSymbol(kt_symbol, values, sizeof values, 6 * sizeof(int32_t),
                               ACL_MEMCPY_HOST_TO_DEVICE));
    ck_assert_int_eq(kt_symbol[6], 70);
    int32_t back[8];
    ACL_OK(aclrtMemcpyFromSymbol(back, sizeof back, kt_symbol, sizeof back, 0, ACL_MEMCPY_DEFAULT));
    ck_assert_int_eq(back[7], 80);
    int32_t *pinned = kt_pinned(sizeof back);
    pinned[0] = 99;
    ACL_OK(aclrtMemcpyToSymbolAsync(kt_symbol, pinned, 4, 0, ACL_MEMCPY_DEFAULT, NULL));
    ACL_OK(aclrtMemcpyFromSymbolAsync(pinned + 1, 4, kt_symbol, 4, 0, ACL_MEMCPY_DEFAULT, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(pinned[1], 99);
    ACL_FAILS_WITH(aclrtMemcpyToSymbol(kt_symbol, values, sizeof values, 7 * sizeof(int32_t),
                                       ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemcpyToSymbol(kt_symbol, values, 4, 0, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtGetSymbolAddress(values, &addr), ACL_ERROR_RT_SYMBOL_NOT_FOUND);
    /* A host kernel of the program itself. */
    aclrtFuncHandle f = NULL;
    ACL_OK(aclrtGetFuncBySymbol((void *)kt_host_kernel, &f));
    int32_t *out = kt_device(4 * sizeof(int32_t));
    ACL_OK(aclrtLaunchKernel(f, 4, &out, sizeof out, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    int32_t got[4];
    kt_read_i32(out, got, 4);
    ck_assert_int_eq(got[3], 30);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFreeHost(pinned));
}
END_TEST

/* ---- reductions ------------------------------------------------------------------------ */

static uint16_t to_half(float f)
{
    /* Exact for the small integers used here. */
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = x >> 16 & 0x8000;
    int32_t exp = (int32_t)(x >> 23 & 0xff) - 127 + 15;
    if ((x & 0x7fffffff) == 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | (uint32_t)exp << 10 | (x & 0x7fffff) >> 13);
}

static float from_half(uint16_t h)
{
    if ((h & 0x7fff) == 0)
        return (h & 0x8000) ? -0.0f : 0.0f;
    uint32_t bits = (uint32_t)(h & 0x8000) << 16 | ((uint32_t)(h >> 10 & 0x1f) - 15 + 127) << 23 |
                    (uint32_t)(h & 0x3ff) << 13;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return (uint16_t)(x >> 16);
}

static float from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Values 0..9 and -5..4 (the integers and 16-bit floats hold them exactly). */
static double value_a(int i)
{
    return (double)(i % 10);
}

static double value_b(int i)
{
    return (double)(i % 10 - 5);
}

static void put(void *buf, aclDataType t, int i, double v)
{
    switch (t) {
    case ACL_INT8:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    case ACL_INT16:
        ((int16_t *)buf)[i] = (int16_t)v;
        break;
    case ACL_INT32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case ACL_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)(v + 10); /* unsigned: shifted up */
        break;
    case ACL_FLOAT16:
        ((uint16_t *)buf)[i] = to_half((float)v);
        break;
    case ACL_BF16:
        ((uint16_t *)buf)[i] = to_bf16((float)v);
        break;
    default:
        ((float *)buf)[i] = (float)v;
        break;
    }
}

static double get(const void *buf, aclDataType t, int i)
{
    switch (t) {
    case ACL_INT8:
        return ((const int8_t *)buf)[i];
    case ACL_INT16:
        return ((const int16_t *)buf)[i];
    case ACL_INT32:
        return ((const int32_t *)buf)[i];
    case ACL_UINT32:
        return (double)((const uint32_t *)buf)[i]; /* as stored */
    case ACL_FLOAT16:
        return from_half(((const uint16_t *)buf)[i]);
    case ACL_BF16:
        return from_bf16(((const uint16_t *)buf)[i]);
    default:
        return ((const float *)buf)[i];
    }
}

START_TEST(reduce_every_kind_and_type)
{
    const aclDataType types[] = {ACL_INT8,    ACL_INT16, ACL_INT32, ACL_UINT32,
                                 ACL_FLOAT16, ACL_BF16,  ACL_FLOAT};
    const aclrtReduceKind kinds[] = {ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                     ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
                                     ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN};
    enum { COUNT = 1003 }; /* not a multiple of any vector width */
    void *host = malloc(COUNT * 4);
    void *dst = kt_device(COUNT * 4), *src = kt_device(COUNT * 4);
    aclrtStream s = acltest_new_stream();
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        aclDataType t = types[ti];
        size_t elem = aclDataTypeSize(t);
        for (size_t ki = 0; ki < 3; ki++) {
            for (int i = 0; i < COUNT; i++)
                put(host, t, i, value_a(i));
            ACL_OK(aclrtMemcpy(dst, COUNT * elem, host, COUNT * elem, ACL_MEMCPY_HOST_TO_DEVICE));
            for (int i = 0; i < COUNT; i++)
                put(host, t, i, value_b(i));
            ACL_OK(aclrtMemcpy(src, COUNT * elem, host, COUNT * elem, ACL_MEMCPY_HOST_TO_DEVICE));
            ACL_OK(aclrtReduceAsync(dst, src, COUNT * elem, kinds[ki], t, s, NULL));
            ACL_OK(aclrtSynchronizeStream(s));
            ACL_OK(aclrtMemcpy(host, COUNT * elem, dst, COUNT * elem, ACL_MEMCPY_DEVICE_TO_HOST));
            for (int i = 0; i < COUNT; i++) {
                double a = value_a(i), b = value_b(i);
                if (t == ACL_UINT32) {
                    a += 10; /* as stored */
                    b += 10;
                }
                double want = ki == 0 ? a + b : ki == 1 ? (a > b ? a : b) : (a < b ? a : b);
                double got = get(host, t, i);
                ck_assert_msg(got == want, "type %d kind %zu element %d: %g, expected %g", (int)t,
                              ki, i, got, want);
            }
        }
    }
    ACL_FAILS_WITH(
        aclrtReduceAsync(dst, src, 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, s, NULL),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(
        aclrtReduceAsync(dst, src, 6, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtReduceAsync(dst, src, 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_DOUBLE, s, NULL),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtReduceAsync(host, src, 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtReduceAsync(dst, src, COUNT * 4 + 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
                                    ACL_FLOAT, s, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(s));
    ACL_OK(aclrtFree(dst));
    ACL_OK(aclrtFree(src));
    free(host);
}
END_TEST

/* ---- random numbers ------------------------------------------------------------------- */

static aclrtRandomParaInfo value_param(const void *v, uint8_t size)
{
    aclrtRandomParaInfo p = {.isAddr = 0, .size = size};
    memcpy(p.valueOrAddr, v, size);
    return p;
}

static aclrtRandomParaInfo addr_param(const void *dev)
{
    aclrtRandomParaInfo p = {.isAddr = 1, .size = 8};
    memcpy(p.valueOrAddr, &dev, sizeof dev);
    return p;
}

START_TEST(random_uniform_and_known_answer)
{
    enum { COUNT = 4096 };
    uint32_t *out = kt_device(COUNT * sizeof(uint32_t));
    uint64_t seed = 0, count = COUNT;
    uint32_t lo = 0, hi = 0; /* equal bounds: the whole range */
    aclrtRandomNumTaskInfo info = {
        .dataType = ACL_UINT32,
        .randomNumFuncParaInfo = {.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
                                  .paramInfo.uniformDisInfo = {value_param(&lo, 4),
                                                               value_param(&hi, 4)}},
        .randomResultAddr = out,
        .randomSeed = value_param(&seed, 8),
        .randomNum = value_param(&count, 8),
    };
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    uint32_t *h = malloc(COUNT * sizeof *h);
    ACL_OK(aclrtMemcpy(h, COUNT * 4, out, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    /* Philox4x32-10's known answer for counter 0, key 0 (Random123). */
    ck_assert_uint_eq(h[0], 0x6627e8d5u);
    /* Offset 1 from the counter address moves the stream by one element. */
    uint64_t offset = 1;
    uint64_t *counter = kt_device(sizeof offset);
    ACL_OK(aclrtMemcpy(counter, 8, &offset, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    info.randomCounterAddr = counter;
    info.randomNum = value_param(&count, 8);
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    uint32_t *shifted = malloc(COUNT * sizeof *shifted);
    ACL_OK(aclrtMemcpy(shifted, COUNT * 4, out, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(shifted[0], h[1]);
    ck_assert_uint_eq(shifted[100], h[101]);

    /* Floats in [min, max), the seed and the count read from device memory. */
    float fmin = -2.0f, fmax = 3.0f;
    float *fout = kt_device(COUNT * sizeof(float));
    uint64_t *seed_dev = kt_device(8), *count_dev = kt_device(8);
    seed = 1234;
    ACL_OK(aclrtMemcpy(seed_dev, 8, &seed, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    ACL_OK(aclrtMemcpy(count_dev, 8, &count, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtRandomNumTaskInfo fi = {
        .dataType = ACL_FLOAT,
        .randomNumFuncParaInfo = {.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
                                  .paramInfo.uniformDisInfo = {value_param(&fmin, 4),
                                                               value_param(&fmax, 4)}},
        .randomResultAddr = fout,
        .randomSeed = addr_param(seed_dev),
        .randomNum = addr_param(count_dev),
    };
    ACL_OK(aclrtRandomNumAsync(&fi, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    float *fh = malloc(COUNT * sizeof *fh);
    ACL_OK(aclrtMemcpy(fh, COUNT * 4, fout, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    double sum = 0;
    int outside = 0;
    for (int i = 0; i < COUNT; i++) {
        sum += fh[i];
        outside += fh[i] < fmin || fh[i] >= fmax;
    }
    ck_assert_int_eq(outside, 0);
    ck_assert_msg(fabs(sum / COUNT - 0.5) < 0.1, "mean %g", sum / COUNT);
    /* Bad tasks. */
    fi.dataType = ACL_DOUBLE;
    ACL_FAILS_WITH(aclrtRandomNumAsync(&fi, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    fi.dataType = ACL_FLOAT;
    fi.randomResultAddr = NULL;
    ACL_FAILS_WITH(aclrtRandomNumAsync(&fi, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtRandomNumAsync(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    free(h);
    free(shifted);
    free(fh);
    ACL_OK(aclrtFree(out));
    ACL_OK(aclrtFree(fout));
    ACL_OK(aclrtFree(counter));
    ACL_OK(aclrtFree(seed_dev));
    ACL_OK(aclrtFree(count_dev));
}
END_TEST

START_TEST(random_normal_truncated_and_dropout)
{
    enum { COUNT = 20000 };
    float *out = kt_device(COUNT * sizeof(float));
    float *h = malloc(COUNT * sizeof *h);
    float mean = 1.0f, stddev = 2.0f;
    uint64_t seed = 42, count = COUNT;
    aclrtRandomNumTaskInfo info = {
        .dataType = ACL_FLOAT,
        .randomNumFuncParaInfo = {.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
                                  .paramInfo.normalDisInfo = {value_param(&mean, 4),
                                                              value_param(&stddev, 4)}},
        .randomResultAddr = out,
        .randomSeed = value_param(&seed, 8),
        .randomNum = value_param(&count, 8),
    };
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(h, COUNT * 4, out, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    double sum = 0, sq = 0;
    for (int i = 0; i < COUNT; i++) {
        sum += h[i];
        sq += (double)h[i] * h[i];
    }
    double m = sum / COUNT, sd = sqrt(sq / COUNT - m * m);
    ck_assert_msg(fabs(m - 1.0) < 0.1 && fabs(sd - 2.0) < 0.1, "mean %g, stddev %g", m, sd);

    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ACL_OK(aclrtMemcpy(h, COUNT * 4, out, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    int outside = 0;
    for (int i = 0; i < COUNT; i++)
        outside += fabsf(h[i] - mean) > 2.0f * stddev + 1e-4f;
    ck_assert_int_eq(outside, 0);

    /* Dropout: one bit per element, kept (1) with probability 1 - ratio. */
    float ratio = 0.25f;
    uint8_t *mask = kt_device(COUNT / 8);
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK;
    info.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = value_param(&ratio, 4);
    info.randomResultAddr = mask;
    ACL_OK(aclrtRandomNumAsync(&info, NULL, NULL));
    ACL_OK(aclrtSynchronizeStream(NULL));
    uint8_t *bits = malloc(COUNT / 8);
    ACL_OK(aclrtMemcpy(bits, COUNT / 8, mask, COUNT / 8, ACL_MEMCPY_DEVICE_TO_HOST));
    int kept = 0;
    for (int i = 0; i < COUNT / 8; i++)
        kept += __builtin_popcount(bits[i]);
    ck_assert_msg(fabs((double)kept / COUNT - 0.75) < 0.03, "kept %d of %d", kept, COUNT);
    /* Normal numbers need a floating type. */
    info.dataType = ACL_INT32;
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
    ACL_FAILS_WITH(aclrtRandomNumAsync(&info, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    free(bits);
    free(h);
    ACL_OK(aclrtFree(mask));
    ACL_OK(aclrtFree(out));
}
END_TEST

/* ---- exception callbacks of binaries ------------------------------------------------- */

static void op_exception(aclrtExceptionInfo *info, void *user_data)
{
    atomic_int *calls = user_data;
    atomic_fetch_add(calls, 1);
    (void)info;
}

static void op_exception_checked(aclrtExceptionInfo *info, void *user_data)
{
    atomic_int *seen = user_data;
    if (aclrtGetDeviceIdFromExceptionInfo(info) == 0 &&
        aclrtGetErrorCodeFromExceptionInfo(info) != 0)
        atomic_fetch_add(seen, 1);
}

START_TEST(binary_exception_callback)
{
    aclrtBinHandle bin = kt_load();
    atomic_int calls;
    atomic_init(&calls, 0);
    ACL_OK(aclrtBinarySetExceptionCallback(bin, op_exception, &calls));
    ACL_OK(aclrtBinarySetExceptionCallback(bin, op_exception, &calls)); /* the last one wins */
    ACL_FAILS_WITH(aclrtBinarySetExceptionCallback(bin, NULL, &calls), ACL_ERROR_INVALID_PARAM);
    /* Work that does not fault calls nothing. */
    aclrtFuncHandle inc = kt_function(bin, "increment");
    int32_t *counter = kt_device(64);
    void *args[] = {&counter};
    ACL_OK(aclrtLaunchKernelWithArgsArray(inc, 1, NULL, NULL, args));
    ACL_OK(aclrtSynchronizeStream(NULL));
    ck_assert_int_eq(atomic_load(&calls), 0);
    ACL_OK(aclrtBinaryUnLoad(bin));
    ACL_FAILS_WITH(aclrtBinarySetExceptionCallback(bin, op_exception, &calls),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(counter));
}
END_TEST

/* cuda: a kernel that faults reaches the callback of its binary, with the
 * device and the error. The context is lost afterwards: the test ends its
 * process without the usual teardown (it runs forked; tag "fault"). */
START_TEST(binary_exception_callback_on_fault)
{
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(0));
    if (kt_on_host()) {
        ACL_OK(aclrtResetDevice(0));
        ACL_OK(aclFinalize());
        return; /* host kernels cannot fault without taking the process down */
    }
    aclrtBinHandle bin = kt_load();
    atomic_int seen;
    atomic_init(&seen, 0);
    ACL_OK(aclrtBinarySetExceptionCallback(bin, op_exception_checked, &seen));
    aclrtFuncHandle store = kt_function(bin, "store_one");
    int32_t *nowhere = (int32_t *)(uintptr_t)0x10;
    void *args[] = {&nowhere};
    aclrtStream s = acltest_new_stream();
    ACL_OK(aclrtLaunchKernelWithArgsArray(store, 1, s, NULL, args));
    ACL_FAILS(aclrtSynchronizeStream(s));
    ck_assert_int_eq(atomic_load(&seen), 1);
}
END_TEST

static Suite *kernel_suite(void)
{
    Suite *s = suite_create("kernel");
    TCase *binaries = tcase_create("binaries");
    tcase_add_checked_fixture(binaries, set_up, tear_down);
    tcase_add_test(binaries, load_and_unload);
    tcase_add_test(binaries, load_from_data_and_binary);
    tcase_add_test(binaries, bad_binaries);
    tcase_add_test(binaries, missing_symbols);
    tcase_add_test(binaries, function_address_and_entry);
    tcase_add_test(binaries, parameters_described);
    tcase_add_test(binaries, global_variable);
    tcase_add_test(binaries, two_loads_are_two_binaries);
    tcase_add_test(binaries, non_regular_files_are_refused);
    tcase_add_test(binaries, unreadable_images_are_refused);
    tcase_add_test(binaries, truncated_images);
    tcase_add_test(binaries, bit_flipped_images);
    tcase_add_test(binaries, unload_with_launch_queued);
    tcase_add_test(binaries, unload_with_kernel_running);
    tcase_add_test(binaries, unload_before_model_replay);
    tcase_add_test(binaries, unload_with_stream_destroyed_by_force);
    tcase_add_test(binaries, abandoned_capture_keeps_no_binary);
    tcase_add_test(binaries, unload_after_task_update_to_its_kernel);
    tcase_add_test(binaries, unload_while_another_thread_launches);
    tcase_add_test(binaries, unload_while_other_threads_append_arguments);
    tcase_add_test(binaries, handles_made_during_an_unload_go_with_it);
    suite_add_tcase(s, binaries);

    TCase *launches = tcase_create("launches");
    tcase_add_checked_fixture(launches, set_up, tear_down);
    tcase_add_test(launches, launch_with_device_args);
    tcase_add_test(launches, launch_with_host_args_and_config);
    tcase_add_test(launches, launch_with_args_handle);
    tcase_add_test(launches, launch_with_user_memory_and_placeholders);
    tcase_add_test(launches, launch_with_host_args_placeholders);
    tcase_add_test(launches, launch_with_args_array_and_simt);
    tcase_add_test(launches, block_shape_extension);
    tcase_add_test(launches, wrong_args_size);
    tcase_add_test(launches, argument_sizes_beyond_the_limit);
    tcase_add_test(launches, unreadable_arguments_are_refused);
    tcase_add_test(launches, freed_device_memory_as_arguments);
    tcase_add_test(launches, task_params_arguments_are_checked);
    tcase_add_test(launches, user_memory_lists_must_be_there);
    tcase_add_test(launches, user_memory_placeholder_sizes_are_bounded);
    tcase_add_test(launches, user_memory_unmapped_after_init);
    tcase_add_test(launches, launch_on_destroyed_stream);
    tcase_add_test(launches, persistent_streams_refuse_host_launches);
    tcase_add_test(launches, device_variables);
    suite_add_tcase(s, launches);

    /* The process's resident size is the measure: checkers that keep freed
     * memory (ASan's quarantine, valgrind) leave the tag out. */
    TCase *footprint = tcase_create("footprint");
    tcase_add_checked_fixture(footprint, set_up, tear_down);
    tcase_set_tags(footprint, "footprint");
    tcase_add_test(footprint, user_memory_lists_replaced_in_place);
    tcase_add_test(footprint, user_memory_lists_each_named_by_their_handle);
    suite_add_tcase(s, footprint);

    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, set_up, tear_down);
    tcase_set_timeout(limits, 300);  /* 2^31 - 1 blocks on the CPUs of the host backend */
    tcase_set_tags(limits, "heavy"); /* hours under valgrind */
    tcase_add_test(limits, block_count_limits);
    suite_add_tcase(s, limits);

    TCase *builtin = tcase_create("builtin");
    tcase_add_checked_fixture(builtin, set_up, tear_down);
    tcase_add_test(builtin, reduce_every_kind_and_type);
    tcase_add_test(builtin, random_uniform_and_known_answer);
    tcase_add_test(builtin, random_normal_truncated_and_dropout);
    suite_add_tcase(s, builtin);

    TCase *exceptions = tcase_create("exceptions");
    tcase_add_checked_fixture(exceptions, set_up, tear_down);
    tcase_add_test(exceptions, binary_exception_callback);
    suite_add_tcase(s, exceptions);

    /* Not under compute-sanitizer (scripts/device-check.sh leaves the tag
     * out): the fault is the point. */
    TCase *fault = tcase_create("device fault");
    tcase_set_tags(fault, "fault");
    tcase_add_test(fault, binary_exception_callback_on_fault);
    suite_add_tcase(s, fault);
    return s;
}

int main(void)
{
    return acltest_run(kernel_suite());
}
