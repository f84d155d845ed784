/* The other process of the IPC tests (test_ipc.c): reads one command per
 * line on stdin, answers one line on stdout ("ok ...", or "err <code>"),
 * until "quit" or end of input. Numbers are hexadecimal where they are
 * addresses or handles. Uses device 0. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_tdt_queue.h"

static void reply_ret(aclError ret)
{
    if (ret == ACL_SUCCESS)
        printf("ok\n");
    else
        printf("err %d\n", (int)ret);
}

static int hex_byte(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads 2n hex digits into out. */
static int from_hex(const char *text, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_byte(text[2 * i]), lo = hi < 0 ? -1 : hex_byte(text[2 * i + 1]);
        if (lo < 0)
            return -1;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    return 0;
}

/* Holds a stream until opened (a host function in stream order). */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool open;
} gate;

static void gate_body(void *arg)
{
    gate *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* Queues a copy out of imported memory behind a closed gate, closes the
 * key, opens the gate: the copy must still read the memory. Answers "ok",
 * "bad INDEX VALUE" or "err CODE". */
static void copy_then_close(const char *key, void *p, size_t n, int value)
{
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    aclrtStream s = NULL;
    void *local = NULL;
    unsigned char *host = malloc(n);
    aclError ret = host ? aclrtCreateStream(&s) : ACL_ERROR_BAD_ALLOC;
    if (ret == ACL_SUCCESS)
        ret = aclrtMalloc(&local, n, ACL_MEM_MALLOC_HUGE_FIRST);
    if (ret == ACL_SUCCESS)
        ret = aclrtLaunchHostFunc(s, gate_body, &g);
    if (ret == ACL_SUCCESS) {
        aclError queued = aclrtMemcpyAsync(local, n, p, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
        ret = aclrtIpcMemClose(key);
        gate_open(&g);
        aclError synced = aclrtSynchronizeStream(s);
        if (ret == ACL_SUCCESS)
            ret = queued != ACL_SUCCESS ? queued : synced;
    }
    if (ret == ACL_SUCCESS)
        ret = aclrtMemcpy(host, n, local, n, ACL_MEMCPY_DEVICE_TO_HOST);
    size_t i = 0;
    while (ret == ACL_SUCCESS && i < n && host[i] == (unsigned char)value)
        i++;
    if (ret != ACL_SUCCESS)
        reply_ret(ret);
    else if (i < n)
        printf("bad %zu %d\n", i, host[i]);
    else
        printf("ok\n");
    gate_open(&g);
    if (local)
        (void)aclrtFree(local);
    if (s)
        (void)aclrtDestroyStream(s);
    free(host);
}

/* ---- queues (test_tdt_queue.c) ---- */

/* The bytes of message `seed`: byte i is seed + 7 i. */
static void queue_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + 7 * i);
}

/* qattach QID TIMEOUT -> ok PERM; qput QID SIZE SEED; qget QID TIMEOUT ->
 * ok SIZE SEED (err corrupt when the bytes are not the seed's pattern);
 * qflood QID SIZE: answers ok, then enqueues messages until killed;
 * qdestroy QID. False when op is none of these. */
static bool queue_command(const char *op, const char *a, const char *b, const char *c)
{
    uint32_t qid = (uint32_t)strtoul(a, NULL, 10);
    if (strcmp(op, "qattach") == 0) {
        uint32_t perm = 0;
        aclError ret = acltdtAttachQueue(qid, (int32_t)strtol(b, NULL, 10), &perm);
        if (ret == ACL_SUCCESS)
            printf("ok %u\n", perm);
        else
            reply_ret(ret);
    } else if (strcmp(op, "qput") == 0 || strcmp(op, "qflood") == 0) {
        size_t size = strtoul(b, NULL, 10);
        unsigned seed = (unsigned)strtoul(c, NULL, 10);
        unsigned char *data = malloc(size ? size : 1);
        bool flood = strcmp(op, "qflood") == 0;
        if (flood) {
            printf("ok\n");
            fflush(stdout);
        }
        aclError ret = ACL_SUCCESS;
        do {
            queue_pattern(data, size, seed);
            ret = acltdtEnqueueData(qid, data, size, &seed, sizeof seed, -1, 0);
            seed++;
        } while (flood && ret == ACL_SUCCESS);
        free(data);
        if (!flood)
            reply_ret(ret);
    } else if (strcmp(op, "qget") == 0) {
        size_t cap = (size_t)64 << 20, len = 0;
        unsigned char *data = malloc(cap), *want = malloc(cap);
        unsigned seed = 0;
        aclError ret = acltdtDequeueData(qid, data, cap, &len, &seed, sizeof seed,
                                         (int32_t)strtol(b, NULL, 10));
        if (ret == ACL_SUCCESS) {
            queue_pattern(want, len, seed);
            if (memcmp(data, want, len) == 0)
                printf("ok %zu %u\n", len, seed);
            else
                printf("err corrupt\n");
        } else {
            reply_ret(ret);
        }
        free(data);
        free(want);
    } else if (strcmp(op, "qdestroy") == 0) {
        reply_ret(acltdtDestroyQueue(qid));
    } else {
        return false;
    }
    return true;
}

static void command(char *line)
{
    char op[32] = "", a[300] = "", b[64] = "", c[64] = "";
    if (sscanf(line, "%31s %299s %63s %63s", op, a, b, c) < 1)
        return;
    if (strcmp(op, "pid") == 0) {
        int32_t pid = 0;
        aclError ret = aclrtDeviceGetBareTgid(&pid);
        if (ret == ACL_SUCCESS)
            printf("ok %d\n", (int)pid);
        else
            reply_ret(ret);
    } else if (strcmp(op, "import") == 0) { /* import KEY */
        void *p = NULL;
        aclError ret = aclrtIpcMemImportByKey(&p, a, 0);
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)p);
        else
            reply_ret(ret);
    } else if (strcmp(op, "close") == 0) { /* close KEY */
        reply_ret(aclrtIpcMemClose(a));
    } else if (strcmp(op, "check") == 0) { /* check PTR SIZE BYTE */
        void *p = (void *)(uintptr_t)strtoull(a, NULL, 16);
        size_t n = strtoull(b, NULL, 10);
        int value = atoi(c);
        unsigned char *host = malloc(n);
        aclError ret =
            host ? aclrtMemcpy(host, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST) : ACL_ERROR_BAD_ALLOC;
        size_t i = 0;
        while (ret == ACL_SUCCESS && i < n && host[i] == (unsigned char)value)
            i++;
        if (ret != ACL_SUCCESS)
            reply_ret(ret);
        else if (i < n)
            printf("bad %zu %d\n", i, host[i]);
        else
            printf("ok\n");
        free(host);
    } else if (strcmp(op, "copyclose") == 0) { /* copyclose KEY PTR SIZE BYTE */
        char d[32] = "";
        if (sscanf(line, "%*s %*s %*s %*s %31s", d) != 1) {
            printf("err usage\n");
            return;
        }
        copy_then_close(a, (void *)(uintptr_t)strtoull(b, NULL, 16), strtoull(c, NULL, 10),
                        atoi(d));
    } else if (strcmp(op, "fill") == 0) { /* fill PTR SIZE BYTE */
        void *p = (void *)(uintptr_t)strtoull(a, NULL, 16);
        size_t n = strtoull(b, NULL, 10);
        reply_ret(aclrtMemset(p, n, atoi(c), n));
    } else if (strcmp(op, "vimport") == 0) { /* vimport U64 */
        aclrtDrvMemHandle h = NULL;
        aclError ret = aclrtMemImportFromShareableHandle(strtoull(a, NULL, 16), 0, &h);
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)h);
        else
            reply_ret(ret);
    } else if (strcmp(op, "vimport2") == 0) { /* vimport2 HEX-OF-FABRIC-HANDLE */
        aclrtMemFabricHandle f;
        aclrtDrvMemHandle h = NULL;
        aclError ret =
            from_hex(a, f.data, sizeof f.data) == 0
                ? aclrtMemImportFromShareableHandleV2(&f, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h)
                : ACL_ERROR_INVALID_PARAM;
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)h);
        else
            reply_ret(ret);
    } else if (strcmp(op, "vmap") == 0) { /* vmap HANDLE SIZE: reserve and map */
        aclrtDrvMemHandle h = (aclrtDrvMemHandle)(uintptr_t)strtoull(a, NULL, 16);
        size_t n = strtoull(b, NULL, 10);
        void *va = NULL;
        aclError ret = aclrtReserveMemAddress(&va, n, 0, NULL, 0);
        if (ret == ACL_SUCCESS)
            ret = aclrtMapMem(va, n, 0, h, 0);
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)va);
        else
            reply_ret(ret);
    } else if (strcmp(op, "vunmap") == 0) { /* vunmap VA HANDLE: unmap, free, release */
        void *va = (void *)(uintptr_t)strtoull(a, NULL, 16);
        aclrtDrvMemHandle h = (aclrtDrvMemHandle)(uintptr_t)strtoull(b, NULL, 16);
        aclError ret = aclrtUnmapMem(va);
        if (ret == ACL_SUCCESS)
            ret = aclrtFreePhysical(h);
        if (ret == ACL_SUCCESS)
            ret = aclrtReleaseMemAddress(va);
        reply_ret(ret);
    } else if (strcmp(op, "nimport") == 0) { /* nimport KEY: a notify */
        aclrtNotify n = NULL;
        aclError ret = aclrtNotifyImportByKey(&n, a, 0);
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)n);
        else
            reply_ret(ret);
    } else if (strcmp(op, "ndestroy") == 0) { /* ndestroy NOTIFY */
        reply_ret(aclrtDestroyNotify((aclrtNotify)(uintptr_t)strtoull(a, NULL, 16)));
    } else if (strcmp(op, "eopen") == 0) { /* eopen HEX-OF-HANDLE */
        aclrtIpcEventHandle h;
        aclrtEvent e = NULL;
        aclError ret = from_hex(a, (unsigned char *)h.reserved, sizeof h.reserved) == 0
                           ? aclrtIpcOpenEventHandle(h, &e)
                           : ACL_ERROR_INVALID_PARAM;
        if (ret == ACL_SUCCESS)
            printf("ok %" PRIxPTR "\n", (uintptr_t)e);
        else
            reply_ret(ret);
    } else if (strcmp(op, "equery") == 0) { /* equery EVENT: 1 when complete */
        aclrtEventRecordedStatus status;
        aclError ret = aclrtQueryEventStatus((aclrtEvent)(uintptr_t)strtoull(a, NULL, 16), &status);
        if (ret == ACL_SUCCESS)
            printf("ok %d\n", status == ACL_EVENT_RECORDED_STATUS_COMPLETE);
        else
            reply_ret(ret);
    } else if (strcmp(op, "esync") == 0) { /* esync EVENT */
        reply_ret(aclrtSynchronizeEvent((aclrtEvent)(uintptr_t)strtoull(a, NULL, 16)));
    } else if (strcmp(op, "ewait") == 0) { /* ewait EVENT: a stream waits, then is synchronized */
        aclrtStream s = NULL;
        aclError ret = aclrtCreateStream(&s);
        if (ret == ACL_SUCCESS)
            ret = aclrtStreamWaitEvent(s, (aclrtEvent)(uintptr_t)strtoull(a, NULL, 16));
        if (ret == ACL_SUCCESS)
            ret = aclrtSynchronizeStream(s);
        if (s)
            (void)aclrtDestroyStream(s);
        reply_ret(ret);
    } else if (strcmp(op, "edestroy") == 0) {
        reply_ret(aclrtDestroyEvent((aclrtEvent)(uintptr_t)strtoull(a, NULL, 16)));
    } else if (!queue_command(op, a, b, c)) {
        printf("err unknown-command\n");
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        printf("err setdevice\n");
        return 1;
    }
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "quit", 4) == 0)
            break;
        command(line);
        fflush(stdout);
    }
    (void)aclrtResetDevice(0);
    return 0;
}
