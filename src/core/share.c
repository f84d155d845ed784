/* Sharing with other processes: the broker (see share.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/share.h"
#include "util/clock.h"
#include "util/fork.h"
#include "util/log.h"

enum {
    IO_TIMEOUT_S = 5,      /* an importer's wait for the broker */
    CLIENT_IDLE_MS = 2000, /* a connection that sends nothing is dropped after this */
    MAX_CLIENTS = 128,     /* connections waiting for their request at once */
    BACKLOG = 128,
    MAX_PIDS = 1024, /* processes allowed per entry: a caller cannot grow it without end */
    /* Names a broker may listen under (socket_name): another process of
     * the user can take a name before us, and must take them all to keep
     * a process from exporting. */
    BROKER_NAMES = 16,
};

typedef struct entry {
    uint64_t id, nonce;
    share_kind kind;
    int fd;
    unsigned char blob[SHARE_BLOB_MAX];
    size_t len;
    bool check_pids;
    int32_t *pids;
    size_t npids;
    struct entry *next;
} entry;

/* Guards the entries, the listener and the broker's connections (which
 * only the broker changes; under the lock so that a forked child finds
 * them whole and closes them). */
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static int listener = -1; /* the broker's socket, -1 until the first export */
static int clients[MAX_CLIENTS];
static int64_t client_since[MAX_CLIENTS];
static size_t client_count;

/* The broker of process pid listens under the first of its names
 * ("acl-cuda.share.<pid>", then ".<pid>.1" and on) that was free;
 * importers try them in turn and talk only to the one whose peer is pid. */
static socklen_t socket_name(int32_t pid, unsigned which, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    /* Abstract: the name goes with the process, nothing to clean up. */
    int n = which == 0 ? snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                                  "acl-cuda.share.%d", (int)pid)
                       : snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                                  "acl-cuda.share.%d.%u", (int)pid, which);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static entry *find(uint64_t id)
{
    for (entry *e = entries; e; e = e->next)
        if (e->id == id)
            return e;
    return NULL;
}

/* Fills out with random bytes from the kernel; false when there are none
 * to be had (names are never made from anything guessable). */
static bool random_bytes(void *out, size_t n)
{
    unsigned char *p = out;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        p += got;
        n -= (size_t)got;
    }
    if (n == 0)
        return true;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC); /* kernels without getrandom */
    while (fd >= 0 && n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        p += got;
        n -= (size_t)got;
    }
    if (fd >= 0)
        close(fd);
    return n == 0;
}

static void set_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = IO_TIMEOUT_S};
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static bool valid_kind(uint32_t kind)
{
    return kind == SHARE_IPC_MEMORY || kind == SHARE_PHYSICAL || kind == SHARE_EVENT ||
           kind == SHARE_NOTIFY || kind == SHARE_QUEUE;
}

/* Whether the process behind cred may fetch e: this process always; one
 * listed always; any other of the same user when e checks no pids. */
static bool allowed(const entry *e, const struct ucred *cred)
{
    if (cred->pid == getpid())
        return true;
    for (size_t i = 0; i < e->npids; i++)
        if (e->pids[i] == (int32_t)cred->pid)
            return true;
    return !e->check_pids && cred->uid == geteuid();
}

/* Reads one request from conn, if it sent one, and answers it. False when
 * conn has sent nothing yet; true when it is done with (answered, closed
 * by its peer, or broken). A request that is not exactly one well-formed
 * message gets ACL_ERROR_RT_IPC_ERROR; descriptors sent along are dropped
 * by the kernel (no control buffer), never installed here. */
static bool serve(int conn)
{
    unsigned char buf[sizeof(share_request) + 1]; /* one byte more tells oversized ones */
    struct iovec in_iov = {buf, sizeof buf};
    struct msghdr in = {.msg_iov = &in_iov, .msg_iovlen = 1};
    ssize_t got = recvmsg(conn, &in, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return false;
    if (got <= 0)
        return true;
    share_reply rep;
    memset(&rep, 0, sizeof rep); /* all of it goes to another process */
    rep.magic = SHARE_MAGIC;
    rep.status = ACL_ERROR_RT_IPC_ERROR;
    int fd = -1;
    share_request req;
    struct ucred cred;
    socklen_t cred_len = sizeof cred;
    if (got != (ssize_t)sizeof req || (in.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
        goto answer;
    memcpy(&req, buf, sizeof req);
    if (req.magic != SHARE_MAGIC || !valid_kind(req.kind) ||
        getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0)
        goto answer;
    pthread_mutex_lock(&share_lock);
    entry *e = find(req.id);
    if (e == NULL || e->nonce != req.nonce || (uint32_t)e->kind != req.kind) {
        rep.status = ACL_ERROR_INVALID_PARAM;
    } else if (!allowed(e, &cred)) {
        rep.status = ACL_ERROR_RT_NO_PERMISSION;
    } else if (e->fd >= 0 && (fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
        rep.status = ACL_ERROR_RT_IPC_ERROR;
    } else {
        rep.status = ACL_SUCCESS;
        rep.len = (uint32_t)e->len;
        memcpy(rep.blob, e->blob, e->len);
    }
    pthread_mutex_unlock(&share_lock);
answer:;
    struct iovec iov = {&rep, sizeof rep};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    /* A fresh connection has room for one reply: never blocks the broker. */
    (void)sendmsg(conn, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (fd >= 0)
        close(fd);
    return true;
}

/* Drops connection i (under share_lock). */
static void client_drop(size_t i)
{
    close(clients[i]);
    memmove(&clients[i], &clients[i + 1], (client_count - i - 1) * sizeof clients[0]);
    memmove(&client_since[i], &client_since[i + 1],
            (client_count - i - 1) * sizeof client_since[0]);
    client_count--;
}

/* Takes the connections waiting on the listener; when MAX_CLIENTS are
 * open already, the one that has waited longest without a word goes. */
static void accept_all(int sock)
{
    for (;;) {
        int conn = accept4(sock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if ((errno == EMFILE || errno == ENFILE) && client_count > 0) {
                pthread_mutex_lock(&share_lock);
                client_drop(0); /* a descriptor for the newcomer */
                pthread_mutex_unlock(&share_lock);
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                ACL_LOG(LOG_WARNING, "the sharing broker cannot accept: %s", strerror(errno));
            return;
        }
        pthread_mutex_lock(&share_lock);
        if (client_count == MAX_CLIENTS)
            client_drop(0);
        clients[client_count] = conn;
        client_since[client_count++] = monotonic_ns();
        pthread_mutex_unlock(&share_lock);
    }
}

static void *broker(void *arg)
{
    int sock = (int)(intptr_t)arg;
    pthread_setname_np(pthread_self(), "acl-share");
    struct pollfd fds[1 + MAX_CLIENTS];
    for (;;) {
        /* Only this thread changes the connections: reading them needs no lock. */
        size_t count = client_count;
        int timeout = -1;
        fds[0] = (struct pollfd){.fd = sock, .events = POLLIN};
        for (size_t i = 0; i < count; i++)
            fds[1 + i] = (struct pollfd){.fd = clients[i], .events = POLLIN};
        if (count > 0)
            timeout = ms_left(client_since[0] + (int64_t)CLIENT_IDLE_MS * 1000000) + 1;
        int ready = poll(fds, 1 + count, timeout);
        if (ready < 0 && errno != EINTR) {
            ACL_LOG(LOG_ERROR, "the sharing broker stops: poll failed (%s)", strerror(errno));
            return NULL;
        }
        int64_t now = monotonic_ns();
        for (size_t i = count; i-- > 0;) {
            bool done = ready > 0 && fds[1 + i].revents != 0 ? serve(fds[1 + i].fd) : false;
            if (done || now - client_since[i] >= (int64_t)CLIENT_IDLE_MS * 1000000) {
                pthread_mutex_lock(&share_lock);
                client_drop(i);
                pthread_mutex_unlock(&share_lock);
            }
        }
        if (ready > 0 && (fds[0].revents & POLLIN))
            accept_all(sock);
    }
}

/* Starts the broker (once per process). Under share_lock. */
static aclError broker_start(void)
{
    if (listener >= 0)
        return ACL_SUCCESS;
    int sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (sock < 0)
        return ACL_ERROR_RT_IPC_ERROR;
    struct sockaddr_un addr;
    int bound = -1;
    for (unsigned which = 0; which < BROKER_NAMES && bound != 0; which++) {
        socklen_t len = socket_name(getpid(), which, &addr);
        bound = bind(sock, (struct sockaddr *)&addr, len);
    }
    if (bound != 0 || listen(sock, BACKLOG) != 0) {
        ACL_LOG(LOG_ERROR, "the sharing broker cannot listen: %s", strerror(errno));
        close(sock);
        return ACL_ERROR_RT_IPC_ERROR;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    int rc = pthread_create(&thread, &attr, broker, (void *)(intptr_t)sock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        close(sock);
        return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    listener = sock;
    return ACL_SUCCESS;
}

aclError share_publish(share_kind kind, int fd, const void *blob, size_t len, bool check_pids,
                       bool short_name, share_name *name)
{
    if (len > SHARE_BLOB_MAX)
        return ACL_ERROR_RT_INTERNAL_ERROR;
    entry *e = calloc(1, sizeof *e);
    if (e == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    e->kind = kind;
    e->fd = fd;
    memcpy(e->blob, blob, len);
    e->len = len;
    e->check_pids = check_pids;
    pthread_mutex_lock(&share_lock);
    aclError ret = broker_start();
    /* A fresh id, never 0 (and unique among ours: a name finds one entry). */
    for (int tries = 0; ret == ACL_SUCCESS && e->id == 0; tries++) {
        uint64_t random[2];
        if (tries == 8 || !random_bytes(random, sizeof random)) {
            ret = ACL_ERROR_RT_INTERNAL_ERROR;
            break;
        }
        uint64_t id =
            short_name ? random[0] & ((UINT64_C(1) << SHARE_SHORT_ID_BITS) - 1) : random[0];
        if (id != 0 && find(id) == NULL) {
            e->id = id;
            e->nonce = short_name ? 0 : random[1];
        }
    }
    if (ret == ACL_SUCCESS) {
        e->next = entries;
        entries = e;
        *name = (share_name){.pid = (int32_t)getpid(), .id = e->id, .nonce = e->nonce};
    }
    pthread_mutex_unlock(&share_lock);
    if (ret != ACL_SUCCESS)
        free(e); /* fd stays the caller's */
    return ret;
}

aclError share_publish_at(share_kind kind, int fd, const void *blob, size_t len, uint64_t id,
                          share_name *name)
{
    if (len > SHARE_BLOB_MAX || id == 0)
        return ACL_ERROR_RT_INTERNAL_ERROR;
    entry *e = calloc(1, sizeof *e);
    if (e == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    e->kind = kind;
    e->fd = fd;
    memcpy(e->blob, blob, len);
    e->len = len;
    e->check_pids = true;
    e->id = id;
    pthread_mutex_lock(&share_lock);
    aclError ret = broker_start();
    if (ret == ACL_SUCCESS && find(id) != NULL)
        ret = ACL_ERROR_INVALID_PARAM;
    if (ret == ACL_SUCCESS) {
        e->next = entries;
        entries = e;
        *name = (share_name){.pid = (int32_t)getpid(), .id = id, .nonce = 0};
    }
    pthread_mutex_unlock(&share_lock);
    if (ret != ACL_SUCCESS)
        free(e); /* fd stays the caller's */
    return ret;
}

static bool pid_listed(const int32_t *pids, size_t count, int32_t pid)
{
    for (size_t i = 0; i < count; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

aclError share_allow(const char *api, const share_name *name, const int32_t *pids, size_t count)
{
    /* Also bounds the search for repeats below, done under the lock. */
    if (count > MAX_PIDS)
        return acl_raise(api, ACL_ERROR_INVALID_PARAM,
                         "%zu processes: at most %d may be allowed per export", count, MAX_PIDS);
    for (size_t i = 0; i < count; i++)
        if (pids[i] <= 0)
            return acl_raise(api, ACL_ERROR_INVALID_PARAM, "pid[%zu] = %d is not a process id", i,
                             (int)pids[i]);
    aclError ret = ACL_SUCCESS;
    pthread_mutex_lock(&share_lock);
    entry *e = name->pid == (int32_t)getpid() ? find(name->id) : NULL;
    int32_t *grown = NULL;
    if (e == NULL || e->nonce != name->nonce)
        ret = acl_raise(api, ACL_ERROR_INVALID_PARAM, "the export is not this process's any more");
    else if (count && !(grown = realloc(e->pids, (e->npids + count) * sizeof *grown)))
        ret = acl_raise(api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (grown) {
        /* Each pid once; the list is taken back whole when it would grow
         * past the bound. */
        e->pids = grown;
        size_t had = e->npids;
        for (size_t i = 0; i < count; i++)
            if (!pid_listed(e->pids, e->npids, pids[i]))
                e->pids[e->npids++] = pids[i];
        if (e->npids > MAX_PIDS) {
            e->npids = had;
            ret = acl_raise(api, ACL_ERROR_INVALID_PARAM,
                            "at most %d processes may be allowed per export (%zu are already)",
                            MAX_PIDS, had);
        }
    }
    pthread_mutex_unlock(&share_lock);
    return ret;
}

void share_withdraw(const share_name *name)
{
    entry *gone = NULL;
    pthread_mutex_lock(&share_lock);
    for (entry **link = &entries; *link; link = &(*link)->next) {
        if ((*link)->id == name->id && name->pid == (int32_t)getpid()) {
            gone = *link;
            *link = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&share_lock);
    if (gone) {
        if (gone->fd >= 0)
            close(gone->fd);
        free(gone->pids);
        free(gone);
    }
}

bool share_is_ours(const share_name *name, share_kind kind)
{
    pthread_mutex_lock(&share_lock);
    entry *e = name->pid == (int32_t)getpid() ? find(name->id) : NULL;
    bool ours = e != NULL && e->nonce == name->nonce && e->kind == kind;
    pthread_mutex_unlock(&share_lock);
    return ours;
}

/* The first descriptor a reply carries, -1 for none; any others are
 * closed: whatever a peer attaches is ours to close, a malformed reply's
 * included. */
static int first_descriptor(struct msghdr *msg)
{
    int first = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof fd, sizeof fd);
            if (first < 0)
                first = fd;
            else
                close(fd);
        }
    }
    return first;
}

/* One try at name `which` of pid's broker: connected to the broker itself
 * (*sock set), busy (a full backlog: worth another try), nobody listening,
 * or unusable (an impostor, or a failure). The connect does not block: a listener whose backlog
 * another process keeps full would hold a blocking one for its timeout. */
typedef enum { BROKER_FOUND, BROKER_BUSY, BROKER_ABSENT, BROKER_UNUSABLE } broker_try;

static broker_try broker_try_name(int32_t pid, unsigned which, int *sock)
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return BROKER_UNUSABLE;
    struct sockaddr_un addr;
    socklen_t alen = socket_name(pid, which, &addr);
    if (connect(s, (struct sockaddr *)&addr, alen) != 0) {
        int err = errno;
        close(s);
        if (err == EAGAIN)
            return BROKER_BUSY;
        return err == ECONNREFUSED || err == ENOENT ? BROKER_ABSENT : BROKER_UNUSABLE;
    }
    struct ucred cred;
    socklen_t cred_len = sizeof cred;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 || cred.pid != (pid_t)pid ||
        fcntl(s, F_SETFL, 0) != 0) {
        close(s);
        return BROKER_UNUSABLE;
    }
    set_timeouts(s);
    *sock = s;
    return BROKER_FOUND;
}

/* A connection to the broker of process pid, in *sock. The broker must run
 * in that process: anything else listening under one of its names is an
 * impostor, passed over. Busy names are tried again, all within one
 * IO_TIMEOUT_S. ACL_ERROR_INVALID_PARAM when no name is listened under: no
 * such process exports anything. */
static aclError broker_connect(int32_t pid, int *sock)
{
    int64_t deadline = monotonic_ns() + (int64_t)IO_TIMEOUT_S * 1000000000;
    bool busy[BROKER_NAMES];
    for (unsigned which = 0; which < BROKER_NAMES; which++)
        busy[which] = true;
    bool listened = false;
    for (useconds_t pause_us = 100;; pause_us = pause_us < 10000 ? 2 * pause_us : pause_us) {
        bool any_busy = false;
        for (unsigned which = 0; which < BROKER_NAMES; which++) {
            if (!busy[which])
                continue;
            broker_try t = broker_try_name(pid, which, sock);
            if (t == BROKER_FOUND)
                return ACL_SUCCESS;
            busy[which] = t == BROKER_BUSY;
            any_busy |= busy[which];
            listened |= t != BROKER_ABSENT;
        }
        if (!any_busy)
            return listened ? ACL_ERROR_RT_IPC_ERROR : ACL_ERROR_INVALID_PARAM;
        if (monotonic_ns() >= deadline)
            return ACL_ERROR_RT_IPC_ERROR;
        usleep(pause_us);
    }
}

aclError share_fetch(const share_name *name, share_kind kind, int *fd, void *blob, size_t *len)
{
    *fd = -1;
    int sock = -1;
    aclError ret = broker_connect(name->pid, &sock);
    if (ret != ACL_SUCCESS)
        return ret;
    share_request req = {.magic = SHARE_MAGIC, .kind = kind, .id = name->id, .nonce = name->nonce};
    share_reply rep;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {&rep, sizeof rep};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ret = ACL_ERROR_RT_IPC_ERROR;
    int received = -1;
    if (send(sock, &req, sizeof req, MSG_NOSIGNAL) == (ssize_t)sizeof req) {
        ssize_t got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (got >= 0)
            received = first_descriptor(&msg);
        if (got == (ssize_t)sizeof rep && rep.magic == SHARE_MAGIC) {
            ret = (aclError)rep.status;
            if (ret == ACL_SUCCESS && (rep.len > *len || rep.len > SHARE_BLOB_MAX))
                ret = ACL_ERROR_RT_IPC_ERROR;
        }
    }
    if (ret == ACL_SUCCESS) {
        memcpy(blob, rep.blob, rep.len);
        *len = rep.len;
        *fd = received;
    } else if (received >= 0) {
        close(received);
    }
    close(sock);
    return ret;
}

/* ---- fork ------------------------------------------------------------------ */

static void fork_prepare(void)
{
    pthread_mutex_lock(&share_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&share_lock);
}

/* The child has no broker: what its parent exported is not its own. */
static void fork_child(void)
{
    if (listener >= 0)
        close(listener);
    listener = -1;
    while (client_count > 0)
        client_drop(client_count - 1);
    entry *e = entries;
    entries = NULL;
    while (e) {
        entry *next = e->next;
        if (e->fd >= 0)
            close(e->fd);
        free(e->pids);
        free(e);
        e = next;
    }
    pthread_mutex_unlock(&share_lock);
}

__attribute__((constructor)) static void share_init(void)
{
    fork_register(FORK_RANK_SHARE, fork_prepare, fork_parent, fork_child);
}
