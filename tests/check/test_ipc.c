/* IPC across real processes: this suite runs ipc_peer (fork + exec) and
 * talks to it over pipes, one command per line. Memory keys with and
 * without pid validation, shareable handles of physical memory (V1 and
 * V2), IPC events, and what must be refused. Public API only: the same
 * tests run on every backend. */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acltest.h"

/* ---- the peer process -------------------------------------------------------------- */

typedef struct peer {
    pid_t pid;
    FILE *to, *from;
    int32_t tgid; /* what aclrtDeviceGetBareTgid says in the peer */
} peer;

static void peer_start(peer *p)
{
    const char *dir = getenv("ACLCUDA_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/check/ipc_peer", dir ? dir : ".");
    int in[2], out[2];
    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->pid = pid;
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    ck_assert_ptr_nonnull(p->to);
    ck_assert_ptr_nonnull(p->from);
    setvbuf(p->to, NULL, _IOLBF, 0);
    char answer[256];
    fprintf(p->to, "pid\n");
    ck_assert_msg(fgets(answer, sizeof answer, p->from) != NULL, "%s did not start", path);
    ck_assert_msg(sscanf(answer, "ok %" SCNd32, &p->tgid) == 1, "peer: %s", answer);
}

/* Sends a command; the answer, without its newline, in a static buffer. */
static const char *peer_ask(peer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *peer_ask(peer *p, const char *fmt, ...)
{
    static char answer[512];
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->to, fmt, ap);
    va_end(ap);
    fputc('\n', p->to);
    fflush(p->to);
    ck_assert_msg(fgets(answer, sizeof answer, p->from) != NULL, "the peer did not answer");
    answer[strcspn(answer, "\n")] = '\0';
    return answer;
}

static void peer_stop(peer *p)
{
    fprintf(p->to, "quit\n");
    fclose(p->to);
    fclose(p->from);
    int status;
    ck_assert_int_eq(waitpid(p->pid, &status, 0), p->pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the peer ended badly (%d)",
                  status);
}

/* "ok <hex>" → the number. */
static uintptr_t ok_hex(const char *answer)
{
    uintptr_t v = 0;
    ck_assert_msg(sscanf(answer, "ok %" SCNxPTR, &v) == 1, "peer answered: %s", answer);
    return v;
}

static void expect_ok(const char *answer)
{
    ck_assert_msg(strcmp(answer, "ok") == 0, "peer answered: %s", answer);
}

static void expect_err(const char *answer, aclError code)
{
    char want[32];
    snprintf(want, sizeof want, "err %d", (int)code);
    ck_assert_msg(strcmp(answer, want) == 0, "peer answered \"%s\", expected \"%s\"", answer,
                  want);
}

static void to_hex(const void *data, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)data)[i]);
}

static void check_device(const void *dev, size_t n, unsigned char value)
{
    unsigned char *host = malloc(n);
    ACL_OK(aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < n; i++)
        if (host[i] != value)
            ck_abort_msg("byte %zu is 0x%02x, expected 0x%02x", i, host[i], value);
    free(host);
}

enum { N = 64 * 1024 };

/* ---- memory keys ---------------------------------------------------------------------- */

START_TEST(test_key_with_pid_validation)
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
    expect_err(peer_ask(&p, "import %s", key), ACL_ERROR_RT_NO_PERMISSION);
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
    /* Closed in the peer: its address is no memory of ACL's there any more. */
    expect_err(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x33), ACL_ERROR_INVALID_PARAM);
    expect_err(peer_ask(&p, "close %s", key), ACL_ERROR_INVALID_PARAM);

    /* Closed by the exporter: nobody imports it any more. */
    ACL_OK(aclrtIpcMemClose(key));
    expect_err(peer_ask(&p, "import %s", key), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemClose(key), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemSetImportPid(key, pids, 2), ACL_ERROR_INVALID_PARAM);
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}
END_TEST

START_TEST(test_key_without_pid_validation)
{
    peer p;
    peer_start(&p);
    unsigned char *dev;
    ACL_OK(aclrtMalloc((void **)&dev, 2 * N, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, 2 * N, 0x00, 2 * N));
    ACL_OK(aclrtMemset(dev + N, N, 0x6B, N));
    char key[65];
    /* An interior address: the key names that part. */
    ACL_OK(aclrtIpcMemGetExportKey(dev + N, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x6B));
    /* Only the exported size is memory there. */
    expect_err(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N + 64, 0x6B),
               ACL_ERROR_INVALID_PARAM);
    expect_ok(peer_ask(&p, "close %s", key));
    ACL_OK(aclrtIpcMemClose(key));
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}
END_TEST

/* A key names a live export of a running process. */
START_TEST(test_key_of_ended_process_and_bad_keys)
{
    peer p;
    peer_start(&p);
    expect_err(peer_ask(&p, "import not-a-key"), ACL_ERROR_INVALID_PARAM);
    expect_err(peer_ask(&p, "import acl-cuda-ipc:1:1:0000000000000001"), ACL_ERROR_INVALID_PARAM);
    void *dev;
    ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, 1));
    /* A wrong nonce names nothing. */
    char forged[65];
    snprintf(forged, sizeof forged, "%s", key);
    forged[strlen(forged) - 1] = forged[strlen(forged) - 1] == '0' ? '1' : '0';
    expect_err(peer_ask(&p, "import %s", forged), ACL_ERROR_INVALID_PARAM);
    /* The exporting process does not import its own key. */
    void *self;
    ACL_FAILS_WITH(aclrtIpcMemImportByKey(&self, key, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
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
    expect_err(peer_ask(&q, "import %s", dead), ACL_ERROR_INVALID_PARAM);
    peer_stop(&q);
    ACL_OK(aclrtFree(dev));
}
END_TEST

START_TEST(test_key_errors)
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
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, N, key, 8, 0), ACL_ERROR_RT_PARAM_INVALID);
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
END_TEST

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

START_TEST(test_shareable_handle_v1)
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
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &again),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* Not listed yet. */
    expect_err(peer_ask(&p, "vimport %" PRIx64, shareable), ACL_ERROR_RT_NO_PERMISSION);
    ACL_OK(aclrtMemSetPidToShareableHandle(shareable, &p.tgid, 1));
    uintptr_t theirs = ok_hex(peer_ask(&p, "vimport %" PRIx64, shareable));
    /* Imported once per process. */
    expect_err(peer_ask(&p, "vimport %" PRIx64, shareable), ACL_ERROR_RT_PARAM_INVALID);
    uintptr_t their_va = ok_hex(peer_ask(&p, "vmap %" PRIxPTR " %zu", theirs, g));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %zu %d", their_va, g, 0x17));
    expect_ok(peer_ask(&p, "fill %" PRIxPTR " %zu %d", their_va, g, 0x71));
    check_device(va, g, 0x71);
    expect_ok(peer_ask(&p, "vunmap %" PRIxPTR " %" PRIxPTR, their_va, theirs));
    /* The exporting process does not import its own. */
    aclrtDrvMemHandle mine;
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandle(shareable, 0, &mine),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandle(shareable, 0, NULL), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, NULL, 1), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable, &p.tgid, 0), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandle(shareable + 1, &p.tgid, 1),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &again),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 2, &again),
                   ACL_ERROR_RT_PARAM_INVALID);
    /* Freed: the shareable handle names nothing any more. */
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    expect_err(peer_ask(&p, "vimport %" PRIx64, shareable), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtReleaseMemAddress(va));
    peer_stop(&p);
}
END_TEST

START_TEST(test_shareable_handle_v2_fabric)
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
    ACL_OK(aclrtMemSetPidToShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &p.tgid,
                                             1));
    ACL_FAILS_WITH(aclrtMemSetPidToShareableHandleV2(&fabric, (aclrtMemSharedHandleType)7,
                                                     &p.tgid, 1),
                   ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemFabricHandle junk;
    memset(&junk, 0x11, sizeof junk);
    aclrtDrvMemHandle mine;
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandleV2(&junk, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0,
                                                       &mine),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemImportFromShareableHandleV2(&fabric, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
                                                       1, &mine),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtFreePhysical(h));
    ACL_OK(aclrtReleaseMemAddress(va));
    peer_stop(&p);
}
END_TEST

/* ---- IPC events ------------------------------------------------------------------------ */

START_TEST(test_ipc_event)
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
    aclrtStream s = acltest_new_stream();
    acltest_gate gate;
    acltest_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(e, s));
    ck_assert_str_eq(peer_ask(&p, "equery %" PRIxPTR, theirs), "ok 0");
    fprintf(p.to, "esync %" PRIxPTR "\n", theirs);
    fflush(p.to);
    acltest_gate_open(&gate);
    char answer[64];
    ck_assert_ptr_nonnull(fgets(answer, sizeof answer, p.from));
    ck_assert_str_eq(answer, "ok\n");
    ck_assert_str_eq(peer_ask(&p, "equery %" PRIxPTR, theirs), "ok 1");

    acltest_gate_close(&gate, s);
    ACL_OK(aclrtRecordEvent(e, s));
    fprintf(p.to, "ewait %" PRIxPTR "\n", theirs);
    fflush(p.to);
    acltest_gate_open(&gate);
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
END_TEST

static Suite *ipc_suite(void)
{
    Suite *s = suite_create("ipc");
    TCase *tc = tcase_create("ipc");
    tcase_add_checked_fixture(tc, acltest_set_device, acltest_reset_device);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_key_with_pid_validation);
    tcase_add_test(tc, test_key_without_pid_validation);
    tcase_add_test(tc, test_key_of_ended_process_and_bad_keys);
    tcase_add_test(tc, test_key_errors);
    tcase_add_test(tc, test_shareable_handle_v1);
    tcase_add_test(tc, test_shareable_handle_v2_fabric);
    tcase_add_test(tc, test_ipc_event);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    return acltest_run(ipc_suite());
}
