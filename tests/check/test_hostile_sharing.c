/* What this process shares with others (IPC memory keys, notifies,
 * shareable handles of physical memory), attacked by a hostile process of
 * the same user: raw clients of the sharing broker (garbage, truncated and
 * oversized messages, descriptors sent to it, connections held open idle),
 * processes not on an allow-list, forged files, guessed keys and handles,
 * imports after free and close, a notify's page resized by its importer or
 * handed out unsealed. Each attack fails cleanly (an error code, nothing
 * handed out), and the exporter goes on serving its legitimate importers
 * (ipc_peer, a real second process). What sharing costs a process (the
 * mappings and descriptors of notify pages) ends with what it shared.
 *
 * The raw clients speak the broker's protocol (core/share.h) from this
 * process or from a forked child that calls no ACL function. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_cuda.h"
#include "acltest.h"
#include "core/ipc.h"
#include "core/share.h"
#include "ipc_peer.h"

/* Exported memory: whole 2 MiB blocks (on CUDA nothing smaller is exported). */
enum { N = 2 << 20 };

/* ---- a raw client of the broker ------------------------------------------------------ */

/* The abstract address of name `which` of process pid's broker
 * (src/core/share.c's socket_name); its length. */
static socklen_t broker_address(int32_t pid, unsigned which, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    int n = which == 0 ? snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                                  "acl-cuda.share.%d", (int)pid)
                       : snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                                  "acl-cuda.share.%d.%u", (int)pid, which);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static int broker_connect(int32_t pid)
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(s, 0);
    struct sockaddr_un addr;
    socklen_t len = broker_address(pid, 0, &addr);
    ck_assert_msg(connect(s, (struct sockaddr *)&addr, len) == 0, "cannot reach the broker: %s",
                  strerror(errno));
    /* A hang guard only: the broker answers at once or closes. */
    struct timeval tv = {.tv_sec = 30};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return s;
}

/* What the broker did with one message. */
typedef struct answer {
    bool replied; /* false: it closed the connection without a word */
    int32_t status;
    int fd; /* a descriptor it passed, -1 for none */
    uint32_t len;
} answer;

/* Sends msg (with a descriptor of ours attached when pass_fd >= 0) on s
 * and reads the answer. */
static answer exchange_on(int s, const void *msg, size_t len, int pass_fd)
{
    struct iovec iov = {(void *)msg, len};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr out = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass_fd >= 0) {
        memset(&control, 0, sizeof control);
        out.msg_control = control.buf;
        out.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&out);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pass_fd, sizeof pass_fd);
    }
    ck_assert_int_eq(sendmsg(s, &out, MSG_NOSIGNAL), (ssize_t)len);
    share_reply rep;
    struct iovec in_iov = {&rep, sizeof rep};
    struct msghdr in = {.msg_iov = &in_iov,
                        .msg_iovlen = 1,
                        .msg_control = control.buf,
                        .msg_controllen = sizeof control.buf};
    ssize_t got = recvmsg(s, &in, MSG_CMSG_CLOEXEC);
    ck_assert_msg(got >= 0, "the broker neither answered nor closed: %s", strerror(errno));
    answer a = {.replied = got > 0, .status = 0, .fd = -1, .len = 0};
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&in); c; c = CMSG_NXTHDR(&in, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&a.fd, CMSG_DATA(c), sizeof a.fd);
    if (got > 0) {
        ck_assert_int_eq(got, (ssize_t)sizeof rep);
        ck_assert_uint_eq(rep.magic, SHARE_MAGIC);
        a.status = rep.status;
        a.len = rep.len;
    }
    return a;
}

static answer exchange(int32_t pid, const void *msg, size_t len, int pass_fd)
{
    int s = broker_connect(pid);
    answer a = exchange_on(s, msg, len, pass_fd);
    close(s);
    return a;
}

/* The request for an entry named by an IPC memory key. */
static share_request key_request(const char *key, int32_t *pid)
{
    share_request req = {.magic = SHARE_MAGIC, .kind = SHARE_IPC_MEMORY};
    ck_assert_msg(
        sscanf(key, "acl-cuda-ipc:%" SCNd32 ":%" SCNx64 ":%" SCNx64, pid, &req.id, &req.nonce) == 3,
        "unexpected key format: %s", key);
    return req;
}

static void expect_refused(answer a, const char *what)
{
    ck_assert_msg(a.fd < 0, "%s: the broker handed out a descriptor", what);
    ck_assert_msg(!a.replied || a.status != ACL_SUCCESS, "%s: the broker answered success", what);
    if (a.fd >= 0)
        close(a.fd);
}

static void *device_filled(size_t n, int value)
{
    void *dev;
    ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMemset(dev, n, value, n));
    return dev;
}

static bool host_backend(void)
{
    return strcmp(aclcudaGetBackendName(), "host") == 0;
}

/* ---- the broker under attack --------------------------------------------------------- */

/* Connections held open without a request must not keep the broker from
 * answering others. */
COMPAT_TEST(broker_serves_others_past_idle_connections,
            "connections held open idle by another process do not delay or fail a legitimate "
            "import",
            "issue 26 item 17")
{
    peer p;
    peer_start(&p);
    void *dev = device_filled(N, 0x3C);
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    /* More than the broker keeps waiting at once: the oldest go first. */
    enum { IDLE = 200 };
    int idle[IDLE];
    for (int i = 0; i < IDLE; i++)
        idle[i] = broker_connect((int32_t)getpid());
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x3C));
    expect_ok(peer_ask(&p, "close %s", key));
    /* One of them speaking up late is still answered or dropped, never hangs. */
    share_request late = {.magic = SHARE_MAGIC, .kind = SHARE_IPC_MEMORY};
    ck_assert_int_eq(send(idle[IDLE - 1], &late, sizeof late, MSG_NOSIGNAL), (ssize_t)sizeof late);
    share_reply rep;
    (void)recv(idle[IDLE - 1], &rep, sizeof rep, 0);
    for (int i = 0; i < IDLE; i++)
        close(idle[i]);
    ACL_OK(aclrtIpcMemClose(key));
    peer_stop(&p);
    ACL_OK(aclrtFree(dev));
}

/* Forks a process, calling no ACL function, that runs body(ready, arg):
 * body writes a byte to ready once it listens, and never returns. Returns
 * once it listens. The process dies with this one. */
static pid_t listener_start(void (*body)(int ready, const void *arg), const void *arg)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(ready[0]);
        body(ready[1], arg);
        _exit(0);
    }
    close(ready[1]);
    char r;
    ck_assert_int_eq(read(ready[0], &r, 1), 1);
    close(ready[0]);
    return pid;
}

typedef struct squat {
    int32_t victim;
    unsigned names;
} squat;

/* Listens under the first names of the victim's broker, each with a
 * backlog it keeps full, until killed. */
static void squat_names(int ready, const void *arg)
{
    const squat *q = arg;
    for (unsigned which = 0; which < q->names; which++) {
        struct sockaddr_un addr;
        socklen_t len = broker_address(q->victim, which, &addr);
        int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        if (l < 0 || bind(l, (struct sockaddr *)&addr, len) != 0 || listen(l, 0) != 0)
            _exit(2);
        for (int k = 0; k < 2; k++) {
            int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
            (void)connect(c, (struct sockaddr *)&addr, len);
        }
    }
    if (write(ready, "r", 1) != 1)
        _exit(2);
    for (;;)
        pause();
}

COMPAT_TEST(squatted_broker_names_do_not_stall_imports,
            "another process listening under fifteen of the exporter's broker names, with "
            "backlogs it keeps full, does not keep an importer from the broker (its tcase's "
            "timeout is the bound: each such name held a blocking connect for 5 s)",
            "hardening round two: an import took 77 s")
{
    pid_t squatter = listener_start(squat_names, &(squat){(int32_t)getpid(), 15});
    peer p;
    peer_start(&p);
    void *dev = device_filled(N, 0x5E); /* the broker starts under the sixteenth name */
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x5E));
    expect_ok(peer_ask(&p, "close %s", key));
    peer_stop(&p);
    kill(squatter, SIGKILL);
    ck_assert_int_eq(waitpid(squatter, NULL, 0), squatter);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(broker_refuses_malformed_messages,
            "garbage, truncated, oversized and empty messages, unknown kinds, wrong nonces and "
            "descriptors sent to the broker are refused without a descriptor; it serves "
            "legitimate importers afterwards",
            "issue 26 items 16, 17")
{
    void *dev = device_filled(N, 0x4D);
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    int32_t pid;
    share_request good = key_request(key, &pid);
    ck_assert_int_eq(pid, (int32_t)getpid());

    unsigned char junk[sizeof good + 64];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 77 + 13);
    expect_refused(exchange(pid, junk, sizeof good, -1), "garbage");
    expect_refused(exchange(pid, &good, 4, -1), "a truncated request");
    expect_refused(exchange(pid, &good, sizeof good - 1, -1), "a request one byte short");
    unsigned char oversized[sizeof good + 64];
    memset(oversized, 0, sizeof oversized);
    memcpy(oversized, &good, sizeof good);
    expect_refused(exchange(pid, oversized, sizeof oversized, -1), "an oversized request");
    share_request bad = good;
    bad.magic ^= 1;
    expect_refused(exchange(pid, &bad, sizeof bad, -1), "a wrong magic");
    bad = good;
    bad.kind = 99;
    expect_refused(exchange(pid, &bad, sizeof bad, -1), "an unknown kind");
    bad = good;
    bad.kind = SHARE_PHYSICAL;
    expect_refused(exchange(pid, &bad, sizeof bad, -1), "another kind of entry");
    bad = good;
    bad.nonce ^= 1;
    expect_refused(exchange(pid, &bad, sizeof bad, -1), "a wrong nonce");
    bad = good;
    bad.id += 1;
    expect_refused(exchange(pid, &bad, sizeof bad, -1), "the next id");
    /* A descriptor sent along is not taken. */
    int mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(mine, 0);
    expect_refused(exchange(pid, junk, sizeof good, mine), "garbage with a descriptor");
    close(mine);
    /* A connection closed before a word. */
    close(broker_connect(pid));

    /* The broker still serves the well-formed request, once per connection. */
    int s = broker_connect(pid);
    answer a = exchange_on(s, &good, sizeof good, -1);
    ck_assert(a.replied);
    ck_assert_int_eq(a.status, ACL_SUCCESS);
    if (a.fd >= 0)
        close(a.fd);
    close(s);
    peer p;
    peer_start(&p);
    uintptr_t there = ok_hex(peer_ask(&p, "import %s", key));
    expect_ok(peer_ask(&p, "check %" PRIxPTR " %d %d", there, N, 0x4D));
    expect_ok(peer_ask(&p, "close %s", key));
    peer_stop(&p);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}

/* Runs fn in a forked child that calls no ACL function; its exit status
 * (0: every attack failed as it should). */
static int in_child(int (*fn)(const void *), const void *arg)
{
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(fn(arg));
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status), "the hostile child crashed (0x%x)", status);
    return WEXITSTATUS(status);
}

/* In the child: the raw request, whose answer must be a refusal with
 * ACL_ERROR_RT_NO_PERMISSION and no descriptor. */
static int request_refused(const void *arg)
{
    const share_request *req = arg;
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr;
    socklen_t len = broker_address((int32_t)getppid(), 0, &addr);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, len) != 0)
        return 2;
    if (send(s, req, sizeof *req, MSG_NOSIGNAL) != (ssize_t)sizeof *req)
        return 3;
    share_reply rep;
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&rep, sizeof rep};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t got = recvmsg(s, &msg, 0);
    if (got != (ssize_t)sizeof rep)
        return 4;
    if (msg.msg_controllen != 0)
        return 5; /* a descriptor came */
    return rep.status == ACL_ERROR_RT_NO_PERMISSION ? 0 : 6;
}

COMPAT_TEST(broker_refuses_processes_not_listed,
            "a process not on a key's allow-list asking the broker directly gets "
            "ACL_ERROR_RT_NO_PERMISSION and nothing else",
            "issue 26 item 16")
{
    void *dev = device_filled(N, 0x11);
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    int32_t someone = 1;
    ACL_OK(aclrtIpcMemSetImportPid(key, &someone, 1));
    int32_t pid;
    share_request req = key_request(key, &pid);
    ck_assert_int_eq(in_child(request_refused, &req), 0);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(broker_forgets_freed_and_closed_memory,
            "asking the broker directly for a key whose memory was freed, or that its exporter "
            "closed, gets ACL_ERROR_INVALID_PARAM and no descriptor",
            "issue 26 items 14, 17")
{
    void *freed = device_filled(N, 0x44), *closed = device_filled(N, 0x45);
    char freed_key[65], closed_key[65];
    ACL_OK(aclrtIpcMemGetExportKey(freed, N, freed_key, sizeof freed_key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    ACL_OK(aclrtIpcMemGetExportKey(closed, N, closed_key, sizeof closed_key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    int32_t pid;
    share_request freed_req = key_request(freed_key, &pid);
    share_request closed_req = key_request(closed_key, &pid);
    ACL_OK(aclrtFree(freed));
    ACL_OK(aclrtIpcMemClose(closed_key));
    void *next = device_filled(N, 0x46); /* likely where the freed block was */
    answer a = exchange(pid, &freed_req, sizeof freed_req, -1);
    expect_refused(a, "a freed key");
    ck_assert_int_eq(a.status, ACL_ERROR_INVALID_PARAM);
    a = exchange(pid, &closed_req, sizeof closed_req, -1);
    expect_refused(a, "a closed key");
    ck_assert_int_eq(a.status, ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtIpcMemClose(freed_key));
    ACL_OK(aclrtFree(closed));
    ACL_OK(aclrtFree(next));
}

/* ---- allow-lists and names ---------------------------------------------------------- */

/* What a guesser tries from a key it knows: every number in it other than
 * the pid (runs of hexadecimal digits between '-' and ':', read as
 * decimal and as hexadecimal, the width kept) moved by -3..3. */
enum { GUESSES = 64, GUESS_LEN = 96 };

static size_t guesses_from(const char *key, char out[GUESSES][GUESS_LEN])
{
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    size_t count = 0, len = strlen(key);
    for (size_t start = 0; start < len;) {
        size_t end = start;
        while (end < len && key[end] != '-' && key[end] != ':')
            end++;
        size_t width = end - start;
        bool hex = width > 0 && width < 17, dec = hex;
        for (size_t i = start; i < end; i++) {
            hex = hex && strchr("0123456789abcdef", key[i]) != NULL;
            dec = dec && key[i] >= '0' && key[i] <= '9';
        }
        bool is_pid = width == strlen(pid) && strncmp(key + start, pid, width) == 0;
        for (int base = 10; (hex || dec) && !is_pid && base <= 16; base += 6) {
            if (base == 10 && !dec)
                continue;
            char digits[20];
            memcpy(digits, key + start, width);
            digits[width] = '\0';
            unsigned long long v = strtoull(digits, NULL, base);
            for (int k = -3; k <= 3 && count < GUESSES; k++) {
                char number[24];
                snprintf(number, sizeof number, base == 10 ? "%0*llu" : "%0*llx", (int)width,
                         v + (unsigned long long)(long long)k);
                if (k == 0)
                    continue;
                snprintf(out[count++], GUESS_LEN, "%.*s%s%s", (int)start, key, number, key + end);
            }
        }
        start = end + 1;
    }
    return count;
}

COMPAT_TEST(guessed_notify_keys_import_nothing,
            "keys made from a known notify key by changing its numbers import nothing, not even "
            "a notify exported without pid validation",
            "issue 26 item 16")
{
    aclrtNotify known, hidden;
    ACL_OK(aclrtCreateNotify(&known, 0));
    ACL_OK(aclrtCreateNotify(&hidden, 0));
    char key[65], hidden_key[65];
    ACL_OK(aclrtNotifyGetExportKey(known, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ACL_OK(aclrtNotifyGetExportKey(hidden, hidden_key, sizeof hidden_key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    peer p;
    peer_start(&p);
    expect_fail(peer_ask(&p, "nimport %s", key)); /* not listed */
    char guesses[GUESSES][GUESS_LEN];
    size_t count = guesses_from(key, guesses);
    ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        const char *reply = peer_ask(&p, "nimport %s", guesses[i]);
        ck_assert_msg(strncmp(reply, "err ", 4) == 0, "the guess %s imported a notify", guesses[i]);
    }
    /* The hidden key itself works for whoever was given it. */
    uintptr_t theirs = ok_hex(peer_ask(&p, "nimport %s", hidden_key));
    expect_ok(peer_ask(&p, "ndestroy %" PRIxPTR, theirs));
    peer_stop(&p);
    ACL_OK(aclrtDestroyNotify(known));
    ACL_OK(aclrtDestroyNotify(hidden));
}

static aclrtDrvMemHandle physical_handle(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t g;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    aclrtDrvMemHandle h;
    ACL_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    return h;
}

COMPAT_TEST(guessed_shareable_handles_import_nothing,
            "64-bit shareable handles near a known one import nothing, not even physical memory "
            "exported without pid validation",
            "issue 26 item 16")
{
    aclrtDrvMemHandle known = physical_handle(), hidden = physical_handle();
    uint64_t known_handle, hidden_handle;
    ACL_OK(aclrtMemExportToShareableHandle(known, ACL_MEM_HANDLE_TYPE_NONE,
                                           ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &known_handle));
    ACL_OK(aclrtMemExportToShareableHandle(hidden, ACL_MEM_HANDLE_TYPE_NONE,
                                           ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                           &hidden_handle));
    peer p;
    peer_start(&p);
    expect_fail(peer_ask(&p, "vimport %" PRIx64, known_handle)); /* not listed */
    for (int64_t k = -8; k <= 8; k++) {
        if (k == 0)
            continue;
        const char *reply = peer_ask(&p, "vimport %" PRIx64, known_handle + (uint64_t)k);
        ck_assert_msg(strncmp(reply, "err ", 4) == 0,
                      "the guess %" PRIx64 " imported physical memory", known_handle + (uint64_t)k);
    }
    ok_hex(peer_ask(&p, "vimport %" PRIx64, hidden_handle));
    peer_stop(&p);
    ACL_OK(aclrtFreePhysical(known));
    ACL_OK(aclrtFreePhysical(hidden));
}

/* The allow-list checks of one export, whose list setter is allow(pids, n). */
typedef aclError (*allow_fn)(const void *exported, int32_t *pids, size_t n);

static void allow_list_checked(allow_fn allow, const void *exported, const char *what)
{
    int32_t bad[] = {7, 0}, negative = -1, same[64];
    ck_assert_msg(allow(exported, bad, 2) == ACL_ERROR_INVALID_PARAM, "%s took pid 0", what);
    ck_assert_msg(allow(exported, &negative, 1) == ACL_ERROR_INVALID_PARAM, "%s took pid -1", what);
    /* A pid allowed again counts once: the list does not grow with it. */
    for (size_t i = 0; i < 64; i++)
        same[i] = 4242;
    for (int round = 0; round < 100; round++)
        ck_assert_msg(allow(exported, same, 64) == ACL_SUCCESS, "%s refused a repeat", what);
    static int32_t many[1025];
    for (size_t i = 0; i < 1025; i++)
        many[i] = (int32_t)(100000 + i);
    ck_assert_msg(allow(exported, many, 1025) == ACL_ERROR_INVALID_PARAM,
                  "%s took 1025 processes at once", what);
    ck_assert_msg(allow(exported, many, 1023) == ACL_SUCCESS, "%s refused 1024 processes", what);
    ck_assert_msg(allow(exported, many + 1023, 1) == ACL_ERROR_INVALID_PARAM,
                  "%s took a 1025th process", what);
    ck_assert_msg(allow(exported, many, 1) == ACL_SUCCESS, "%s refused a listed one", what);
}

static aclError allow_memory(const void *key, int32_t *pids, size_t n)
{
    return aclrtIpcMemSetImportPid(key, pids, n);
}

static aclError allow_physical(const void *handle, int32_t *pids, size_t n)
{
    return aclrtMemSetPidToShareableHandle(*(const uint64_t *)handle, pids, n);
}

static aclError allow_notify(const void *notify, int32_t *pids, size_t n)
{
    return aclrtNotifySetImportPid(*(aclrtNotify const *)notify, pids, n);
}

COMPAT_TEST(allow_lists_take_process_ids_only,
            "each kind of export refuses pids that are not process ids, counts a pid allowed "
            "again once, and stops at 1024 processes",
            "hardening round two")
{
    void *dev = device_filled(N, 0x21);
    char key[65];
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    allow_list_checked(allow_memory, key, "a memory key");
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
    aclrtDrvMemHandle physical = physical_handle();
    uint64_t handle;
    ACL_OK(aclrtMemExportToShareableHandle(physical, ACL_MEM_HANDLE_TYPE_NONE,
                                           ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &handle));
    allow_list_checked(allow_physical, &handle, "a shareable handle");
    ACL_OK(aclrtFreePhysical(physical));
    aclrtNotify notify;
    ACL_OK(aclrtCreateNotify(&notify, 0));
    char notify_key[65];
    ACL_OK(aclrtNotifyGetExportKey(notify, notify_key, sizeof notify_key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    allow_list_checked(allow_notify, &notify, "a notify");
    ACL_OK(aclrtDestroyNotify(notify));
}

COMPAT_TEST(guessed_memory_keys_import_nothing,
            "IPC keys made from a known key by changing its numbers import nothing",
            "issue 26 item 16")
{
    void *known = device_filled(N, 1), *hidden = device_filled(N, 2);
    char key[65], hidden_key[65];
    ACL_OK(aclrtIpcMemGetExportKey(known, N, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    ACL_OK(aclrtIpcMemGetExportKey(hidden, N, hidden_key, sizeof hidden_key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    peer p;
    peer_start(&p);
    char guesses[GUESSES][GUESS_LEN];
    size_t count = guesses_from(key, guesses);
    ck_assert_uint_gt(count, 0);
    for (size_t i = 0; i < count; i++) {
        const char *reply = peer_ask(&p, "import %s", guesses[i]);
        ck_assert_msg(strncmp(reply, "err ", 4) == 0, "the guess %s imported memory", guesses[i]);
    }
    peer_stop(&p);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtIpcMemClose(hidden_key));
    ACL_OK(aclrtFree(known));
    ACL_OK(aclrtFree(hidden));
}

/* Sets the pid check of every notify page this process exported through
 * /dev/shm off, as any process of the user could. */
static int forge_notify_files(void)
{
    char prefix[64];
    int n = snprintf(prefix, sizeof prefix, "acl-cuda-notify-%d-", (int)getpid());
    DIR *dir = opendir("/dev/shm");
    int forged = 0;
    for (struct dirent *d; dir && (d = readdir(dir)) != NULL;) {
        if (strncmp(d->d_name, prefix, (size_t)n) != 0)
            continue;
        char path[320];
        snprintf(path, sizeof path, "/dev/shm/%s", d->d_name);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        uint32_t off = 0;
        if (fd >= 0 && pwrite(fd, &off, sizeof off, 4) == (ssize_t)sizeof off)
            forged++;
        if (fd >= 0)
            close(fd);
    }
    if (dir)
        closedir(dir);
    return forged;
}

COMPAT_TEST(forged_files_do_not_allow_an_import,
            "rewriting shared files cannot put a process on a notify's allow-list: the "
            "exporter decides",
            "issue 26 item 16")
{
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    int32_t someone = 1;
    ACL_OK(aclrtNotifySetImportPid(n, &someone, 1));
    (void)forge_notify_files();
    peer p;
    peer_start(&p);
    expect_fail(peer_ask(&p, "nimport %s", key));
    peer_stop(&p);
    ACL_OK(aclrtDestroyNotify(n));
}

/* ---- nothing beyond what was exported ------------------------------------------------ */

/* Exports dev's N bytes to anyone (key) and fetches, as an importer would,
 * the descriptor the broker hands out for them (host backend). */
static int exported_file(void *dev, char key[65])
{
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, 65,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    int32_t pid;
    share_request req = key_request(key, &pid);
    answer a = exchange(pid, &req, sizeof req, -1);
    ck_assert_int_eq(a.status, ACL_SUCCESS);
    ck_assert_int_ge(a.fd, 0);
    return a.fd;
}

COMPAT_TEST(export_hands_out_only_its_range,
            "the descriptor of an IPC key covers the exported allocation's pages and nothing of "
            "the exporter's other memory",
            "issue 26 item 15")
{
    if (!host_backend())
        COMPAT_SKIP("only the host backend passes a descriptor (CUDA resolves its own handle)");
    void *secret = device_filled(N, 0x5E);
    void *dev = device_filled(N, 0x0E);
    void *after = device_filled(N, 0x5E);
    char key[65];
    int fd = exported_file(dev, key);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    long page = sysconf(_SC_PAGESIZE);
    ck_assert_msg((size_t)st.st_size <= (size_t)N + (size_t)page,
                  "the descriptor holds %lld bytes for a %d-byte export", (long long)st.st_size, N);
    /* Everything the descriptor holds is the exported memory. */
    unsigned char *all = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    ck_assert_ptr_ne(all, MAP_FAILED);
    for (off_t i = 0; i < st.st_size; i++)
        ck_assert_msg(all[i] != 0x5E, "byte %lld of the descriptor is another allocation's",
                      (long long)i);
    munmap(all, (size_t)st.st_size);
    close(fd);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
    ACL_OK(aclrtFree(secret));
    ACL_OK(aclrtFree(after));
}

COMPAT_TEST(notify_key_hands_out_only_its_page,
            "the descriptor of a notify key is one page holding that notify's word, recorded "
            "by its exporter, and nothing of the exporter's other notifies; on the cuda backend "
            "the word itself is in device memory of its own (test_interop_cuda)",
            "issue 26 items 15 and 16")
{
    aclrtStream s;
    ACL_OK(aclrtCreateStream(&s));
    aclrtNotify other, exported;
    ACL_OK(aclrtCreateNotify(&other, 0));
    ACL_OK(aclrtCreateNotify(&exported, 0));
    ACL_OK(aclrtRecordNotify(other, s));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(exported, key, sizeof key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    ACL_OK(aclrtRecordNotify(exported, s));
    ACL_OK(aclrtSynchronizeStream(s));
    share_request req = {.magic = SHARE_MAGIC, .kind = SHARE_NOTIFY};
    int32_t pid;
    ck_assert_int_eq(
        sscanf(key, "aclnotify-%" SCNd32 "-%" SCNx64 "-%" SCNx64, &pid, &req.id, &req.nonce), 3);
    answer a = exchange(pid, &req, sizeof req, -1);
    ck_assert_int_eq(a.status, ACL_SUCCESS);
    ck_assert_int_ge(a.fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(a.fd, &st), 0);
    long page = sysconf(_SC_PAGESIZE);
    ck_assert_msg(st.st_size > 0 && st.st_size <= page, "the descriptor holds %lld bytes",
                  (long long)st.st_size);
    uint32_t *words = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, a.fd, 0);
    ck_assert_ptr_ne(words, MAP_FAILED);
    /* A magic number, then the word: set by the exporter's record where
     * the word lives there (host backend). */
    if (host_backend())
        ck_assert_uint_eq(words[1], 1);
    munmap(words, (size_t)st.st_size);
    close(a.fd);
    ACL_OK(aclrtWaitAndResetNotify(other, s, 0));
    ACL_OK(aclrtWaitAndResetNotify(exported, s, 0));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtDestroyNotify(exported));
    ACL_OK(aclrtDestroyNotify(other));
    ACL_OK(aclrtDestroyStream(s));
}

COMPAT_TEST(export_of_part_of_an_allocation_is_refused,
            "aclrtIpcMemGetExportKey takes an allocation whole, from its start: an importer would "
            "map all of it, so less (or an inner address) is refused with ACL_ERROR_INVALID_PARAM",
            "issue 26 item 15; CANN: the exported range must be aligned")
{
    void *dev = device_filled(N, 0x0E);
    char key[65];
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey(dev, N / 2, key, sizeof key, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtIpcMemGetExportKey((char *)dev + N / 2, N / 2, key, sizeof key, 0),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtIpcMemGetExportKey(dev, N, key, sizeof key, 0));
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}

COMPAT_TEST(shared_memory_files_cannot_be_resized,
            "the descriptor an importer receives for exported memory is sealed: it cannot shrink "
            "the exporter's memory under it (which would make the exporter fault)",
            "issue 26 item 15")
{
    if (!host_backend())
        COMPAT_SKIP("only the host backend passes a descriptor (CUDA resolves its own handle)");
    void *dev = device_filled(N, 0x0E);
    char key[65];
    int fd = exported_file(dev, key);
    ck_assert_int_ne(ftruncate(fd, 0), 0);
    ck_assert_int_ne(ftruncate(fd, (off_t)N * 4), 0);
    close(fd);
    /* The exporter still uses all of its memory. */
    ACL_OK(aclrtMemset(dev, N, 0x11, N));
    unsigned char last;
    ACL_OK(aclrtMemcpy(&last, 1, (char *)dev + N - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    ck_assert_uint_eq(last, 0x11);
    ACL_OK(aclrtIpcMemClose(key));
    ACL_OK(aclrtFree(dev));
}

/* Open descriptors of this process. */
static int descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int count = 0;
    for (struct dirent *e; (e = readdir(d));)
        count += e->d_name[0] != '.';
    closedir(d);
    return count;
}

/* ---- a hostile exporter -------------------------------------------------------------- */

/* How the lying exporter answers every request. Each reply carries a
 * 4 KiB memory file. */
typedef enum lie {
    LIE_SHORT,      /* a truncated reply */
    LIE_BAD_MAGIC,  /* a reply of another protocol */
    LIE_SIZE,       /* memory of 64 MiB, in a sealed 4 KiB file */
    LIE_UNSEALED,   /* 4 KiB, honestly, in a file the exporter may shrink at will */
    LIE_EMPTY_FILE, /* 64 MiB, in an empty sealed file */
} lie;

static int lying_file(lie how)
{
    unsigned flags = how == LIE_UNSEALED ? MFD_CLOEXEC : MFD_CLOEXEC | MFD_ALLOW_SEALING;
    int fd = memfd_create("lie", flags);
    if (fd < 0 || ftruncate(fd, how == LIE_EMPTY_FILE ? 0 : 4096) != 0)
        _exit(2);
    if (how != LIE_UNSEALED &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        _exit(2);
    return fd;
}

/* Answers a broker's client with len bytes of rep and fd attached. */
static void reply_with_file(int c, const share_reply *rep, size_t len, int fd)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {(void *)rep, len};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    (void)sendmsg(c, &m, MSG_NOSIGNAL);
}

/* Answers every client on listener with serve's reply; in the exporter. */
typedef void (*fake_serve_fn)(int listener, const void *arg);

typedef struct fake_broker {
    fake_serve_fn serve;
    const void *arg;
} fake_broker;

static void run_fake_broker(int ready, const void *arg)
{
    const fake_broker *fb = arg;
    int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr;
    socklen_t len = broker_address((int32_t)getpid(), 0, &addr);
    if (l < 0 || bind(l, (struct sockaddr *)&addr, len) != 0 || listen(l, 16) != 0 ||
        write(ready, "r", 1) != 1)
        _exit(2);
    fb->serve(l, fb->arg);
}

/* A forked process, calling no ACL function, that runs a broker of its own
 * under its own pid (all an importer can check) and answers with serve. */
static pid_t fake_exporter_start(fake_serve_fn serve, const void *arg)
{
    return listener_start(run_fake_broker, &(fake_broker){serve, arg});
}

static void fake_exporter_stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Answers every request for IPC memory as *(const lie *)arg says. */
static void serve_lies(int listener, const void *arg)
{
    lie how = *(const lie *)arg;
    int file = lying_file(how);
    for (;;) {
        int c = accept(listener, NULL, NULL);
        if (c < 0)
            continue;
        share_request req;
        (void)recv(c, &req, sizeof req, 0);
        share_reply rep;
        memset(&rep, 0, sizeof rep);
        rep.magic = how == LIE_BAD_MAGIC ? 0xBAD : SHARE_MAGIC;
        /* The host backend's description: the file's offset and size. */
        uint64_t claim[2] = {0, how == LIE_UNSEALED ? 4096 : 64 << 20};
        mem_blob blob = {.size = claim[1], .backend_len = sizeof claim};
        memcpy(blob.backend, claim, sizeof claim);
        memcpy(rep.blob, &blob, sizeof blob);
        rep.len = sizeof blob;
        reply_with_file(c, &rep, how == LIE_SHORT ? 8 : sizeof rep, file);
        close(c);
    }
}

/* Imports from an exporter lying as `how` are refused, 20 times over, and
 * leave no descriptor behind. */
static void lies_refused(lie how)
{
    pid_t liar = fake_exporter_start(serve_lies, &how);
    char key[IPC_KEY_LEN];
    snprintf(key, sizeof key, "acl-cuda-ipc:%d:1:%016x", (int)liar, 1);
    int before = descriptors();
    for (int i = 0; i < 20; i++) {
        void *p = NULL;
        ACL_FAILS_WITH(aclrtIpcMemImportByKey(&p, key, 0), ACL_ERROR_RT_IPC_ERROR);
        ck_assert_ptr_null(p);
    }
    ck_assert_int_eq(descriptors(), before);
    fake_exporter_stop(liar);
}

COMPAT_TEST(malformed_replies_leave_no_descriptor,
            "an import from an exporter whose broker answers in another protocol, or cut short, "
            "with a descriptor attached, fails with ACL_ERROR_RT_IPC_ERROR and closes the "
            "descriptor",
            "issue 26 item 15")
{
    lies_refused(LIE_SHORT);
    lies_refused(LIE_BAD_MAGIC);
}

COMPAT_TEST(imports_check_the_exporters_file,
            "an import maps only what the exporter's descriptor holds, sealed: a claimed size "
            "beyond the file, an empty file or one the exporter could shrink is refused with "
            "ACL_ERROR_RT_IPC_ERROR (instead of a fault at the first copy)",
            "issue 26 item 15")
{
    if (!host_backend())
        COMPAT_SKIP("only the host backend maps a descriptor (CUDA resolves its own handle)");
    lies_refused(LIE_SIZE);
    lies_refused(LIE_UNSEALED);
    lies_refused(LIE_EMPTY_FILE);
}

/* ---- notify pages ------------------------------------------------------------------- */

/* How /proc/self/maps names a notify's page (core/notify.c's memfd). */
#define NOTIFY_PAGE "memfd:acl-notify"

/* Lines of /proc/self/maps naming name. */
static int mappings(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, f))
        count += strstr(line, name) != NULL;
    fclose(f);
    return count;
}

/* The page of a destroyed notify is unmapped once no queued task uses it
 * (reclamation may keep a few of the last notifies a little longer). */
static void expect_pages(int want)
{
    for (int i = 0; i < 1000 && mappings(NOTIFY_PAGE) > want; i++)
        usleep(1000);
    ck_assert_int_eq(mappings(NOTIFY_PAGE), want);
}

COMPAT_TEST(notify_pages_go_with_their_notifies,
            "exporting or importing a notify and destroying it, hundreds of times, leaves the "
            "process with as many notify pages mapped and descriptors open as before",
            "hardening round two: shared notify pages (a mapping per export and per import, "
            "until mmap fails)")
{
    /* On cuda each export also keeps 2 MiB of device memory until the
     * process ends (docs/porting.md): fewer cycles there. */
    const int cycles = host_backend() ? 300 : 32;
    char key[65];
    aclrtNotify n, m;
    ACL_OK(aclrtCreateNotify(&n, 0)); /* the broker's thread and socket, made once */
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ACL_OK(aclrtDestroyNotify(n));
    int pages = mappings(NOTIFY_PAGE), fds = descriptors();
    for (int i = 0; i < cycles; i++) {
        ACL_OK(aclrtCreateNotify(&n, 0));
        ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
        ACL_OK(aclrtDestroyNotify(n));
    }
    expect_pages(pages);
    ck_assert_int_le(descriptors(), fds + 2);

    ACL_OK(aclrtCreateNotify(&n, 0));
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    /* This process imports its own notify like any allowed process. */
    for (int i = 0; i < cycles; i++) {
        ACL_OK(aclrtNotifyImportByKey(&m, key, 0));
        ACL_OK(aclrtDestroyNotify(m));
    }
    ACL_OK(aclrtDestroyNotify(n));
    expect_pages(pages);
    ck_assert_int_le(descriptors(), fds + 2);
}

/* Two calls let go at once, each on a thread of its own in the test's
 * context, on one subject (an allocation or a notify). */
typedef struct racer {
    aclError (*call)(struct racer *r);
    void *subject;
    char key[65]; /* an export's */
    aclError ret;
    aclrtContext ctx;
    pthread_barrier_t *start;
} racer;

static void *race_body(void *arg)
{
    racer *r = arg;
    ACL_OK(aclrtSetCurrentContext(r->ctx));
    pthread_barrier_wait(r->start);
    r->ret = r->call(r);
    return NULL;
}

static void race(racer racers[2])
{
    aclrtContext ctx;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
        racers[i].ctx = ctx;
        racers[i].start = &start;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, race_body, &racers[i]), 0);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    pthread_barrier_destroy(&start);
}

static aclError export_memory(racer *r)
{
    return aclrtIpcMemGetExportKey(r->subject, N, r->key, sizeof r->key,
                                   ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT);
}

static aclError free_memory(racer *r)
{
    return aclrtFree(r->subject);
}

static aclError export_notify(racer *r)
{
    return aclrtNotifyGetExportKey(r->subject, r->key, sizeof r->key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT);
}

static aclError destroy_notify(racer *r)
{
    return aclrtDestroyNotify(r->subject);
}

COMPAT_TEST(export_racing_the_free_leaves_no_key,
            "an export of memory racing its free is refused, or its key is withdrawn with the "
            "memory: no key names the allocation made there next",
            "hardening round two: an export that looked at the memory before the free and "
            "listed its key after it kept a key (and on the host backend, pages) of freed memory")
{
    const int rounds = host_backend() ? 200 : 32;
    for (int round = 0; round < rounds; round++) {
        void *dev = device_filled(N, 0x21);
        racer racers[2] = {{.call = export_memory, .subject = dev},
                           {.call = free_memory, .subject = dev}};
        race(racers);
        ACL_OK(racers[1].ret);
        if (racers[0].ret != ACL_SUCCESS) {
            ck_assert_int_eq(racers[0].ret, ACL_ERROR_INVALID_PARAM);
            continue;
        }
        /* The key names nothing now: it takes no allow-list, and the broker
         * hands nothing out for it. */
        int32_t someone = 1;
        ACL_FAILS_WITH(aclrtIpcMemSetImportPid(racers[0].key, &someone, 1),
                       ACL_ERROR_INVALID_PARAM);
        int32_t pid;
        share_request req = key_request(racers[0].key, &pid);
        answer a = exchange(pid, &req, sizeof req, -1);
        expect_refused(a, "the key of freed memory");
        ACL_OK(aclrtIpcMemClose(racers[0].key));
    }
}

COMPAT_TEST(racing_exports_of_a_notify_publish_one_key,
            "two threads exporting one notify at once: one gets a key, the other "
            "ACL_ERROR_INVALID_PARAM; an export racing the destroy leaves no key that imports",
            "hardening round two: both exports succeeded, and the second key's page and broker "
            "entry outlived the destroy (and corrupted the list of shared words)")
{
    /* On cuda each export keeps 2 MiB of device memory (docs/porting.md). */
    const int rounds = host_backend() ? 300 : 16;
    for (int round = 0; round < rounds; round++) {
        aclrtNotify n;
        ACL_OK(aclrtCreateNotify(&n, 0));
        racer racers[2] = {{.call = export_notify, .subject = n},
                           {.call = export_notify, .subject = n}};
        race(racers);
        ck_assert_msg((racers[0].ret == ACL_SUCCESS) != (racers[1].ret == ACL_SUCCESS),
                      "round %d: exports returned %d and %d", round, (int)racers[0].ret,
                      (int)racers[1].ret);
        const racer *lost = racers[0].ret == ACL_SUCCESS ? &racers[1] : &racers[0];
        ck_assert_int_eq(lost->ret, ACL_ERROR_INVALID_PARAM);
        ACL_OK(aclrtDestroyNotify(n));

        ACL_OK(aclrtCreateNotify(&n, 0));
        racer pair[2] = {{.call = export_notify, .subject = n},
                         {.call = destroy_notify, .subject = n}};
        race(pair);
        ACL_OK(pair[1].ret);
        if (pair[0].ret == ACL_SUCCESS) {
            aclrtNotify imported;
            ACL_FAILS(aclrtNotifyImportByKey(&imported, pair[0].key, 0));
        } else {
            ck_assert_int_eq(pair[0].ret, ACL_ERROR_INVALID_PARAM);
        }
    }
    /* The list of shared words is whole: a fork walks it. */
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(0);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* In the child: grows, then shrinks the page it was handed (left empty,
 * the exporter's next touch of its word would be a SIGBUS); 0 when both
 * are refused. */
static int resize_page(const void *arg)
{
    int fd = *(const int *)arg;
    return (ftruncate(fd, 1 << 20) == 0) << 1 | (ftruncate(fd, 0) == 0);
}

COMPAT_TEST(importer_cannot_resize_a_notify_page,
            "a process allowed to import a notify cannot shrink or grow the page it is handed, "
            "and the exporter's next record and wait work (no SIGBUS)",
            "hardening round two: an importer truncating the page crashed the exporter")
{
    aclrtStream s;
    ACL_OK(aclrtCreateStream(&s));
    aclrtNotify n;
    ACL_OK(aclrtCreateNotify(&n, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key,
                                   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    share_request req = {.magic = SHARE_MAGIC, .kind = SHARE_NOTIFY};
    int32_t pid;
    ck_assert_int_eq(
        sscanf(key, "aclnotify-%" SCNd32 "-%" SCNx64 "-%" SCNx64, &pid, &req.id, &req.nonce), 3);
    answer a = exchange(pid, &req, sizeof req, -1);
    ck_assert_int_eq(a.status, ACL_SUCCESS);
    ck_assert_int_ge(a.fd, 0);
    int resized = in_child(resize_page, &a.fd);
    close(a.fd);
    ACL_OK(aclrtRecordNotify(n, s));
    ACL_OK(aclrtSynchronizeStream(s));
    ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
    ACL_OK(aclrtSynchronizeStream(s));
    ck_assert_msg(resized == 0, "the importer %s the page",
                  resized == 1   ? "shrank"
                  : resized == 2 ? "grew"
                                 : "shrank and grew");
    ACL_OK(aclrtDestroyNotify(n));
    ACL_OK(aclrtDestroyStream(s));
}

/* In a child: a broker under the child's pid that answers every request
 * for a notify with a page of the right size, magic and backend, but not
 * sealed: its exporter (or anyone it hands the descriptor) could shrink
 * it under the importer. */
static void serve_unsealed_page(int listener, const void *unused)
{
    (void)unused;
    int fd = memfd_create("unsealed", 0);
    uint32_t magic = 0x41434e46; /* core/notify.c's PAGE_MAGIC */
    if (fd < 0 || ftruncate(fd, 4096) != 0 || pwrite(fd, &magic, sizeof magic, 0) != 4)
        _exit(2);
    share_reply rep;
    memset(&rep, 0, sizeof rep);
    rep.magic = SHARE_MAGIC;
    rep.len = 16 + 128; /* core/notify.c's notify_blob: the backend's name, its blob */
    snprintf((char *)rep.blob, 16, "%s", aclcudaGetBackendName());
    for (;;) {
        int c = accept(listener, NULL, NULL);
        share_request req;
        if (c < 0 || recv(c, &req, sizeof req, 0) != (ssize_t)sizeof req)
            _exit(3);
        reply_with_file(c, &rep, sizeof rep, fd);
        close(c);
    }
}

COMPAT_TEST(importer_refuses_a_resizable_notify_page,
            "aclrtNotifyImportByKey refuses a page that its exporter did not seal against "
            "resizing, with ACL_ERROR_INVALID_PARAM",
            "hardening round two: an importer must not map what another process can shrink")
{
    pid_t child = fake_exporter_start(serve_unsealed_page, NULL);
    char key[65];
    snprintf(key, sizeof key, "aclnotify-%d-%016x-%016x", (int)child, 1u, 1u);
    int pages = mappings(NOTIFY_PAGE);
    aclrtNotify n = NULL;
    aclError err = aclrtNotifyImportByKey(&n, key, 0);
    fake_exporter_stop(child);
    ck_assert_int_eq(err, ACL_ERROR_INVALID_PARAM);
    ck_assert_msg(strstr(aclGetRecentErrMsg(), "sealed") != NULL, "message: %s",
                  aclGetRecentErrMsg());
    ck_assert_int_eq(mappings("memfd:unsealed"), 0);
    ck_assert_int_eq(mappings(NOTIFY_PAGE), pages);
}

COMPAT_TEST(queued_notify_work_outlives_destroy,
            "records and waits queued or captured on shared notifies (exporter's and "
            "importer's) still work after both notifies are destroyed; their pages go once "
            "that work has run and the model is destroyed",
            "hardening round two: pages stay mapped while queued work uses them")
{
    aclrtStream waiting, recording, opening;
    ACL_OK(aclrtCreateStream(&waiting));
    ACL_OK(aclrtCreateStream(&recording));
    ACL_OK(aclrtCreateStream(&opening));
    int pages = mappings(NOTIFY_PAGE);
    aclrtNotify exported, imported, gate;
    ACL_OK(aclrtCreateNotify(&exported, 0));
    ACL_OK(aclrtCreateNotify(&gate, 0));
    char key[65];
    ACL_OK(aclrtNotifyGetExportKey(exported, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    ACL_OK(aclrtNotifyImportByKey(&imported, key, 0));
    aclmdlRI model;
    ACL_OK(aclmdlRICaptureBegin(recording, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ACL_OK(aclrtRecordNotify(exported, recording));
    ACL_OK(aclmdlRICaptureEnd(recording, &model));
    /* The importer's two waits end with the exporter's records: one queued
     * behind the gate, one in the model. */
    aclrtEvent first_taken;
    ACL_OK(aclrtCreateEvent(&first_taken));
    ACL_OK(aclrtWaitAndResetNotify(imported, waiting, 0));
    ACL_OK(aclrtRecordEvent(first_taken, waiting));
    ACL_OK(aclrtWaitAndResetNotify(imported, waiting, 0));
    ACL_OK(aclrtWaitAndResetNotify(gate, recording, 0));
    ACL_OK(aclrtRecordNotify(exported, recording));
    ACL_OK(aclrtDestroyNotify(imported));
    ACL_OK(aclrtDestroyNotify(exported));
    ACL_OK(aclrtRecordNotify(gate, opening));
    ACL_OK(aclrtSynchronizeStream(recording));
    aclrtStreamStatus st;
    ACL_OK(aclrtStreamQuery(waiting, &st));
    ck_assert_int_eq(st, ACL_STREAM_STATUS_NOT_READY); /* its second wait */
    /* A notify holds one record: the model's must come after the first
     * wait took the gated one. */
    ACL_OK(aclrtSynchronizeEvent(first_taken));
    ACL_OK(aclrtDestroyEvent(first_taken));
    ACL_OK(aclmdlRIExecuteAsync(model, recording));
    ACL_OK(aclrtSynchronizeStream(recording));
    ACL_OK(aclrtSynchronizeStream(waiting));
    ACL_OK(aclrtSynchronizeStream(opening));
    if (host_backend()) /* the exporter's, its word there held by the model's record */
        expect_pages(pages + 1);
    ACL_OK(aclmdlRIDestroy(model));
    expect_pages(pages);
    ACL_OK(aclrtDestroyNotify(gate));
    ACL_OK(aclrtDestroyStream(opening));
    ACL_OK(aclrtDestroyStream(recording));
    ACL_OK(aclrtDestroyStream(waiting));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("hostile sharing");
    TCase *broker = tcase_create("broker");
    tcase_add_checked_fixture(broker, compat_set_up, compat_tear_down);
    tcase_set_timeout(broker, 120);
    tcase_add_test(broker, broker_serves_others_past_idle_connections);
    tcase_add_test(broker, broker_refuses_malformed_messages);
    tcase_add_test(broker, broker_refuses_processes_not_listed);
    tcase_add_test(broker, broker_forgets_freed_and_closed_memory);
    suite_add_tcase(s, broker);

    TCase *squatted = tcase_create("squatted names");
    tcase_add_checked_fixture(squatted, compat_set_up, compat_tear_down);
    tcase_set_timeout(squatted, 20);
    tcase_add_test(squatted, squatted_broker_names_do_not_stall_imports);
    suite_add_tcase(s, squatted);

    TCase *names = tcase_create("allow-lists and names");
    tcase_add_checked_fixture(names, compat_set_up, compat_tear_down);
    tcase_set_timeout(names, 120);
    tcase_add_test(names, guessed_notify_keys_import_nothing);
    tcase_add_test(names, guessed_shareable_handles_import_nothing);
    tcase_add_test(names, guessed_memory_keys_import_nothing);
    tcase_add_test(names, forged_files_do_not_allow_an_import);
    tcase_add_test(names, allow_lists_take_process_ids_only);
    suite_add_tcase(s, names);

    TCase *range = tcase_create("exported range");
    tcase_add_checked_fixture(range, compat_set_up, compat_tear_down);
    tcase_set_timeout(range, 60);
    tcase_add_test(range, export_hands_out_only_its_range);
    tcase_add_test(range, notify_key_hands_out_only_its_page);
    tcase_add_test(range, export_of_part_of_an_allocation_is_refused);
    tcase_add_test(range, shared_memory_files_cannot_be_resized);
    tcase_add_test(range, export_racing_the_free_leaves_no_key);
    suite_add_tcase(s, range);

    TCase *exporter = tcase_create("a hostile exporter");
    tcase_add_checked_fixture(exporter, compat_set_up, compat_tear_down);
    tcase_set_timeout(exporter, 60);
    tcase_add_test(exporter, malformed_replies_leave_no_descriptor);
    tcase_add_test(exporter, imports_check_the_exporters_file);
    suite_add_tcase(s, exporter);

    TCase *pages = tcase_create("notify pages");
    tcase_add_checked_fixture(pages, compat_set_up, compat_tear_down);
    tcase_set_timeout(pages, 60);
    tcase_add_test(pages, notify_pages_go_with_their_notifies);
    tcase_add_test(pages, importer_cannot_resize_a_notify_page);
    tcase_add_test(pages, importer_refuses_a_resizable_notify_page);
    tcase_add_test(pages, queued_notify_work_outlives_destroy);
    tcase_add_test(pages, racing_exports_of_a_notify_publish_one_key);
    suite_add_tcase(s, pages);
    return acltest_run(s);
}
