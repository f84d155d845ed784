/* The rendezvous store (rendezvous.h): one server thread polls every
 * connection; a connection first sends the 16-byte token (compared in
 * constant time; a wrong one, or none within AUTH_SECONDS, closes it), the
 * server answers one byte, then the client sends requests and reads
 * replies, one at a time.
 *
 * Wire format, integers big-endian:
 *   request: u32 length of what follows, u8 op, u16 key length, key,
 *            then SET: the value; GET: u32 timeout in ms
 *   reply:   u8 status, u32 value length, value (GET only)
 * A GET of a key not set yet waits on the server until it is set or its
 * timeout passes. Every size is bounded (keys, values, the store, the
 * connections) so that another local process cannot make the server grow
 * without limit. */
#include "hccl/rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hccl/engine.h"

enum {
    RV_OP_SET = 1,
    RV_OP_GET = 2,
    RV_OK = 0,
    RV_TIMEOUT = 1,
    RV_REFUSED = 2,
    RV_ACCEPTED = 'K', /* the byte that answers a good token */
    MAX_KEY = 256,
    MAX_VALUE = 4 << 20,
    MAX_KEYS = 65536,
    MAX_CONNS = 4096,
    AUTH_SECONDS = 10,
    REQ_HEADER = 4 + 1 + 2,
    MAX_REQUEST = 1 + 2 + MAX_KEY + MAX_VALUE,
};
#define MAX_STORE_BYTES ((size_t)256 << 20)

/* ---- shared helpers -------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ms_until(double deadline)
{
    double left = deadline - now_s();
    if (left <= 0)
        return 0;
    if (left > 3600)
        return 3600 * 1000;
    return (int)(left * 1000) + 1;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool token_equal(const unsigned char *a, const unsigned char *b)
{
    unsigned char diff = 0;
    for (int i = 0; i < HCCL_RV_TOKEN_BYTES; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* An IPv4 or IPv6 literal (with port) as a socket address. */
static bool parse_address(const char *host, uint16_t port, struct sockaddr_storage *sa,
                          socklen_t *len)
{
    memset(sa, 0, sizeof *sa);
    struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *len = sizeof *v4;
        return true;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *len = sizeof *v6;
        return true;
    }
    return false;
}

/* ---- the server ------------------------------------------------------------------------ */

typedef struct rv_entry {
    char *key;
    unsigned char *value;
    uint32_t len;
} rv_entry;

typedef struct rv_conn {
    int fd;
    bool authed;
    bool dead; /* to be closed (its reply could not be queued) */
    double auth_deadline;
    unsigned char *in; /* the request being read */
    size_t in_len, in_cap;
    unsigned char *out; /* reply bytes not written yet */
    size_t out_len, out_off;
    char *wait_key; /* a GET waiting for its key */
    double wait_deadline;
} rv_conn;

struct hccl_rv_server {
    int listen_fd;
    int wake[2]; /* a byte here stops the thread */
    unsigned char token[HCCL_RV_TOKEN_BYTES];
    pthread_t thread;
    rv_entry *entries;
    size_t nentries, entries_cap, stored_bytes;
    rv_conn *conns;
    size_t nconns;
    struct pollfd *fds;
};

static void conn_close(hccl_rv_server *s, size_t i)
{
    rv_conn *c = &s->conns[i];
    close(c->fd);
    free(c->in);
    free(c->out);
    free(c->wait_key);
    s->conns[i] = s->conns[--s->nconns];
}

static const rv_entry *find_entry(const hccl_rv_server *s, const char *key)
{
    for (size_t i = 0; i < s->nentries; i++)
        if (strcmp(s->entries[i].key, key) == 0)
            return &s->entries[i];
    return NULL;
}

/* Queues a reply; false when out of memory (the connection is closed). */
static bool queue_reply(rv_conn *c, unsigned char status, const void *value, uint32_t len)
{
    unsigned char *out = malloc(5 + (size_t)len);
    if (!out)
        return false;
    out[0] = status;
    put_u32(out + 1, len);
    if (len)
        memcpy(out + 5, value, len);
    free(c->out);
    c->out = out;
    c->out_len = 5 + (size_t)len;
    c->out_off = 0;
    return true;
}

static bool queue_reply_byte(rv_conn *c, unsigned char byte)
{
    c->out = malloc(1);
    if (!c->out)
        return false;
    c->out[0] = byte;
    c->out_len = 1;
    c->out_off = 0;
    return true;
}

static unsigned char store_set(hccl_rv_server *s, const char *key, const unsigned char *value,
                               uint32_t len)
{
    rv_entry *e = (rv_entry *)find_entry(s, key);
    if (e) {
        if (s->stored_bytes - e->len + len > MAX_STORE_BYTES)
            return RV_REFUSED;
        unsigned char *copy = malloc(len ? len : 1);
        if (!copy)
            return RV_REFUSED;
        memcpy(copy, value, len);
        s->stored_bytes = s->stored_bytes - e->len + len;
        free(e->value);
        e->value = copy;
        e->len = len;
        return RV_OK;
    }
    if (s->nentries == MAX_KEYS || s->stored_bytes + len + strlen(key) > MAX_STORE_BYTES)
        return RV_REFUSED;
    if (s->nentries == s->entries_cap) {
        size_t cap = s->entries_cap ? 2 * s->entries_cap : 64;
        rv_entry *grown = realloc(s->entries, cap * sizeof *grown);
        if (!grown)
            return RV_REFUSED;
        s->entries = grown;
        s->entries_cap = cap;
    }
    rv_entry n = {strdup(key), malloc(len ? len : 1), len};
    if (!n.key || !n.value) {
        free(n.key);
        free(n.value);
        return RV_REFUSED;
    }
    memcpy(n.value, value, len);
    s->entries[s->nentries++] = n;
    s->stored_bytes += len + strlen(key);
    return RV_OK;
}

/* Answers the GETs waiting for key. */
static void wake_waiters(hccl_rv_server *s, const rv_entry *e)
{
    for (size_t i = 0; i < s->nconns; i++) {
        rv_conn *c = &s->conns[i];
        if (c->wait_key && strcmp(c->wait_key, e->key) == 0) {
            free(c->wait_key);
            c->wait_key = NULL;
            if (!queue_reply(c, RV_OK, e->value, e->len))
                c->dead = true;
        }
    }
}

/* Handles the complete request in c->in; false closes the connection. */
static bool handle_request(hccl_rv_server *s, rv_conn *c)
{
    const unsigned char *p = c->in + 4;
    size_t body = c->in_len - 4;
    uint8_t op = p[0];
    size_t keylen = (size_t)p[1] << 8 | p[2];
    if (keylen == 0 || keylen > MAX_KEY || 3 + keylen > body)
        return false;
    char key[MAX_KEY + 1];
    memcpy(key, p + 3, keylen);
    key[keylen] = '\0';
    if (strlen(key) != keylen)
        return false;
    const unsigned char *rest = p + 3 + keylen;
    size_t rest_len = body - 3 - keylen;
    if (op == RV_OP_SET) {
        unsigned char status = store_set(s, key, rest, (uint32_t)rest_len);
        if (!queue_reply(c, status, NULL, 0))
            return false;
        if (status == RV_OK)
            wake_waiters(s, find_entry(s, key));
        return true;
    }
    if (op != RV_OP_GET || rest_len != 4)
        return false;
    const rv_entry *e = find_entry(s, key);
    if (e)
        return queue_reply(c, RV_OK, e->value, e->len);
    c->wait_key = strdup(key);
    c->wait_deadline = now_s() + get_u32(rest) / 1000.0;
    return c->wait_key != NULL;
}

/* Reads into c->in until it holds want bytes: 1 when it does, 0 when more
 * must come, -1 when the connection is to be closed. */
static int read_upto(rv_conn *c, size_t want)
{
    if (c->in_len >= want)
        return 1;
    if (want > c->in_cap) {
        unsigned char *grown = realloc(c->in, want);
        if (!grown)
            return -1;
        c->in = grown;
        c->in_cap = want;
    }
    ssize_t n = recv(c->fd, c->in + c->in_len, want - c->in_len, 0);
    if (n == 0)
        return -1;
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    c->in_len += (size_t)n;
    return c->in_len == want;
}

/* Reads what the socket has; false closes the connection. */
static bool conn_read(hccl_rv_server *s, rv_conn *c)
{
    if (c->wait_key) {
        /* A client sends one request at a time: anything now is its
         * end (or a breach of the protocol). */
        char byte;
        ssize_t n = recv(c->fd, &byte, 1, MSG_PEEK);
        return n < 0 && (errno == EAGAIN || errno == EINTR);
    }
    if (c->out)
        return true; /* the next request waits until the reply is out */
    if (!c->authed) {
        int got = read_upto(c, HCCL_RV_TOKEN_BYTES);
        if (got <= 0)
            return got == 0;
        c->in_len = 0;
        if (!token_equal(c->in, s->token))
            return false;
        c->authed = true;
        return queue_reply_byte(c, RV_ACCEPTED);
    }
    int got = read_upto(c, 4);
    if (got <= 0)
        return got == 0;
    size_t body = get_u32(c->in);
    if (body < REQ_HEADER - 4 || body > MAX_REQUEST)
        return false;
    got = read_upto(c, 4 + body);
    if (got <= 0)
        return got == 0;
    bool ok = handle_request(s, c);
    c->in_len = 0;
    if (c->in_cap > 4096) {
        free(c->in);
        c->in = NULL;
        c->in_cap = 0;
    }
    return ok;
}

static bool conn_write(rv_conn *c)
{
    ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    c->out_off += (size_t)n;
    if (c->out_off == c->out_len) {
        free(c->out);
        c->out = NULL;
    }
    return true;
}

static void accept_new(hccl_rv_server *s)
{
    for (;;) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (s->nconns == MAX_CONNS) {
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        s->conns[s->nconns++] = (rv_conn){.fd = fd, .auth_deadline = now_s() + AUTH_SECONDS};
    }
}

static void *serve(void *arg)
{
    hccl_rv_server *s = arg;
    for (;;) {
        /* The nearest deadline: a waiting GET's or an unauthenticated connection's. */
        double nearest = now_s() + 3600;
        s->fds[0] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        s->fds[1] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
        for (size_t i = 0; i < s->nconns; i++) {
            rv_conn *c = &s->conns[i];
            s->fds[2 + i] = (struct pollfd){.fd = c->fd, .events = c->out ? POLLOUT : POLLIN};
            if (!c->authed && c->auth_deadline < nearest)
                nearest = c->auth_deadline;
            if (c->wait_key && c->wait_deadline < nearest)
                nearest = c->wait_deadline;
        }
        size_t polled = s->nconns;
        int ready = poll(s->fds, 2 + polled, ms_until(nearest));
        if (ready < 0 && errno != EINTR)
            break;
        if (s->fds[0].revents)
            break;
        double now = now_s();
        /* Backwards: closing moves the last connection into the hole. */
        for (size_t i = polled; i-- > 0;) {
            rv_conn *c = &s->conns[i];
            short ev = s->fds[2 + i].revents;
            bool keep = true;
            if (c->dead || (ev & (POLLERR | POLLNVAL)))
                keep = false;
            else if (c->out && (ev & POLLOUT))
                keep = conn_write(c);
            else if (ev & (POLLIN | POLLHUP))
                keep = conn_read(s, c);
            if (keep && !c->authed && c->auth_deadline <= now)
                keep = false;
            if (keep && c->wait_key && c->wait_deadline <= now) {
                free(c->wait_key);
                c->wait_key = NULL;
                keep = queue_reply(c, RV_TIMEOUT, NULL, 0);
            }
            if (!keep)
                conn_close(s, i);
        }
        if (s->fds[1].revents & POLLIN)
            accept_new(s);
    }
    return NULL;
}

static int listen_on(const char *host, uint16_t port, uint16_t *bound_port)
{
    struct sockaddr_storage sa;
    socklen_t len;
    if (!host) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&sa;
        memset(&sa, 0, sizeof sa);
        v4->sin_family = AF_INET;
        v4->sin_addr.s_addr = htonl(INADDR_ANY);
        v4->sin_port = htons(port);
        len = sizeof *v4;
    } else if (!parse_address(host, port, &sa, &len)) {
        hccl_set_error("rendezvous: '%s' is not an IPv4 or IPv6 address", host);
        return -1;
    }
    int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        hccl_set_error("rendezvous: socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&sa, len) != 0 || listen(fd, 128) != 0) {
        hccl_set_error("rendezvous: cannot listen on %s port %u: %s", host ? host : "*",
                       (unsigned)port, strerror(errno));
        close(fd);
        return -1;
    }
    len = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &len);
    *bound_port = ntohs(sa.ss_family == AF_INET ? ((struct sockaddr_in *)&sa)->sin_port
                                                : ((struct sockaddr_in6 *)&sa)->sin6_port);
    return fd;
}

HcclResult hccl_rv_serve(const char *host, uint16_t port, const unsigned char *token,
                         hccl_rv_server **server, uint16_t *bound_port)
{
    if (!token || !server) {
        hccl_set_error("rendezvous: token or server is NULL");
        return HCCL_E_PTR;
    }
    hccl_rv_server *s = calloc(1, sizeof *s);
    if (s) {
        s->conns = calloc(MAX_CONNS, sizeof *s->conns);
        s->fds = calloc(MAX_CONNS + 2, sizeof *s->fds);
    }
    if (!s || !s->conns || !s->fds) {
        if (s) {
            free(s->conns);
            free(s->fds);
        }
        free(s);
        hccl_set_error("rendezvous: out of memory");
        return HCCL_E_MEMORY;
    }
    memcpy(s->token, token, HCCL_RV_TOKEN_BYTES);
    uint16_t bound = 0;
    s->listen_fd = listen_on(host, port, &bound);
    HcclResult ret = HCCL_E_TCP_CONNECT;
    if (s->listen_fd >= 0) {
        if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
            hccl_set_error("rendezvous: pipe: %s", strerror(errno));
            ret = HCCL_E_SYSCALL;
        } else {
            int err = pthread_create(&s->thread, NULL, serve, s);
            if (err == 0) {
                if (bound_port)
                    *bound_port = bound;
                *server = s;
                return HCCL_SUCCESS;
            }
            hccl_set_error("rendezvous: cannot start the server thread: %s", strerror(err));
            ret = HCCL_E_SYSCALL;
            close(s->wake[0]);
            close(s->wake[1]);
        }
        close(s->listen_fd);
    }
    free(s->conns);
    free(s->fds);
    free(s);
    return ret;
}

void hccl_rv_server_stop(hccl_rv_server *s)
{
    if (!s)
        return;
    char byte = 0;
    while (write(s->wake[1], &byte, 1) < 0 && errno == EINTR)
        ;
    pthread_join(s->thread, NULL);
    /* Closing every connection wakes the clients waiting in a GET. */
    while (s->nconns)
        conn_close(s, s->nconns - 1);
    close(s->listen_fd);
    close(s->wake[0]);
    close(s->wake[1]);
    for (size_t i = 0; i < s->nentries; i++) {
        free(s->entries[i].key);
        free(s->entries[i].value);
    }
    free(s->entries);
    free(s->conns);
    free(s->fds);
    free(s);
}

/* ---- the client ------------------------------------------------------------------------ */

struct hccl_rv {
    int fd;
    pthread_mutex_t lock; /* one request at a time */
};

/* Sends or receives all n bytes by deadline: HCCL_SUCCESS, HCCL_E_TIMEOUT,
 * or HCCL_E_TCP_TRANSFER (the peer closed or the socket failed). */
static HcclResult transfer(int fd, void *buf, size_t n, bool sending, double deadline)
{
    unsigned char *p = buf;
    while (n) {
        struct pollfd pfd = {.fd = fd, .events = sending ? POLLOUT : POLLIN};
        int ready = poll(&pfd, 1, ms_until(deadline));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return HCCL_E_TIMEOUT;
        if (ready < 0)
            return HCCL_E_TCP_TRANSFER;
        ssize_t done = sending ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (done < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (done <= 0)
            return HCCL_E_TCP_TRANSFER;
        p += done;
        n -= (size_t)done;
    }
    return HCCL_SUCCESS;
}

/* One non-blocking connect attempt, waited for until deadline. */
static int connect_once(const struct sockaddr_storage *sa, socklen_t len, double deadline)
{
    int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (const struct sockaddr *)sa, len) == 0)
        return fd;
    if (errno == EINPROGRESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t errlen = sizeof err;
        if (poll(&pfd, 1, ms_until(deadline)) == 1 &&
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errlen) == 0 && err == 0)
            return fd;
    }
    close(fd);
    return -1;
}

HcclResult hccl_rv_connect(const char *host, uint16_t port, const unsigned char *token,
                           double timeout_s, hccl_rv **rv)
{
    if (!host || !token || !rv) {
        hccl_set_error("rendezvous: host, token or rv is NULL");
        return HCCL_E_PTR;
    }
    struct sockaddr_storage sa;
    socklen_t len;
    if (!parse_address(host, port, &sa, &len)) {
        hccl_set_error("rendezvous: '%s' is not an IPv4 or IPv6 address", host);
        return HCCL_E_PARA;
    }
    double deadline = now_s() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        int fd = connect_once(&sa, len, deadline);
        if (fd >= 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            unsigned char answer = 0;
            HcclResult ret = transfer(fd, (void *)token, HCCL_RV_TOKEN_BYTES, true, deadline);
            if (ret == HCCL_SUCCESS)
                ret = transfer(fd, &answer, 1, false, deadline);
            if (ret == HCCL_SUCCESS && answer == RV_ACCEPTED) {
                hccl_rv *c = malloc(sizeof *c);
                if (!c) {
                    close(fd);
                    hccl_set_error("rendezvous: out of memory");
                    return HCCL_E_MEMORY;
                }
                c->fd = fd;
                pthread_mutex_init(&c->lock, NULL);
                *rv = c;
                return HCCL_SUCCESS;
            }
            close(fd);
            if (ret != HCCL_E_TIMEOUT) {
                hccl_set_error("rendezvous: the server at %s port %u refused the token", host,
                               (unsigned)port);
                return HCCL_E_TCP_CONNECT;
            }
        }
        if (now_s() >= deadline) {
            hccl_set_error("rendezvous: no server answered at %s port %u within %.1f s", host,
                           (unsigned)port, timeout_s);
            return HCCL_E_TIMEOUT;
        }
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

/* Sends one request and reads its reply's header; *status and *len tell it. */
static HcclResult request(hccl_rv *rv, uint8_t op, const char *key, const void *payload,
                          size_t payload_len, double deadline, unsigned char *status, uint32_t *len)
{
    size_t keylen = strlen(key);
    unsigned char header[REQ_HEADER];
    put_u32(header, (uint32_t)(1 + 2 + keylen + payload_len));
    header[4] = op;
    header[5] = (unsigned char)(keylen >> 8);
    header[6] = (unsigned char)keylen;
    HcclResult ret = transfer(rv->fd, header, sizeof header, true, deadline);
    if (ret == HCCL_SUCCESS)
        ret = transfer(rv->fd, (void *)key, keylen, true, deadline);
    if (ret == HCCL_SUCCESS && payload_len)
        ret = transfer(rv->fd, (void *)payload, payload_len, true, deadline);
    unsigned char reply[5];
    if (ret == HCCL_SUCCESS)
        ret = transfer(rv->fd, reply, sizeof reply, false, deadline);
    if (ret == HCCL_SUCCESS) {
        *status = reply[0];
        *len = get_u32(reply + 1);
    }
    return ret;
}

static HcclResult check_key(const char *key)
{
    if (!key || !*key || strlen(key) > MAX_KEY) {
        hccl_set_error("rendezvous: a key must have 1 to %d bytes", MAX_KEY);
        return HCCL_E_PARA;
    }
    return HCCL_SUCCESS;
}

/* A request cut short leaves the stream mid-message: the connection is
 * unusable after it. */
static HcclResult broken(hccl_rv *rv, HcclResult ret, const char *what, const char *key)
{
    if (rv->fd >= 0)
        close(rv->fd);
    rv->fd = -1;
    hccl_set_error("rendezvous: %s of '%s' %s", what, key,
                   ret == HCCL_E_TIMEOUT ? "timed out" : "failed: the server went away");
    return ret;
}

HcclResult hccl_rv_set(hccl_rv *rv, const char *key, const void *data, size_t len)
{
    HcclResult ret = check_key(key);
    if (ret != HCCL_SUCCESS)
        return ret;
    if (!rv || (!data && len)) {
        hccl_set_error("rendezvous: rv or data is NULL");
        return HCCL_E_PTR;
    }
    if (len > MAX_VALUE) {
        hccl_set_error("rendezvous: a value of %zu bytes is over the limit (%d)", len, MAX_VALUE);
        return HCCL_E_PARA;
    }
    pthread_mutex_lock(&rv->lock);
    unsigned char status = 0;
    uint32_t reply_len = 0;
    if (rv->fd < 0)
        ret = HCCL_E_TCP_TRANSFER;
    else
        ret = request(rv, RV_OP_SET, key, data, len, now_s() + 60, &status, &reply_len);
    if (ret != HCCL_SUCCESS)
        ret = broken(rv, ret, "set", key);
    else if (status != RV_OK) {
        hccl_set_error("rendezvous: the server refused to store '%s' (store full)", key);
        ret = HCCL_E_MEMORY;
    }
    pthread_mutex_unlock(&rv->lock);
    return ret;
}

HcclResult hccl_rv_get(hccl_rv *rv, const char *key, void **data, size_t *len, double timeout_s)
{
    HcclResult ret = check_key(key);
    if (ret != HCCL_SUCCESS)
        return ret;
    if (!rv || !data || !len) {
        hccl_set_error("rendezvous: rv, data or len is NULL");
        return HCCL_E_PTR;
    }
    if (timeout_s < 0)
        timeout_s = 0;
    if (timeout_s > 86400)
        timeout_s = 86400;
    unsigned char wait_ms[4];
    put_u32(wait_ms, (uint32_t)(timeout_s * 1000));
    pthread_mutex_lock(&rv->lock);
    unsigned char status = 0;
    uint32_t value_len = 0;
    /* The server answers a timeout itself; the margin covers the trip. */
    double deadline = now_s() + timeout_s + 5;
    if (rv->fd < 0)
        ret = HCCL_E_TCP_TRANSFER;
    else
        ret = request(rv, RV_OP_GET, key, wait_ms, sizeof wait_ms, deadline, &status, &value_len);
    unsigned char *value = NULL;
    if (ret == HCCL_SUCCESS && value_len > MAX_VALUE)
        ret = HCCL_E_TCP_TRANSFER;
    if (ret == HCCL_SUCCESS) {
        value = malloc(value_len ? value_len : 1);
        if (!value)
            ret = HCCL_E_MEMORY;
        else
            ret = transfer(rv->fd, value, value_len, false, deadline);
    }
    if (ret == HCCL_E_MEMORY) {
        ret = broken(rv, ret, "get", key);
        ret = HCCL_E_MEMORY;
    } else if (ret != HCCL_SUCCESS) {
        ret = broken(rv, ret, "get", key);
    } else if (status != RV_OK) {
        hccl_set_error("rendezvous: '%s' was not set within %.1f s", key, timeout_s);
        ret = HCCL_E_TIMEOUT;
    }
    pthread_mutex_unlock(&rv->lock);
    if (ret != HCCL_SUCCESS) {
        free(value);
        return ret;
    }
    *data = value;
    *len = value_len;
    return HCCL_SUCCESS;
}

void hccl_rv_close(hccl_rv *rv)
{
    if (!rv)
        return;
    if (rv->fd >= 0)
        close(rv->fd);
    pthread_mutex_destroy(&rv->lock);
    free(rv);
}

/* ---- this machine's address ------------------------------------------------------------ */

/* Whether ifname is named by HCCL_SOCKET_IFNAME's comma-separated list:
 * an entry is a name prefix, or an exact name after '='. */
static bool ifname_listed(const char *list, const char *ifname)
{
    bool exact = list[0] == '=';
    const char *p = exact ? list + 1 : list;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n && (exact ? strlen(ifname) == n && strncmp(p, ifname, n) == 0
                        : strncmp(p, ifname, n) == 0))
            return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

/* The first IPv4 address of an interface that is up, not loopback, and
 * (with a list) named by it. */
static bool first_ipv4(const char *list, char *out, size_t size)
{
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) != 0)
        return false;
    bool found = false;
    for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        if (list ? !ifname_listed(list, i->ifa_name) : (i->ifa_flags & IFF_LOOPBACK) != 0)
            continue;
        found = inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
                          (socklen_t)size) != NULL;
    }
    freeifaddrs(all);
    return found;
}

HcclResult hccl_rv_local_address(char *out, size_t size)
{
    if (!out || size < INET6_ADDRSTRLEN) {
        hccl_set_error("rendezvous: the address buffer needs %d bytes", INET6_ADDRSTRLEN);
        return HCCL_E_PARA;
    }
    const char *ip = getenv("HCCL_IF_IP");
    if (ip && *ip) {
        struct sockaddr_storage sa;
        socklen_t len;
        if (!parse_address(ip, 0, &sa, &len)) {
            hccl_set_error("HCCL_IF_IP='%s' is not an IPv4 or IPv6 address", ip);
            return HCCL_E_PARA;
        }
        snprintf(out, size, "%s", ip);
        return HCCL_SUCCESS;
    }
    const char *names = getenv("HCCL_SOCKET_IFNAME");
    if (names && *names) {
        if (first_ipv4(names, out, size))
            return HCCL_SUCCESS;
        hccl_set_error("HCCL_SOCKET_IFNAME='%s' names no interface that is up with an IPv4 "
                       "address",
                       names);
        return HCCL_E_NOT_FOUND;
    }
    if (!first_ipv4(NULL, out, size))
        snprintf(out, size, "127.0.0.1");
    return HCCL_SUCCESS;
}
