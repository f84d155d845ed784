/* IPC across real processes: memory keys (with and without the pid list),
 * shareable handles of physical memory (V1 and V2), and IPC events. A second
 * process, ipc_peer (fork + exec), takes one command per line over a pipe
 * and answers one line; $COMPAT_IPC_PEER names it (default ./ipc_peer). */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"
#include "bad_args.h"
#include "ipc_peer.h"

static void check_device(const void *dev, size_t n, unsigned char value)
{
    unsigned char *host = malloc(n);
    ACL_OK(aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        if (host[i] != value)
            ck_abort_msg("byte %zu is 0x%02x, expected 0x%02x", i, host[i], value);
    free(host);
}

/* Memory shared by key: whole 2 MiB blocks, as CANN's huge pages (CANN refuses
 * exports that are not page aligned: FAQ "IPC memory sharing page alignment"). */
enum { N = 2 << 20 };

/* ---- memory keys ---------------------------------------------------------------------- */

COMPAT_TEST(test_key_with_pid_validation,
            "an IPC key is imported only by listed processes; both processes see the same memory; "
            "each import is closed; a closed key names nothing",
            "API ref aclrtIpcMemGetExportKey flow, aclrtIpcMemSetImportPid, "
            "aclrtIpcMemImportByKey, aclrtIpcMemClose")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x5A, N));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    ck_assert_uint_lt(strlen(key), sizeof key);

    /* Not listed yet: refused. */
    expect_fail(peer_ask(&p, "import %s", key));
    int32_t pids[2] = {12345678, p.tgid};
    ACL_OK(aclrtIpcMemSetImportPid(key, pids, 2));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    /* The same memory: each side sees the other's writes. */
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x5A));
    expect_ok(peer_ask(&p, "fill %" PRIxPTR " %d %d", there, N, 0xA5));
    check_device(dev, N, 0xA5);
    ACL_OK(aclrtMemset(dev, N, 0x33, N));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x33));
    /* A second import of the key gives the same memory; each is closed. */
    ck_assert_uint_eq(ok_hex(peer_ask(&p, "import %s", key)), there);
    expect_ok(peer_ask(&p, "close %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x33));
    expect_ok(peer_ask(&p, "close %s", key));
    /* Closed as often as imported: one more close is refused. */
    expect_fail(peer_ask(&p, "close %s", key));

    /* Closed by the exporter: nobody imports it any more. */
    ACL_OK(aclrtIpcMemClose(key));
    expect_fail(peer_ask(&p, "import %s", key));
    ACL_FAILS_WITH(aclrtIpcMemClose(key), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(key, pids, 2), ACL_ERROR_INVALID_PARAM);
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_key_without_pid_validation,
            "with ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION any process imports the key",
            "API ref aclrtIpcMemGetExportKey flags")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x6B, N));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x6B));
    expect_ok(peer_ask(&p, "close %s", key));
    ACL_OK(aclrtIpcMemClose(key));
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_key_of_interior_range,
            "a key of an interior, page-aligned range names that range; an implementation that "
            "cannot share less than the whole allocation refuses it with ACL_ERROR_INVALID_PARAM",
            "API ref aclrtIpcMemGetExportKey (devPtr, size); FAQ IPC memory sharing page "
            "alignment (exports that would share more are refused)")
{
    peer p;
    peer_start(&p);
    unsigned char *dev;
    ACL_OK(aclrtMalloc((void **)&dev, 2 * N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 2 * N, 0x00, 2 * N));
    ACL_OK(aclrtMemset(dev + N, N, 0x6B, N));
    char key[65];
    aclError ret = aclrtIpcMemGetExportKey(dev + N, N, key, sizeof key,
                                           ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
    if (ret == ACL_SUCCESS) {
        uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
        expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x6B));
        expect_ok(peer_ask(&p, "close %s", key));
        ACL_OK(aclrtIpcMemClose(key));
    } else {
        ck_assert_int_eq(ret, ACL_ERROR_INVALID_PARAM);
        const char *why = aclGetRecentErrMsg();
        ck_assert_msg(why != NULL && *why != '\0', "a refusal says why");
    }
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

/* A key names a live export of a running process. */
COMPAT_TEST(
    test_key_of_ended_process_and_bad_keys,
    "keys that were never exported, have been forged, or whose process ended import nothing; the "
    "exporter does not import its own key",
    "API ref aclrtIpcMemImportByKey (key from aclrtIpcMemGetExportKey; memory must still exist)")
{
    peer p;
    peer_start(&p);
    expect_fail(peer_ask(&p, "import not-a-key"));
    expect_fail(peer_ask(&p, "import acl-cuda-ipc:1:1:0000000000000001"));
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, 1));
    /* A wrong nonce names nothing. */
    char forged[65];
    snprintf(forged, sizeof forged, "%s", key);
    forged[strlen(forged) - 1] = forged[strlen(forged) - 1] == '0' ? '1' : '0';
    expect_fail(peer_ask(&p, "import %s", forged));
    /* The exporting process does not import its own key. */
    void *self;
    ACL_FAILS(aclrtIpcMemImportByKey(&self, key, 0));
    ACL_OK(aclrtIpcMemClose(key));
    peer_stop(&p);

    /* A key of a process that ended. */
    peer q;
    peer_start(&q);
    pid_t child = fork();
    if (child == 0) {
        /* Exported by a short-lived process of its own: no ACL state from
         * here is used (the child execs nothing; it just ends). */
        _exit(0);
    }
    waitpid(child, NULL, 0);
    char dead[65];
    snprintf(dead, sizeof dead, "acl-cuda-ipc:%d:1:0123456789abcdef", (int)child);
    expect_fail(peer_ask(&q, "import %s", dead));
    peer_stop(&q);
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_key_withdrawn_by_free,
            "aclrtFree withdraws the memory's IPC keys: an old key imports nothing, not the "
            "exporter's next allocation at that address; the exporter's close still succeeds",
            "API ref aclrtIpcMemGetExportKey (the key names the memory), aclrtFree")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x21, N));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    ACL_OK(aclrtFree(dev));
    /* The next allocation of the size: often the same address. */
    void *next;
    ACL_OK(aclrtMalloc(&next, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(next, N, 0x42, N));
    expect_fail(peer_ask(&p, "import %s", key));
    int32_t pid = p.tgid;
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(key, &pid, 1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_FAILS_WITH(aclrtIpcMemClose(key), ACL_ERROR_INVALID_PARAM);
    check_device(next, N, 0x42);
    peer_stop(&p);
    ACL_OK(aclrtFree(next));
}

COMPAT_TEST(test_import_outlives_exporter_free,
            "an import stays valid after the exporter closes the key and frees the memory: the "
            "importer still reads what was there, and its writes never reach the exporter's "
            "later allocations",
            "cudaIpcCloseMemHandle (the memory lives until the last importer closes); API ref "
            "aclrtIpcMemClose")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x61, N));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
    void *next;
    ACL_OK(aclrtMalloc(&next, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(next, N, 0x62, N));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x61));
    expect_ok(peer_ask(&p, "fill %" PRIxPTR " %d %d", there, N, 0x63));
    check_device(next, N, 0x62);
    expect_ok(peer_ask(&p, "close %s", key));
    peer_stop(&p);
    ACL_OK(aclrtFree(next));
}

COMPAT_TEST(test_export_behind_queued_work,
            "a key exported while work that writes the memory is queued shares what that work "
            "writes",
            "API ref aclrtIpcMemGetExportKey (no synchronisation is required)")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x10, N));
    aclrtStream s = compat_new_stream();
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtMemsetAsync(dev, N, 0x77, N, s));
    compat_gate_wait_reached(&gate);
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(s));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x77));
    expect_ok(peer_ask(&p, "fill %" PRIxPTR " %d %d", there, N, 0x78));
    check_device(dev, N, 0x78);
    expect_ok(peer_ask(&p, "close %s", key));
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtDestroyStream(s));
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_close_with_queued_copy,
            "aclrtIpcMemClose of an import that queued work still reads succeeds, and the work "
            "still reads the memory",
            "API ref aclrtIpcMemClose; queued work keeps what it touches (as aclrtFree)")
{
    peer p;
    peer_start(&p);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, N, 0x2F, N));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "copyclose %s %" PRIxPTR " %d %d", key, there, N, 0x2F));
    /* Closed: a second close is refused, and the peer goes on working. */
    expect_fail(peer_ask(&p, "close %s", key));
    ck_assert_uint_ne(ok_hex(peer_ask(&p, "import %s", key)), 0);
    expect_ok(peer_ask(&p, "close %s", key));
    ACL_OK(aclrtIpcMemClose(key));
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(test_key_errors,
            "IPC key functions refuse NULL arguments, zero sizes and lengths, unknown flags, keys "
            "this process does not know, and memory not from aclrtMalloc",
            "API ref aclrtIpcMem*; [impl] IpcSetMemoryName, SetIpcMemPid, IpcSetMemoryAttr checks")
{
    void *dev, *pinned;
    unsigned char local[64];
    char key[65];
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMallocHost(&pinned, N));
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(NULL, N, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, N, NULL, 65, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, 0, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, N, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, N, key, 65, 2), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS(aclrtIpcMemGetExportKey(dev, N, key, 8, 0));
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(local, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(pinned, N, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, 2 * N, key, 65, 0), ACL_ERROR_INVALID_PARAM);
    int32_t pid = 1;
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid("nope", &pid, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemClose("nope"), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM);
    void *p;
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(NULL, "k", 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(&p, NULL, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(&p, "k", 2), ACL_ERROR_RT_PARAM_INVALID);

    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, 0));
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(key, &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(key, NULL, 1), ACL_ERROR_INVALID_PARAM);
    /* Attributes: the link is checked and kept. */
    ACL_OK(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
                              ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS));
    ACL_FAILS_WITH(aclrtIpcMemSetAttr(key, (aclrtIpcMemAttrType)1, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4),
                   ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemSetAttr("nope", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* Inter-server lists: each list's processes are allowed. */
    int32_t list[2] = {10, 11};
    aclrtServerPid servers[1] = {{.sdid = 0, .pid = list, .num = 2}};
    ACL_OK(aclrtIpcMemImportPidInterServer(key, servers, 1));
    ACL_FAILS_WITH(aclrtIpcMemImportPidInterServer(key, servers, 0), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemImportPidInterServer(NULL, servers, 1), ACL_ERROR_RT_PARAM_INVALID);
    ACL_FAILS_WITH(aclrtIpcMemImportPidInterServer("nope", servers, 1), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtIpcMemClose(key));
    int32_t tgid = 0;
    ACL_OK(aclrtDeviceGetBareTgid(&tgid));
    ck_assert_int_eq(tgid, (int32_t)getpid());
    ACL_FAILS_WITH(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFreeHost(pinned));
}

/* ---- shareable handles of physical memory --------------------------------------------- */

static size_t physical(aclrtDrvMemHandle *h, void **va, unsigned char value)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    ACL_OK(aclrtMallocPhysical(h, g, &prop, 0));
    ACL_OK(aclrtReserveMemAddress(va, g, 0, NULL, 0));
    ACL_OK(aclrtMapMem(*va, g, 0, *h, 0));
    ACL_OK(aclrtMemset(*va, g, value, g));
    return g;
}

COMPAT_TEST(test_shareable_handle_v1,
            "a physical handle exported as a shareable handle is imported by listed processes "
            "once, maps the same memory, and names nothing once freed; export is one-to-one",
            "API ref aclrtMemExportToShareableHandle flow, aclrtMemSetPidToShareableHandle, "
            "aclrtMemImportFromShareableHandle")
{
    peer p;
    peer_start(&p);
    aclrtDrvMemHandle h;
    void *va;
    size_t g = physical(&h, &va, 0x17);
    uint64_t shareable = 0;
    ACL_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE,
                                           ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
    /* One shareable handle per handle. */
    uint64_t again;
    ACL_FAILS(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &again));
    /* Not listed yet. */
    expect_fail(peer_ask(&p, "vimport %" PRIx64, shareable));
    ACL_OK(aclrtMemSetPidToShareableHandle(shareable, &p.tgid, 1));
    uintptr_t theirs = ok_hex(peer_ask(&p, "vimport %" PRIx64, shareable));
    /* Imported once per process. */
    expect_fail(peer_ask(&p, "vimport %" PRIx64, shareable));
    uintptr_t their_va = ok_hex(peer_ask(&p, "vmap %" PRIxPTR " %zu", theirs, g));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %zu %d", their_va, g, 0x17));
    expect_ok(peer_ask(&p, "fill %" PRIxPTR " %zu %d", their_va, g, 0x71));
    check_device(va, g, 0x71);
    expect_ok(peer_ask(&p, "vunmap %" PRIxPTR " %" PRIxPTR, their_va, theirs));
    /* The exporting process does not import its own. */
    aclrtDrvMemHandle mine;
    ACL_FAILS(aclrtMemImportFromShareableHandle(shareable, 0, &mine));
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandle(shareable, 0, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, NULL, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, &p.tgid, 0), ACL_ERROR_INVALID_PARAM);
    /* Pids are positive, as for notifies. */
    int32_t not_pids[2] = {0, -5};
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, &not_pids[0], 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, not_pids, 2),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable + 1, &p.tgid, 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &again),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 2, &again),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* Freed: the shareable handle names nothing any more. */
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    expect_fail(peer_ask(&p, "vimport %" PRIx64, shareable));
    ACL_OK(aclrtReleaseMemAddress(va));
    peer_stop(&p);
}

COMPAT_TEST(
    test_shareable_handle_v2_fabric,
    "V2 shareable handles (fabric) carry the same sharing, with validation off or a pid list",
    "API ref aclrtMemExportToShareableHandleV2, aclrtMemImportFromShareableHandleV2, "
    "aclrtMemSetPidToShareableHandleV2")
{
    peer p;
    peer_start(&p);
    aclrtDrvMemHandle h;
    void *va;
    size_t g = physical(&h, &va, 0x29);
    aclrtMemFabricHandle fabric;
    ACL_OK(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                             ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fabric));
    char hex[2 * sizeof fabric.data + 1];
    to_hex(fabric.data, sizeof fabric.data, hex);
    uintptr_t theirs = ok_hex(peer_ask(&p, "vimport2 %s", hex));
    uintptr_t their_va = ok_hex(peer_ask(&p, "vmap %" PRIxPTR " %zu", theirs, g));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %zu %d", their_va, g, 0x29));
    expect_ok(peer_ask(&p, "vunmap %" PRIxPTR " %" PRIxPTR, their_va, theirs));
    ACL_OK(
        aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &p.tgid, 1));
    int32_t not_pid = -1;
    ACL_FAILS_WITH(
        aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &not_pid, 1),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtMemSetPidToShareableHandleV2(&fabric, (aclrtMemSharedHandleType)7, &p.tgid, 1),
        ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemFabricHandle junk;
    memset(&junk, 0x11, sizeof junk);
    aclrtDrvMemHandle mine;
    ACL_FAILS_WITH(
        aclrtMemImportFromShareableHandleV2(&junk, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &mine),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(
        aclrtMemImportFromShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 1, &mine),
        ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    peer_stop(&p);
}

/* ---- IPC events ------------------------------------------------------------------------ */

COMPAT_TEST(test_ipc_event,
            "an IPC event opened by another process reports the creator's records: pending behind "
            "work, complete after; its synchronize and stream waits wait for them",
            "API ref aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle (flow)")
{
    peer p;
    peer_start(&p);
    aclrtEvent e, plain;
    ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
    aclrtIpcEventHandle handle;
    ACL_OK(aclrtIpcGetEventHandle(e, &handle));
    ACL_FAILS_WITH(aclrtIpcGetEventHandle(plain, &handle), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtIpcGetEventHandle(e, &handle));
    char hex[2 * sizeof handle.reserved + 1];
    to_hex(handle.reserved, sizeof handle.reserved, hex);
    uintptr_t theirs = ok_hex(peer_ask(&p, "eopen %s", hex));
    expect_ok(peer_ask(&p, "esync %" PRIxPTR, theirs)); /* nothing recorded yet */

    /* Recorded behind a closed gate: the other process sees it pending,
     * and its synchronize and stream wait return once the gate opens. */
    aclrtStream s = compat_new_stream();
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(e, s));
    ck_assert_str_eq(peer_ask(&p, "equery %" PRIxPTR, theirs), "ok 0");
    fprintf(p.to, "esync %" PRIxPTR "\n", theirs);
    fflush(p.to);
    compat_gate_open(&gate);
    char answer[64];
    ck_assert_ptr_nonnull(fgets(answer, sizeof answer, p.from));
    ck_assert_str_eq(answer, "ok\n");
    ck_assert_str_eq(peer_ask(&p, "equery %" PRIxPTR, theirs), "ok 1");

    /* The gate is made again once its host function is surely done. */
    ACL_OK(aclrtSynchronizeStream(s));
    compat_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(e, s));
    fprintf(p.to, "ewait %" PRIxPTR "\n", theirs);
    fflush(p.to);
    compat_gate_open(&gate);
    ck_assert_ptr_nonnull(fgets(answer, sizeof answer, p.from));
    ck_assert_str_eq(answer, "ok\n");
    expect_ok(peer_ask(&p, "edestroy %" PRIxPTR, theirs));

    /* A handle of this process is opened by another one. */
    aclrtEvent mine;
    ACL_FAILS(aclrtIpcOpenEventHandle(handle, &mine));
    ACL_FAILS_WITH(aclrtIpcOpenEventHandle(handle, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyEvent(e));
    ACL_OK(aclrtDestroyEvent(plain));
    ACL_OK(aclrtDestroyStream(s));
    peer_stop(&p);
}

COMPAT_TEST(test_ipc_event_destroyed_with_work_queued,
            "an IPC event destroyed while its record and waits on it are queued: both streams "
            "still run them and synchronize",
            "API ref aclrtDestroyEvent: non-blocking, resources go when the event's work completes")
{
    aclrtStream s = compat_new_stream(), other = compat_new_stream();
    aclrtEvent e;
    ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    compat_gate gate;
    compat_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(e, s));
    ACL_OK(aclrtStreamWaitEvent(s, e));
    ACL_OK(aclrtStreamWaitEvent(other, e));
    ACL_OK(aclrtDestroyEvent(e));
    compat_gate_open(&gate);
    ACL_OK(aclrtSynchronizeStream(other));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyStream(other));
    ACL_OK(aclrtDestroyStream(s));
}

/* ---- bad arguments ---------------------------------------------------------------- */

static aclrtEvent compat_row_event(void)
{
    aclrtEvent e = NULL;
    ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    return e;
}

ROW(aclrtDeviceGetBareTgid)
{
    REJECTS(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM, "a NULL pid");
}

ROW(aclrtIpcMemGetExportKey)
{
    compat_buffers b = compat_buffers_make();
    unsigned char local[64];
    char key[65];
    REJECTS(aclrtIpcMemGetExportKey(NULL, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL devPtr");
    REJECTS(aclrtIpcMemGetExportKey(b.device, 64, NULL, 65, 0), ACL_ERROR_INVALID_PARAM,
            "a NULL key");
    REJECTS_HOSTILE(aclrtIpcMemGetExportKey(local, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM,
                    "a local variable");
    REJECTS_HOSTILE(aclrtIpcMemGetExportKey(b.pinned, 64, key, 65, 0), ACL_ERROR_INVALID_PARAM,
                    "page-locked memory");
    compat_buffers_free(&b);
}

/* Keys that are none of ours. */
static const char *const bad_keys[] = {"", "x", "acl-cuda-ipc:1:2:3",
                                       "acl-cuda-ipc:2147483647:ffffffffff:ffffffffffffffff"};

ROW(aclrtIpcMemSetImportPid)
{
    int32_t pid = 1;
    REJECTS(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS_HOSTILE(aclrtIpcMemSetImportPid(bad_keys[i], &pid, 1), ACL_ERROR_INVALID_PARAM,
                        bad_keys[i]);
}

ROW(aclrtIpcMemImportPidInterServer)
{
    int32_t pid = 1;
    aclrtServerPid servers = {.sdid = 0, .pid = &pid, .num = 1};
    REJECTS(aclrtIpcMemImportPidInterServer(NULL, &servers, 1), ANY_ERROR, "a NULL key");
    REJECTS(aclrtIpcMemImportPidInterServer("x", NULL, 1), ANY_ERROR, "NULL serverPids");
    REJECTS_HOSTILE(aclrtIpcMemImportPidInterServer("x", &servers, 1), ACL_ERROR_INVALID_PARAM,
                    "an unknown key");
}

ROW(aclrtIpcMemImportByKey)
{
    void *p;
    REJECTS(aclrtIpcMemImportByKey(NULL, "x", 0), ACL_ERROR_INVALID_PARAM, "a NULL devPtr");
    REJECTS(aclrtIpcMemImportByKey(&p, NULL, 0), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS_HOSTILE(aclrtIpcMemImportByKey(&p, bad_keys[i], 0), ACL_ERROR_INVALID_PARAM,
                        bad_keys[i]);
}

ROW(aclrtIpcMemSetAttr)
{
    REJECTS(aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0), ANY_ERROR, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS_HOSTILE(aclrtIpcMemSetAttr(bad_keys[i], ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0),
                        ACL_ERROR_INVALID_PARAM, bad_keys[i]);
}

ROW(aclrtIpcMemClose)
{
    REJECTS(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM, "a NULL key");
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++)
        REJECTS_HOSTILE(aclrtIpcMemClose(bad_keys[i]), ACL_ERROR_INVALID_PARAM, bad_keys[i]);
}

ROW(aclrtIpcGetEventHandle)
{
    aclrtIpcEventHandle handle;
    aclrtEvent e = compat_row_event();
    REJECTS(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM, "a NULL handle");
    REJECTS_HOSTILE(aclrtIpcGetEventHandle(e, &handle), ACL_ERROR_INVALID_PARAM,
                    "an event without IPC");
    FOR_EACH_BAD(KIND_EVENT, h, ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(h, &handle));
    ACL_OK(aclrtDestroyEvent(e));
}

ROW(aclrtIpcOpenEventHandle)
{
    aclrtIpcEventHandle handle;
    aclrtEvent e;
    memset(&handle, 0, sizeof handle);
    REJECTS(aclrtIpcOpenEventHandle(handle, NULL), ACL_ERROR_INVALID_PARAM, "a NULL event");
    REJECTS_HOSTILE(aclrtIpcOpenEventHandle(handle, &e), ANY_ERROR, "a handle of zeros");
    memset(&handle, 0x5A, sizeof handle);
    REJECTS_HOSTILE(aclrtIpcOpenEventHandle(handle, &e), ANY_ERROR, "a handle of garbage");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclrtDeviceGetBareTgid),  COMPAT_ROW(aclrtIpcMemGetExportKey),
    COMPAT_ROW(aclrtIpcMemSetImportPid), COMPAT_ROW(aclrtIpcMemImportPidInterServer),
    COMPAT_ROW(aclrtIpcMemImportByKey),  COMPAT_ROW(aclrtIpcMemSetAttr),
    COMPAT_ROW(aclrtIpcMemClose),        COMPAT_ROW(aclrtIpcGetEventHandle),
    COMPAT_ROW(aclrtIpcOpenEventHandle),
};
COMPAT_BAD_ARGS(ipc, rows);

Suite *compat_suite_ipc(void);
Suite *compat_suite_ipc(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("ipc");
    TCase *tc = tcase_create("two processes");
    tcase_add_checked_fixture(tc, compat_set_up, compat_tear_down);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_key_with_pid_validation);
    tcase_add_test(tc, test_key_without_pid_validation);
    tcase_add_test(tc, test_key_of_interior_range);
    tcase_add_test(tc, test_key_of_ended_process_and_bad_keys);
    tcase_add_test(tc, test_key_withdrawn_by_free);
    tcase_add_test(tc, test_import_outlives_exporter_free);
    tcase_add_test(tc, test_export_behind_queued_work);
    tcase_add_test(tc, test_close_with_queued_copy);
    tcase_add_test(tc, test_key_errors);
    tcase_add_test(tc, test_shareable_handle_v1);
    tcase_add_test(tc, test_shareable_handle_v2_fabric);
    tcase_add_test(tc, test_ipc_event);
    tcase_add_test(tc, test_ipc_event_destroyed_with_work_queued);
    suite_add_tcase(s, tc);
    compat_add_bad_args(s, &compat_rows_ipc);
    return s;
}

COMPAT_MAIN(ipc)
