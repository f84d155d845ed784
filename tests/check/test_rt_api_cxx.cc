// acl/acl_rt_api.h, AscendCL's C++ overloads: each one reaches the C function
// it stands for (the same answers, bad arguments included), typed pointers
// move real bytes, and a call with the C types still picks the C function.
#include "acl/acl.h"
#include "acl/acl_rt_api.h"

#include <cstdio>
#include <cstring>

static int failures;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("FAIL line %d: %s\n", __LINE__, #cond);                                    \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

// With the C types the C function is chosen over the templates.
static aclError (*volatile plain_memcpy)(void *, size_t, const void *, size_t,
                                         aclrtMemcpyKind) = aclrtMemcpy;
static aclError (*volatile plain_sync)(aclrtStream) = aclrtSynchronizeStream;

static int device_symbol;

static void older_names(aclrtStream stream)
{
    EXPECT(aclrtSynchronizeStream(stream, 1000) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(stream, -5) == aclrtSynchronizeStreamWithTimeout(stream, -5));
    EXPECT(aclrtSynchronizeStream(stream, -5) != ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDevice(1000) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeDevice(-5) != ACL_SUCCESS);

    aclrtEvent event = nullptr;
    EXPECT(aclrtCreateEvent(&event, ACL_EVENT_SYNC) == ACL_SUCCESS);
    EXPECT(aclrtCreateEvent(&event, 0xFFFF0000U) == aclrtCreateEventExWithFlag(&event, 0xFFFF0000U));
    EXPECT(aclrtRecordEvent(event, stream) == ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(stream, event, 10) == ACL_SUCCESS);
    EXPECT(aclrtStreamWaitEvent(stream, event, -1) == aclrtStreamWaitEventWithTimeout(stream, event, -1));
    EXPECT(aclrtSynchronizeEvent(event, 1000) == ACL_SUCCESS);
    EXPECT(aclrtDestroyEvent(event) == ACL_SUCCESS);

    aclrtStream prioritized = nullptr;
    EXPECT(aclrtCreateStream(&prioritized, 3, 0) == ACL_SUCCESS);
    uint32_t priority = 0;
    EXPECT(aclrtStreamGetPriority(prioritized, &priority) == ACL_SUCCESS);
    EXPECT(priority == 3);
    EXPECT(aclrtDestroyStream(prioritized) == ACL_SUCCESS);

    uint64_t actual = 0, actual_c = 0;
    EXPECT(aclrtSetOpExecuteTimeOut(uint64_t{5}, &actual) ==
           aclrtSetOpExecuteTimeOutV2(uint64_t{5}, &actual_c));
    EXPECT(actual == actual_c);
}

static void typed_memory(aclrtStream stream)
{
    enum { COUNT = 16 };
    float *device = nullptr, *host = nullptr, *back = nullptr;
    EXPECT(aclrtMalloc(&device, COUNT * sizeof(float)) == ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&host, COUNT * sizeof(float)) == ACL_SUCCESS);
    EXPECT(aclrtMallocHost(&back, COUNT * sizeof(float), nullptr) == ACL_SUCCESS);
    if (!device || !host || !back)
        return;
    for (int i = 0; i < COUNT; i++)
        host[i] = static_cast<float>(i) * 1.5f;
    EXPECT(aclrtMemcpy(device, COUNT * sizeof(float), host, COUNT * sizeof(float),
                       ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    EXPECT(aclrtMemcpyAsync(back, COUNT * sizeof(float), device, COUNT * sizeof(float),
                            ACL_MEMCPY_DEVICE_TO_HOST, stream) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    EXPECT(std::memcmp(host, back, COUNT * sizeof(float)) == 0);
    // destMax below count: the C function's answer.
    EXPECT(aclrtMemcpy(device, 4, host, 8, ACL_MEMCPY_HOST_TO_DEVICE) ==
           plain_memcpy(device, 4, host, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT(aclrtMemcpy(device, 4, host, 8, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS);

    // Two rows of 4 floats out of rows of 8.
    std::memset(back, 0, COUNT * sizeof(float));
    EXPECT(aclrtMemcpy2d(back, 4 * sizeof(float), device, 8 * sizeof(float), 4 * sizeof(float), 2,
                         ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(back[0] == host[0] && back[3] == host[3] && back[4] == host[8] && back[7] == host[11]);
    EXPECT(aclrtMemcpy2dAsync(back, 4 * sizeof(float), device, 8 * sizeof(float),
                              4 * sizeof(float), 2, ACL_MEMCPY_DEVICE_TO_HOST,
                              stream) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS);

    // A batch of two host-to-device copies with one attribute for both.
    float *halves[2] = {device, device + COUNT / 2};
    float *sources[2] = {back, back + COUNT / 2};
    size_t maxes[2] = {COUNT / 2 * sizeof(float), COUNT / 2 * sizeof(float)};
    size_t sizes[2] = {COUNT / 2 * sizeof(float), COUNT / 2 * sizeof(float)};
    for (int i = 0; i < COUNT; i++)
        back[i] = static_cast<float>(100 + i);
    aclrtMemcpyBatchAttr attr = {};
    attr.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    attr.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    size_t fail_index = 0;
    EXPECT(aclrtMemcpyBatch(halves, maxes, sources, sizes, 2, attr, &fail_index) == ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, COUNT * sizeof(float), device, COUNT * sizeof(float),
                       ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(host[0] == 100.0f && host[COUNT - 1] == static_cast<float>(100 + COUNT - 1));
    EXPECT(aclrtMemcpyBatchAsync(halves, maxes, sources, sizes, 2, attr, stream) == ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS);

    aclrtPtrAttributes where = {};
    EXPECT(aclrtPointerGetAttributes(device, &where) == ACL_SUCCESS);
    EXPECT(where.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);

    double *managed = nullptr;
    EXPECT(aclrtMemAllocManaged(&managed, 64) == ACL_SUCCESS);
    if (managed) {
        managed[0] = 2.5;
        EXPECT(managed[0] == 2.5);
        EXPECT(aclrtFree(managed) == ACL_SUCCESS);
    }

    // A host variable is no device symbol: the C function's answer.
    void *address = nullptr;
    EXPECT(aclrtGetSymbolAddress(device_symbol, &address) ==
           ::aclrtGetSymbolAddress(static_cast<const void *>(&device_symbol), &address));

    EXPECT(aclrtFree(device) == ACL_SUCCESS);
    EXPECT(aclrtFreeHost(host) == ACL_SUCCESS);
    EXPECT(aclrtFreeHost(back) == ACL_SUCCESS);
}

int main()
{
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        std::printf("FAIL: no device\n");
        return 1;
    }
    aclrtStream stream = nullptr;
    EXPECT(aclrtCreateStream(&stream) == ACL_SUCCESS);
    EXPECT(plain_sync(stream) == ACL_SUCCESS);
    older_names(stream);
    typed_memory(stream);
    EXPECT(aclrtDestroyStream(stream) == ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    EXPECT(aclFinalize() == ACL_SUCCESS);
    std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
