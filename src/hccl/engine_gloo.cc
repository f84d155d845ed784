/* The Gloo engine (engine.h): HCCL's collectives on the host backend, every
 * one a Gloo collective over Gloo's TCP transport. C++ because Gloo is; the
 * rest of libhccl is C and sees only hccl_engine_gloo.
 *
 * Meeting: root_info starts a rendezvous server (rendezvous.h) on this
 * machine's address with a random token; the root bytes carry address, port
 * and token. Every rank connects to it and hands it to Gloo as its Store for
 * connectFullMesh. The server lives until rank 0's communicator made from
 * those bytes is destroyed (rank 0 adopts it at init), else until the
 * process exits.
 *
 * Running: an op becomes a task, run in stream order by a host function
 * (aclcudaLaunchHostFuncAnyThread) on the stream's own thread, or on the
 * thread that synchronizes the stream when that thread finds it next: the
 * usual collective followed by aclrtSynchronizeStream then runs on the
 * caller's thread, as a raw Gloo call does, without two thread wake-ups.
 * A task of a stream being
 * captured (aclmdlRI) runs again at each replay: it is kept with the model
 * (aclcudaCaptureKeep) and holds the communicator, freed once the model and
 * its replays are gone; a replay after the communicator was destroyed skips
 * its ops. Any other task frees itself once run. The ops of one communicator run one at a
 * time, in the order their tasks start. A failure inside a task is caught,
 * becomes the communicator's async error, and the stream goes on.
 *
 * Lifetime: a communicator is counted by its handle, by each task queued
 * and not yet run and by each captured task; comm_destroy waits for those (at most the exec timeout),
 * marks it destroyed so that tasks still queued skip their ops, and the
 * last count frees it. */
extern "C" {
#include "acl/acl_cuda.h"
#include "hccl/engine.h"
#include "hccl/rendezvous.h"
}

#include <signal.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

namespace
{

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;
using Buffer = std::unique_ptr<gloo::transport::UnboundBuffer>;
using ReduceFn = void (*)(void *, const void *, const void *, size_t);

/* CANN's defaults for HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT, for
 * comm_init_all (which is given none) and for a timeout of 0. */
constexpr double kDefaultConnectS = 120;
constexpr double kDefaultExecS = 1836;

/* A slot prefix none of Gloo's collectives uses: send/recv pairs match in
 * order on it, apart from the collectives' traffic. */
constexpr uint8_t kPointToPointSlotPrefix = 0x48;

/* Another, on which a sub-communicator's rank 0 hands its root bytes to the
 * other ranks over the parent, apart from the parent's own traffic (which
 * the streams' threads may be running meanwhile). */
constexpr uint8_t kSplitSlotPrefix = 0x53;

Millis to_millis(double seconds, double fallback)
{
    if (!(seconds > 0))
        seconds = fallback;
    return Millis(static_cast<int64_t>(std::min(seconds, 1e9) * 1000));
}

/* ---- root bytes ------------------------------------------------------------------------ */

constexpr char kRootMagic[8] = {'h', 'c', 'c', 'l', 'g', 'l', 'o', '1'};

struct RootBytes {
    char magic[8];
    unsigned char port[2]; /* big-endian */
    unsigned char token[HCCL_RV_TOKEN_BYTES];
    char address[INET6_ADDRSTRLEN];
};
static_assert(sizeof(RootBytes) <= HCCL_ENGINE_ROOT_BYTES, "the root bytes fit");

void write_root(unsigned char *out, const char *address, uint16_t port, const unsigned char *token)
{
    RootBytes r;
    std::memset(&r, 0, sizeof r);
    std::memcpy(r.magic, kRootMagic, sizeof r.magic);
    r.port[0] = static_cast<unsigned char>(port >> 8);
    r.port[1] = static_cast<unsigned char>(port);
    std::memcpy(r.token, token, sizeof r.token);
    std::snprintf(r.address, sizeof r.address, "%s", address);
    std::memset(out, 0, HCCL_ENGINE_ROOT_BYTES);
    std::memcpy(out, &r, sizeof r);
}

bool read_root(const unsigned char *in, RootBytes *r)
{
    std::memcpy(r, in, sizeof *r);
    return std::memcmp(r->magic, kRootMagic, sizeof r->magic) == 0 &&
           std::memchr(r->address, '\0', sizeof r->address) != nullptr;
}

/* The servers root_info started whose rank 0 has not adopted them yet;
 * those left are stopped at exit. A forked child sees its parent's entries
 * but not their threads: it neither adopts nor stops them (the parent goes
 * on serving). */
struct RootServers {
    struct Entry {
        unsigned char token[HCCL_RV_TOKEN_BYTES];
        hccl_rv_server *server;
        pid_t owner;
    };
    std::mutex lock;
    std::vector<Entry> entries;

    ~RootServers()
    {
        for (auto &e : entries)
            if (e.owner == getpid())
                hccl_rv_server_stop(e.server);
    }

    void add(const unsigned char *token, hccl_rv_server *server)
    {
        Entry e;
        std::memcpy(e.token, token, sizeof e.token);
        e.server = server;
        e.owner = getpid();
        std::lock_guard<std::mutex> guard(lock);
        entries.push_back(e);
    }

    hccl_rv_server *take(const unsigned char *token)
    {
        std::lock_guard<std::mutex> guard(lock);
        for (auto it = entries.begin(); it != entries.end(); ++it)
            if (it->owner == getpid() && std::memcmp(it->token, token, sizeof it->token) == 0) {
                hccl_rv_server *server = it->server;
                entries.erase(it);
                return server;
            }
        return nullptr;
    }
};

RootServers &root_servers()
{
    static RootServers servers;
    return servers;
}

HcclResult random_token(unsigned char *token)
{
    size_t got = 0;
    while (got < HCCL_RV_TOKEN_BYTES) {
        ssize_t n = getrandom(token + got, HCCL_RV_TOKEN_BYTES - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            hccl_set_error("gloo: getrandom failed: %s", std::strerror(errno));
            return HCCL_E_SYSCALL;
        }
        got += static_cast<size_t>(n);
    }
    return HCCL_SUCCESS;
}

/* Starts a server on address for a new root and writes its bytes. */
HcclResult start_root(const char *address, unsigned char *out)
{
    unsigned char token[HCCL_RV_TOKEN_BYTES];
    HcclResult ret = random_token(token);
    if (ret != HCCL_SUCCESS)
        return ret;
    hccl_rv_server *server = nullptr;
    uint16_t port = 0;
    ret = hccl_rv_serve(address, 0, token, &server, &port);
    if (ret != HCCL_SUCCESS)
        return ret;
    try {
        root_servers().add(token, server);
    } catch (const std::bad_alloc &) {
        hccl_rv_server_stop(server);
        hccl_set_error("gloo: out of memory");
        return HCCL_E_MEMORY;
    }
    write_root(out, address, port, token);
    return HCCL_SUCCESS;
}

/* ---- the store Gloo meets through ------------------------------------------------------ */

struct StoreTimeout : gloo::IoException {
    explicit StoreTimeout(const std::string &msg) : gloo::IoException(msg)
    {
    }
};

/* Gloo's Store on the rendezvous client. Every wait ends by the connect
 * deadline (Gloo's own get has no timeout). */
class RendezvousStore : public gloo::rendezvous::Store
{
  public:
    RendezvousStore(hccl_rv *rv, Clock::time_point deadline) : rv_(rv), deadline_(deadline)
    {
    }

    void set(const std::string &key, const std::vector<char> &data) override
    {
        if (hccl_rv_set(rv_, (kPrefix + key).c_str(), data.data(), data.size()) != HCCL_SUCCESS)
            throw gloo::IoException("gloo: the rendezvous store refused key " + key);
    }

    std::vector<char> get(const std::string &key) override
    {
        return fetch(key, left());
    }

    void wait(const std::vector<std::string> &keys) override
    {
        wait(keys, left());
    }

    void wait(const std::vector<std::string> &keys, const Millis &timeout) override
    {
        for (const auto &key : keys)
            fetch(key, std::min(timeout, left()));
    }

  private:
    static constexpr const char *kPrefix = "gloo/";

    Millis left() const
    {
        auto ms = std::chrono::duration_cast<Millis>(deadline_ - Clock::now());
        return std::max(ms, Millis(0));
    }

    std::vector<char> fetch(const std::string &key, Millis timeout)
    {
        void *data = nullptr;
        size_t len = 0;
        HcclResult ret = hccl_rv_get(rv_, (kPrefix + key).c_str(), &data, &len,
                                     static_cast<double>(timeout.count()) / 1000);
        if (ret == HCCL_E_TIMEOUT)
            throw StoreTimeout("gloo: no rank published '" + key + "' within the connect timeout");
        if (ret != HCCL_SUCCESS)
            throw gloo::IoException("gloo: the rendezvous store failed on key " + key);
        std::vector<char> value(static_cast<char *>(data), static_cast<char *>(data) + len);
        std::free(data);
        return value;
    }

    hccl_rv *rv_;
    Clock::time_point deadline_;
};

/* ---- reductions ------------------------------------------------------------------------ */

/* A binary floating-point format narrower than float: fp16, bf16, and the
 * two fp8 formats. Values go through double, where +, *, max and min of two
 * of them are exact or rounded once within double's 53 bits, then are
 * rounded to nearest-even into the format: the result is the correctly
 * rounded one (double has more than twice the format's precision plus 2). */
struct SmallFloat {
    int ebits, mbits, bias;
    bool has_inf; /* IEEE-like; else (e4m3fn) the all-ones pattern is NaN, no infinity */
};
constexpr SmallFloat kFp16 = {5, 10, 15, true};
constexpr SmallFloat kBf16 = {8, 7, 127, true};
constexpr SmallFloat kFp8E4M3 = {4, 3, 7, false};
constexpr SmallFloat kFp8E5M2 = {5, 2, 15, true};

double sf_decode(uint32_t bits, const SmallFloat &f)
{
    const uint32_t emax = (1u << f.ebits) - 1, mmax = (1u << f.mbits) - 1;
    const bool negative = (bits >> (f.ebits + f.mbits)) & 1;
    const uint32_t e = (bits >> f.mbits) & emax, m = bits & mmax;
    double v;
    if (f.has_inf && e == emax)
        v = m ? NAN : INFINITY;
    else if (!f.has_inf && e == emax && m == mmax)
        v = NAN;
    else if (e == 0)
        v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits);
    else
        v = std::ldexp(static_cast<double>(m | (1u << f.mbits)),
                       static_cast<int>(e) - f.bias - f.mbits);
    return negative ? -v : v;
}

uint32_t sf_encode(double v, const SmallFloat &f)
{
    const uint32_t emax = (1u << f.ebits) - 1, mmax = (1u << f.mbits) - 1;
    const uint32_t sign = std::signbit(v) ? 1u << (f.ebits + f.mbits) : 0;
    const uint32_t nan =
        f.has_inf ? (emax << f.mbits) | (1u << (f.mbits - 1)) : (emax << f.mbits) | mmax;
    const uint32_t inf = f.has_inf ? emax << f.mbits : nan;
    if (std::isnan(v))
        return sign | nan;
    const double a = std::fabs(v);
    const int emin = 1 - f.bias;
    const double max_finite =
        f.has_inf ? std::ldexp(2 - std::ldexp(1, -f.mbits), static_cast<int>(emax) - 1 - f.bias)
                  : std::ldexp(2 - std::ldexp(1, 1 - f.mbits), static_cast<int>(emax) - f.bias);
    if (std::isinf(a))
        return sign | inf;
    if (a == 0)
        return sign;
    int e2;
    std::frexp(a, &e2);
    const int exponent = std::max(e2 - 1, emin);
    const double quantum = std::ldexp(1, exponent - f.mbits);
    const double r = std::nearbyint(a / quantum) * quantum; /* ties to even */
    if (r > max_finite)
        return sign | inf;
    if (r < std::ldexp(1, emin))
        return sign | static_cast<uint32_t>(r / std::ldexp(1, emin - f.mbits));
    std::frexp(r, &e2);
    const int re = e2 - 1;
    const uint32_t m = static_cast<uint32_t>(r / std::ldexp(1, re - f.mbits)) - (1u << f.mbits);
    return sign | static_cast<uint32_t>(re + f.bias) << f.mbits | m;
}

template <typename V> V combine(V a, V b, HcclReduceOp op)
{
    switch (op) {
    case HCCL_REDUCE_SUM:
        if constexpr (std::is_integral<V>::value) {
            using U = typename std::make_unsigned<V>::type; /* wraps, as the hardware does */
            return static_cast<V>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
        } else {
            return a + b;
        }
    case HCCL_REDUCE_PROD:
        if constexpr (std::is_integral<V>::value) {
            using U = typename std::make_unsigned<V>::type;
            using W = typename std::conditional<(sizeof(U) < sizeof(unsigned)), unsigned, U>::type;
            return static_cast<V>(static_cast<U>(static_cast<W>(a) * static_cast<W>(b)));
        } else {
            return a * b;
        }
    case HCCL_REDUCE_MAX:
        return a > b ? a : b;
    default:
        return a < b ? a : b;
    }
}

template <typename V, HcclReduceOp Op>
void reduce_native(void *out, const void *a, const void *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        V x, y;
        std::memcpy(&x, static_cast<const char *>(a) + i * sizeof(V), sizeof(V));
        std::memcpy(&y, static_cast<const char *>(b) + i * sizeof(V), sizeof(V));
        V r = combine(x, y, Op);
        std::memcpy(static_cast<char *>(out) + i * sizeof(V), &r, sizeof(V));
    }
}

template <typename S, const SmallFloat &F, HcclReduceOp Op>
void reduce_small(void *out, const void *a, const void *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        S x, y;
        std::memcpy(&x, static_cast<const char *>(a) + i * sizeof(S), sizeof(S));
        std::memcpy(&y, static_cast<const char *>(b) + i * sizeof(S), sizeof(S));
        S r = static_cast<S>(sf_encode(combine(sf_decode(x, F), sf_decode(y, F), Op), F));
        std::memcpy(static_cast<char *>(out) + i * sizeof(S), &r, sizeof(S));
    }
}

template <HcclReduceOp Op> ReduceFn reduce_for(HcclDataType dtype)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8:
        return reduce_native<int8_t, Op>;
    case HCCL_DATA_TYPE_INT16:
        return reduce_native<int16_t, Op>;
    case HCCL_DATA_TYPE_INT32:
        return reduce_native<int32_t, Op>;
    case HCCL_DATA_TYPE_INT64:
        return reduce_native<int64_t, Op>;
    case HCCL_DATA_TYPE_UINT8:
        return reduce_native<uint8_t, Op>;
    case HCCL_DATA_TYPE_UINT16:
        return reduce_native<uint16_t, Op>;
    case HCCL_DATA_TYPE_UINT32:
        return reduce_native<uint32_t, Op>;
    case HCCL_DATA_TYPE_UINT64:
        return reduce_native<uint64_t, Op>;
    case HCCL_DATA_TYPE_FP32:
        return reduce_native<float, Op>;
    case HCCL_DATA_TYPE_FP64:
        return reduce_native<double, Op>;
    case HCCL_DATA_TYPE_FP16:
        return reduce_small<uint16_t, kFp16, Op>;
    case HCCL_DATA_TYPE_BFP16:
        return reduce_small<uint16_t, kBf16, Op>;
    case HCCL_DATA_TYPE_FP8E4M3:
        return reduce_small<uint8_t, kFp8E4M3, Op>;
    case HCCL_DATA_TYPE_FP8E5M2:
        return reduce_small<uint8_t, kFp8E5M2, Op>;
    default:
        return nullptr;
    }
}

ReduceFn reduce_fn(HcclDataType dtype, HcclReduceOp op)
{
    switch (op) {
    case HCCL_REDUCE_SUM:
        return reduce_for<HCCL_REDUCE_SUM>(dtype);
    case HCCL_REDUCE_PROD:
        return reduce_for<HCCL_REDUCE_PROD>(dtype);
    case HCCL_REDUCE_MAX:
        return reduce_for<HCCL_REDUCE_MAX>(dtype);
    case HCCL_REDUCE_MIN:
        return reduce_for<HCCL_REDUCE_MIN>(dtype);
    default:
        return nullptr;
    }
}

/* ---- communicators and tasks ----------------------------------------------------------- */

struct Task;

} // namespace

struct hccl_engine_comm {
    std::shared_ptr<gloo::rendezvous::Context> ctx;
    uint32_t rank = 0, nranks = 0;
    Millis exec_timeout{0};
    hccl_rv_server *server = nullptr;    /* rank 0's, adopted from root_info */
    char address[INET6_ADDRSTRLEN] = {}; /* this rank's, which sub-communicators reuse */

    std::mutex run_lock; /* one op of this communicator at a time */

    std::mutex lock; /* what follows */
    std::condition_variable idle;
    unsigned queued = 0; /* tasks queued and not run */
    unsigned refs = 1;   /* the handle, the queued tasks and the captured ones */
    bool destroyed = false;
    HcclResult error = HCCL_SUCCESS; /* the first failure inside a task */
    std::string error_msg;

    ~hccl_engine_comm();
};

namespace
{

struct Task {
    hccl_engine_comm *comm;
    std::vector<hccl_op *> ops;
    bool kept = false;

    explicit Task(hccl_engine_comm *c) : comm(c)
    {
    }
    ~Task()
    {
        for (hccl_op *op : ops)
            hccl_op_free(op);
    }
};

} // namespace

hccl_engine_comm::~hccl_engine_comm()
{
    ctx.reset();
    if (server)
        hccl_rv_server_stop(server);
}

namespace
{

void release(hccl_engine_comm *c, bool was_queued)
{
    bool last;
    {
        std::lock_guard<std::mutex> guard(c->lock);
        if (was_queued && --c->queued == 0)
            c->idle.notify_all();
        last = --c->refs == 0;
    }
    if (last)
        delete c;
}

HcclResult classify(const std::exception &e)
{
    if (dynamic_cast<const StoreTimeout *>(&e))
        return HCCL_E_TIMEOUT;
    if (dynamic_cast<const std::bad_alloc *>(&e))
        return HCCL_E_MEMORY;
    std::string what = e.what();
    std::transform(what.begin(), what.end(), what.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (what.find("timeout") != std::string::npos || what.find("timed out") != std::string::npos)
        return HCCL_E_TIMEOUT;
    if (what.find("closed by peer") != std::string::npos ||
        what.find("connection reset") != std::string::npos)
        return HCCL_E_REMOTE;
    if (dynamic_cast<const gloo::IoException *>(&e))
        return HCCL_E_TCP_TRANSFER;
    return HCCL_E_INTERNAL;
}

void record_error(hccl_engine_comm *c, HcclResult code, const std::string &msg)
{
    std::lock_guard<std::mutex> guard(c->lock);
    if (c->error != HCCL_SUCCESS)
        return;
    c->error = code;
    try {
        c->error_msg = msg;
    } catch (...) {
    }
}

/* What one task runs an op with. */
struct Runner {
    hccl_engine_comm *c;
    const std::shared_ptr<gloo::Context> ctx;
    const Millis timeout;
    const uint64_t p2p_slot = gloo::Slot::build(kPointToPointSlotPrefix, 0);
    /* Point-to-point transfers posted and not yet waited for. */
    std::vector<std::pair<Buffer, bool /* send */>> posted;

    explicit Runner(hccl_engine_comm *comm) : c(comm), ctx(comm->ctx), timeout(comm->exec_timeout)
    {
    }

    Buffer buffer(const void *ptr, size_t bytes)
    {
        return ctx->createUnboundBuffer(const_cast<void *>(ptr), bytes);
    }

    static bool overlaps(const void *a, size_t alen, const void *b, size_t blen)
    {
        auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
        return alen && blen && x < y + blen && y < x + alen;
    }

    template <typename T> void allreduce_typed(const void *in, void *out, size_t n, ReduceFn fn)
    {
        gloo::AllreduceOptions o(ctx);
        if (in != out)
            o.setInput<T>(static_cast<T *>(const_cast<void *>(in)), n);
        o.setOutput<T>(static_cast<T *>(out), n);
        o.setReduceFunction(fn);
        o.setTimeout(timeout);
        gloo::allreduce(o);
    }

    /* Gloo takes the element's size from the type: one of its width. */
    void allreduce(const void *in, void *out, size_t n, size_t esize, ReduceFn fn)
    {
        if (in != out && overlaps(in, n * esize, out, n * esize)) {
            std::memmove(out, in, n * esize);
            in = out;
        }
        switch (esize) {
        case 1:
            return allreduce_typed<uint8_t>(in, out, n, fn);
        case 2:
            return allreduce_typed<uint16_t>(in, out, n, fn);
        case 4:
            return allreduce_typed<uint32_t>(in, out, n, fn);
        default:
            return allreduce_typed<uint64_t>(in, out, n, fn);
        }
    }

    template <typename T>
    void reduce_typed(const void *in, void *out, size_t n, ReduceFn fn, int root)
    {
        gloo::ReduceOptions o(ctx);
        if (in != out)
            o.setInput<T>(static_cast<T *>(const_cast<void *>(in)), n);
        o.setOutput<T>(static_cast<T *>(out), n);
        o.setRoot(root);
        o.setReduceFunction(fn);
        o.setTimeout(timeout);
        gloo::reduce(o);
    }

    void reduce(const hccl_op *op, size_t esize, ReduceFn fn)
    {
        const size_t n = op->count, bytes = n * esize;
        /* Gloo's reduce leaves partial sums in every rank's output: a rank
         * other than the root gets a scratch output, not the caller's. */
        std::vector<unsigned char> scratch;
        void *out = op->recv;
        const void *in = op->send;
        if (c->rank != op->root) {
            scratch.resize(bytes);
            out = scratch.data();
        } else if (in != out && overlaps(in, bytes, out, bytes)) {
            std::memmove(out, in, bytes);
            in = out;
        }
        switch (esize) {
        case 1:
            return reduce_typed<uint8_t>(in, out, n, fn, static_cast<int>(op->root));
        case 2:
            return reduce_typed<uint16_t>(in, out, n, fn, static_cast<int>(op->root));
        case 4:
            return reduce_typed<uint32_t>(in, out, n, fn, static_cast<int>(op->root));
        default:
            return reduce_typed<uint64_t>(in, out, n, fn, static_cast<int>(op->root));
        }
    }

    void broadcast(const hccl_op *op, size_t esize)
    {
        void *buf = op->recv ? op->recv : const_cast<void *>(op->send);
        gloo::BroadcastOptions o(ctx);
        o.setOutput<uint8_t>(static_cast<uint8_t *>(buf), op->count * esize);
        o.setRoot(static_cast<int>(op->root));
        o.setTimeout(timeout);
        gloo::broadcast(o);
    }

    void allgather(const hccl_op *op, size_t esize)
    {
        const size_t bytes = op->count * esize, total = bytes * c->nranks;
        auto *out = static_cast<uint8_t *>(op->recv);
        const void *in = op->send;
        std::vector<uint8_t> copy;
        gloo::AllgatherOptions o(ctx);
        if (in != out + c->rank * bytes) { /* else already in place: no input */
            if (overlaps(in, bytes, out, total)) {
                copy.assign(static_cast<const uint8_t *>(in),
                            static_cast<const uint8_t *>(in) + bytes);
                in = copy.data();
            }
            o.setInput<uint8_t>(static_cast<uint8_t *>(const_cast<void *>(in)), bytes);
        }
        o.setOutput<uint8_t>(out, total);
        o.setTimeout(timeout);
        gloo::allgather(o);
    }

    /* Whether displs are the running sums of counts (Gloo's v-collectives
     * know no other layout). */
    bool packed(const uint64_t *counts, const uint64_t *displs) const
    {
        uint64_t at = 0;
        for (uint32_t i = 0; i < c->nranks; i++) {
            if (displs[i] != at)
                return false;
            at += counts[i];
        }
        return true;
    }

    void allgatherv(const hccl_op *op, size_t esize)
    {
        const uint64_t *counts = op->recv_counts ? op->recv_counts : op->send_counts;
        const uint64_t *displs = op->recv_displs ? op->recv_displs : op->send_displs;
        std::vector<size_t> block(c->nranks);
        size_t total = 0, extent = 0;
        for (uint32_t i = 0; i < c->nranks; i++) {
            block[i] = counts[i] * esize;
            total += block[i];
            extent = std::max<size_t>(extent, (displs[i] + counts[i]) * esize);
        }
        auto *recv = static_cast<uint8_t *>(op->recv);
        const bool direct = packed(counts, displs);
        std::vector<uint8_t> gathered, copy;
        uint8_t *out = recv;
        if (!direct) {
            gathered.resize(total);
            out = gathered.data();
        }
        const void *in = op->send;
        const size_t in_bytes = op->count * esize;
        gloo::AllgathervOptions o(ctx);
        if (!(direct && in == recv + displs[c->rank] * esize)) {
            if (direct && overlaps(in, in_bytes, recv, extent)) {
                copy.assign(static_cast<const uint8_t *>(in),
                            static_cast<const uint8_t *>(in) + in_bytes);
                in = copy.data();
            }
            o.setInput<uint8_t>(static_cast<uint8_t *>(const_cast<void *>(in)), in_bytes);
        }
        o.setOutput<uint8_t>(out, block);
        o.setTimeout(timeout);
        gloo::allgatherv(o);
        if (!direct) {
            size_t at = 0;
            for (uint32_t i = 0; i < c->nranks; i++) {
                std::memcpy(recv + displs[i] * esize, out + at, block[i]);
                at += block[i];
            }
        }
    }

    /* Gloo has no reduce-scatter of the new API (its ReduceScatterHalvingDoubling
     * is the old, type-bound one): an allreduce, Gloo's, into scratch, of
     * which this rank keeps its block. */
    void reduce_scatter(const hccl_op *op, size_t esize, ReduceFn fn)
    {
        const size_t n = op->count * c->nranks;
        std::vector<uint8_t> scratch(n * esize);
        allreduce(op->send, scratch.data(), n, esize, fn);
        std::memcpy(op->recv, scratch.data() + c->rank * op->count * esize, op->count * esize);
    }

    void reduce_scatterv(const hccl_op *op, size_t esize, ReduceFn fn)
    {
        size_t extent = 0;
        for (uint32_t i = 0; i < c->nranks; i++)
            extent = std::max<size_t>(extent, op->send_displs[i] + op->send_counts[i]);
        if (extent == 0)
            return;
        std::vector<uint8_t> scratch(extent * esize);
        allreduce(op->send, scratch.data(), extent, esize, fn);
        std::memcpy(op->recv, scratch.data() + op->send_displs[c->rank] * esize,
                    op->send_counts[c->rank] * esize);
    }

    void scatter(const hccl_op *op, size_t esize)
    {
        const size_t bytes = op->count * esize;
        gloo::ScatterOptions o(ctx);
        std::vector<uint8_t> copy;
        if (c->rank == op->root) {
            const auto *send = static_cast<const uint8_t *>(op->send);
            if (overlaps(send, bytes * c->nranks, op->recv, bytes)) {
                copy.assign(send, send + bytes * c->nranks);
                send = copy.data();
            }
            std::vector<uint8_t *> blocks(c->nranks);
            for (uint32_t i = 0; i < c->nranks; i++)
                blocks[i] = const_cast<uint8_t *>(send) + i * bytes;
            o.setInputs<uint8_t>(blocks, bytes);
        }
        o.setOutput<uint8_t>(static_cast<uint8_t *>(op->recv), bytes);
        o.setRoot(static_cast<int>(op->root));
        o.setTimeout(timeout);
        gloo::scatter(o);
    }

    /* All-to-all in every form: Gloo's alltoall when every block is the same
     * and in place, else its alltoallv on packed copies where the layout
     * has gaps or the buffers overlap. */
    void alltoallv(const hccl_op *op, size_t esize)
    {
        const uint32_t n = c->nranks;
        size_t send_total = 0, recv_total = 0, send_extent = 0, recv_extent = 0;
        bool uniform = true;
        for (uint32_t i = 0; i < n; i++) {
            send_total += op->send_counts[i] * esize;
            recv_total += op->recv_counts[i] * esize;
            send_extent =
                std::max<size_t>(send_extent, (op->send_displs[i] + op->send_counts[i]) * esize);
            recv_extent =
                std::max<size_t>(recv_extent, (op->recv_displs[i] + op->recv_counts[i]) * esize);
            uniform = uniform && op->send_counts[i] == op->send_counts[0] &&
                      op->recv_counts[i] == op->send_counts[0];
        }
        const bool send_packed = packed(op->send_counts, op->send_displs);
        const bool recv_packed = packed(op->recv_counts, op->recv_displs);
        const bool overlap = overlaps(op->send, send_extent, op->recv, recv_extent);
        const auto *send = static_cast<const uint8_t *>(op->send);
        auto *recv = static_cast<uint8_t *>(op->recv);
        if (uniform && send_packed && recv_packed && !overlap) {
            if (send_total == 0)
                return;
            gloo::AlltoallOptions o(ctx);
            o.setInput<uint8_t>(const_cast<uint8_t *>(send), send_total);
            o.setOutput<uint8_t>(recv, recv_total);
            o.setTimeout(timeout);
            gloo::alltoall(o);
            return;
        }
        std::vector<uint8_t> in_copy, out_copy;
        const uint8_t *in = send;
        if (!send_packed || overlap) {
            in_copy.resize(send_total);
            size_t at = 0;
            for (uint32_t i = 0; i < n; i++) {
                std::memcpy(in_copy.data() + at, send + op->send_displs[i] * esize,
                            op->send_counts[i] * esize);
                at += op->send_counts[i] * esize;
            }
            in = in_copy.data();
        }
        uint8_t *out = recv;
        if (!recv_packed) {
            out_copy.resize(recv_total);
            out = out_copy.data();
        }
        std::vector<int64_t> in_bytes(n), out_bytes(n);
        for (uint32_t i = 0; i < n; i++) {
            in_bytes[i] = static_cast<int64_t>(op->send_counts[i] * esize);
            out_bytes[i] = static_cast<int64_t>(op->recv_counts[i] * esize);
        }
        gloo::AlltoallvOptions o(ctx);
        o.setInput<uint8_t>(const_cast<uint8_t *>(in), in_bytes);
        o.setOutput<uint8_t>(out, out_bytes);
        o.setTimeout(timeout);
        gloo::alltoallv(o);
        if (!recv_packed) {
            size_t at = 0;
            for (uint32_t i = 0; i < n; i++) {
                std::memcpy(recv + op->recv_displs[i] * esize, out + at,
                            op->recv_counts[i] * esize);
                at += op->recv_counts[i] * esize;
            }
        }
    }

    void barrier()
    {
        gloo::BarrierOptions o(ctx);
        o.setTimeout(timeout);
        gloo::barrier(o);
    }

    void post(bool sending, const void *ptr, size_t bytes, uint32_t peer)
    {
        if (bytes == 0)
            return;
        Buffer b = buffer(ptr, bytes);
        if (sending)
            b->send(static_cast<int>(peer), p2p_slot);
        else
            b->recv(static_cast<int>(peer), p2p_slot);
        posted.emplace_back(std::move(b), sending);
    }

    /* Posts op's sends and receives; false for an op that is not one. */
    bool post_p2p(const hccl_op *op, size_t esize)
    {
        switch (op->kind) {
        case HCCL_OP_SEND:
            post(true, op->send, op->count * esize, op->peer);
            return true;
        case HCCL_OP_RECV:
            post(false, op->recv, op->count * esize, op->peer);
            return true;
        case HCCL_OP_BATCH_SEND_RECV:
            for (uint32_t i = 0; i < op->item_count; i++) {
                const HcclSendRecvItem &it = op->items[i];
                post(it.sendRecvType == HCCL_SEND, it.buf, it.count * hccl_dtype_size(it.dataType),
                     it.remoteRank);
            }
            return true;
        default:
            return false;
        }
    }

    void wait_posted(Clock::time_point deadline)
    {
        for (auto &p : posted) {
            auto left =
                std::max(std::chrono::duration_cast<Millis>(deadline - Clock::now()), Millis(1));
            if (p.second)
                p.first->waitSend(left);
            else
                p.first->waitRecv(left);
        }
        posted.clear();
    }

    void collective(const hccl_op *op, size_t esize)
    {
        ReduceFn fn = reduce_fn(op->dtype, op->reduce);
        switch (op->kind) {
        case HCCL_OP_ALLREDUCE:
            if (op->count)
                allreduce(op->send, op->recv, op->count, esize, fn);
            return;
        case HCCL_OP_BROADCAST:
            if (op->count)
                broadcast(op, esize);
            return;
        case HCCL_OP_REDUCE:
            if (op->count)
                reduce(op, esize, fn);
            return;
        case HCCL_OP_ALLGATHER:
            if (op->count)
                allgather(op, esize);
            return;
        case HCCL_OP_ALLGATHERV:
            return allgatherv(op, esize);
        case HCCL_OP_REDUCE_SCATTER:
            if (op->count)
                reduce_scatter(op, esize, fn);
            return;
        case HCCL_OP_REDUCE_SCATTERV:
            return reduce_scatterv(op, esize, fn);
        case HCCL_OP_SCATTER:
            if (op->count)
                scatter(op, esize);
            return;
        case HCCL_OP_ALLTOALL:
        case HCCL_OP_ALLTOALLV:
            return alltoallv(op, esize);
        case HCCL_OP_BARRIER:
            return barrier();
        default:
            throw gloo::Exception("gloo: an op of unknown kind " + std::to_string(op->kind));
        }
    }

    /* Every send and receive is posted first, so that paired transfers in
     * one group or batch cannot wait on each other; then the collectives
     * run in order; then the transfers are waited for. */
    void run(const std::vector<hccl_op *> &ops)
    {
        const auto deadline = Clock::now() + timeout;
        for (const hccl_op *op : ops)
            post_p2p(op, hccl_dtype_size(op->dtype));
        for (const hccl_op *op : ops)
            if (op->kind != HCCL_OP_SEND && op->kind != HCCL_OP_RECV &&
                op->kind != HCCL_OP_BATCH_SEND_RECV)
                collective(op, hccl_dtype_size(op->dtype));
        wait_posted(deadline);
    }
};

/* Gloo's TCP transport writes with write() and writev(), which raise
 * SIGPIPE once a peer has gone, and SIGPIPE's default action ends the
 * process: a rank must get the error instead (HCCL_E_REMOTE). While this
 * lives, SIGPIPE is blocked in the calling thread, so a write to a dead
 * peer fails with EPIPE; a SIGPIPE raised meanwhile is taken back before
 * the mask is restored. Gloo's loop thread, started when a device is
 * made, inherits the mask and keeps SIGPIPE blocked. A thread that blocks
 * it already (a stream's thread blocks every signal) is left as it is:
 * one system call instead of four. */
class SigpipeBlocked
{
  public:
    SigpipeBlocked()
    {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
        was_blocked_ = sigismember(&old_, SIGPIPE) == 1;
        sigset_t pending;
        was_pending_ =
            was_blocked_ || (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1);
    }
    ~SigpipeBlocked()
    {
        if (was_blocked_)
            return;
        sigset_t pending;
        if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
            const struct timespec now = {0, 0};
            while (sigtimedwait(&pipe_, nullptr, &now) < 0 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlocked(const SigpipeBlocked &) = delete;
    SigpipeBlocked &operator=(const SigpipeBlocked &) = delete;

  private:
    sigset_t pipe_, old_;
    bool was_blocked_, was_pending_;
};

/* The host function: never lets an exception out into the stream's thread. */
void run_task(void *arg)
{
    auto *t = static_cast<Task *>(arg);
    hccl_engine_comm *c = t->comm;
    bool skip;
    {
        std::lock_guard<std::mutex> guard(c->lock);
        skip = c->destroyed;
    }
    if (!skip) {
        std::lock_guard<std::mutex> running(c->run_lock);
        SigpipeBlocked quiet;
        try {
            Runner(c).run(t->ops);
        } catch (const std::exception &e) {
            record_error(c, classify(e), e.what());
        } catch (...) {
            record_error(c, HCCL_E_INTERNAL, "gloo: an unknown exception");
        }
    }
    if (!t->kept) {
        delete t;
        release(c, true);
    }
}

/* A captured task goes with its model (aclcudaCaptureKeep). */
void release_kept(void *arg)
{
    auto *t = static_cast<Task *>(arg);
    hccl_engine_comm *c = t->comm;
    delete t;
    release(c, false);
}

/* Queues t on stream; on failure t is freed (a captured one with its
 * capture, once kept). */
HcclResult launch(hccl_engine_comm *c, Task *t, aclrtStream stream)
{
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI model = nullptr;
    if (aclmdlRICaptureGetInfo(stream, &status, &model) != ACL_SUCCESS)
        status = ACL_MODEL_RI_CAPTURE_STATUS_NONE; /* the launch below reports the stream */
    t->kept = status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    {
        std::lock_guard<std::mutex> guard(c->lock);
        c->refs++;
        if (!t->kept)
            c->queued++;
    }
    aclError err;
    if (t->kept && (err = aclcudaCaptureKeep(stream, t, release_kept)) != ACL_SUCCESS) {
        const char *why = aclGetRecentErrMsg();
        hccl_set_error("gloo: keeping the op with the capture failed (%d): %s",
                       static_cast<int>(err), why ? why : "no message");
        delete t;
        release(c, false);
        return HCCL_E_RUNTIME;
    }
    err = aclcudaLaunchHostFuncAnyThread(stream, run_task, t);
    if (err == ACL_SUCCESS)
        return HCCL_SUCCESS;
    const char *why = aclGetRecentErrMsg();
    hccl_set_error("gloo: aclcudaLaunchHostFuncAnyThread failed (%d): %s", static_cast<int>(err),
                   why ? why : "no message");
    if (!t->kept) {
        delete t;
        release(c, true);
    }
    return HCCL_E_RUNTIME;
}

/* ---- groups ---------------------------------------------------------------------------- */

struct Grouped {
    hccl_engine_comm *comm;
    hccl_op *op;
    aclrtStream stream;
};

thread_local int group_depth = 0;
thread_local std::vector<Grouped> group_ops;

/* ---- joining --------------------------------------------------------------------------- */

HcclResult init_rank(const hccl_join *join, const char *local_address, hccl_engine_comm **out)
{
    RootBytes root;
    if (!read_root(join->root_bytes, &root)) {
        hccl_set_error("gloo: the root info was not made by the Gloo engine's root_info");
        return HCCL_E_PARA;
    }
    char address[INET6_ADDRSTRLEN];
    if (local_address)
        std::snprintf(address, sizeof address, "%s", local_address);
    else if (HcclResult ret = hccl_rv_local_address(address, sizeof address); ret != HCCL_SUCCESS)
        return ret;
    const Millis connect_timeout = to_millis(join->connect_timeout_s, kDefaultConnectS);
    const auto deadline = Clock::now() + connect_timeout;
    const uint16_t port = static_cast<uint16_t>(root.port[0] << 8 | root.port[1]);
    hccl_rv *rv = nullptr;
    HcclResult ret = hccl_rv_connect(root.address, port, root.token,
                                     static_cast<double>(connect_timeout.count()) / 1000, &rv);
    if (ret != HCCL_SUCCESS)
        return ret;
    hccl_engine_comm *c = new (std::nothrow) hccl_engine_comm;
    if (!c) {
        hccl_rv_close(rv);
        hccl_set_error("gloo: out of memory");
        return HCCL_E_MEMORY;
    }
    c->rank = join->rank;
    c->nranks = join->nranks;
    c->exec_timeout = to_millis(join->exec_timeout_s, kDefaultExecS);
    std::memcpy(c->address, address, sizeof c->address);
    try {
        SigpipeBlocked quiet; /* here and in the loop thread the device starts */
        gloo::transport::tcp::attr attr(address);
        auto dev = gloo::transport::tcp::CreateDevice(attr);
        c->ctx = std::make_shared<gloo::rendezvous::Context>(static_cast<int>(join->rank),
                                                             static_cast<int>(join->nranks));
        c->ctx->setTimeout(connect_timeout); /* Gloo's pairs connect within it */
        RendezvousStore store(rv, deadline);
        c->ctx->connectFullMesh(store, dev);
        c->ctx->setTimeout(c->exec_timeout);
    } catch (const std::exception &e) {
        ret = classify(e) == HCCL_E_TIMEOUT ? HCCL_E_TIMEOUT : HCCL_E_TCP_CONNECT;
        hccl_set_error("gloo: rank %u of %u could not connect%s: %s", join->rank, join->nranks,
                       ret == HCCL_E_TIMEOUT ? " within the connect timeout" : "", e.what());
    }
    hccl_rv_close(rv);
    if (ret != HCCL_SUCCESS) {
        delete c;
        return ret;
    }
    if (join->rank == 0)
        c->server = root_servers().take(root.token);
    *out = c;
    return HCCL_SUCCESS;
}

/* ---- the engine's entry points --------------------------------------------------------- */

HcclResult gloo_root_info(unsigned char *out)
{
    if (!out) {
        hccl_set_error("gloo: root info buffer is NULL");
        return HCCL_E_PTR;
    }
    char address[INET6_ADDRSTRLEN];
    HcclResult ret = hccl_rv_local_address(address, sizeof address);
    return ret != HCCL_SUCCESS ? ret : start_root(address, out);
}

HcclResult gloo_comm_init(const hccl_join *join, hccl_engine_comm **comm)
{
    if (!join || !comm || !join->root_bytes) {
        hccl_set_error("gloo: join, its root bytes or comm is NULL");
        return HCCL_E_PTR;
    }
    if (join->nranks == 0 || join->rank >= join->nranks) {
        hccl_set_error("gloo: rank %u is not below the rank count %u", join->rank, join->nranks);
        return HCCL_E_PARA;
    }
    return init_rank(join, nullptr, comm);
}

HcclResult gloo_comm_destroy(hccl_engine_comm *comm);
const char *gloo_unsupported(HcclDataType dtype, HcclReduceOp op);

/* The ranks join from threads of their own, over loopback. */
HcclResult gloo_comm_init_all(uint32_t ndev, const int32_t *devices, hccl_engine_comm **comms)
{
    if (!devices || !comms || ndev == 0) {
        hccl_set_error("gloo: no devices or comms given");
        return HCCL_E_PARA;
    }
    unsigned char root[HCCL_ENGINE_ROOT_BYTES];
    HcclResult ret = start_root("127.0.0.1", root);
    if (ret != HCCL_SUCCESS)
        return ret;
    std::vector<HcclResult> results(ndev, HCCL_E_INTERNAL);
    std::vector<std::thread> threads;
    try {
        for (uint32_t i = 0; i < ndev; i++) {
            comms[i] = nullptr;
            threads.emplace_back([&, i] {
                hccl_join join = {ndev, i, devices[i], root, kDefaultConnectS, kDefaultExecS};
                results[i] = init_rank(&join, "127.0.0.1", &comms[i]);
            });
        }
    } catch (const std::exception &) {
        /* The ranks started time out waiting for the others. */
        hccl_set_error("gloo: cannot start a thread per rank");
        ret = HCCL_E_MEMORY;
    }
    for (auto &t : threads)
        t.join();
    for (uint32_t i = 0; i < ndev && ret == HCCL_SUCCESS; i++)
        if (results[i] != HCCL_SUCCESS)
            ret = results[i];
    if (ret != HCCL_SUCCESS) {
        for (uint32_t i = 0; i < ndev; i++)
            if (comms[i]) {
                gloo_comm_destroy(comms[i]);
                comms[i] = nullptr;
            }
        hccl_rv_server_stop(root_servers().take(reinterpret_cast<RootBytes *>(root)->token));
    }
    return ret;
}

/* Hands root from the sub-communicator's rank 0 to its other ranks, over
 * the parent: point-to-point transfers among its ranks alone. */
void share_root(hccl_engine_comm *parent, const hccl_split *split, RootBytes *root, Millis timeout)
{
    const uint64_t slot = gloo::Slot::build(kSplitSlotPrefix, static_cast<uint32_t>(split->id));
    const auto deadline = Clock::now() + timeout;
    if (split->rank != 0) {
        Buffer b = parent->ctx->createUnboundBuffer(root, sizeof *root);
        b->recv(static_cast<int>(split->ranks[0]), slot);
        if (!b->waitRecv(timeout))
            throw gloo::IoException("gloo: receiving the sub-communicator's root was aborted");
        return;
    }
    std::vector<Buffer> sends;
    for (uint32_t i = 1; i < split->nranks; i++) {
        sends.push_back(parent->ctx->createUnboundBuffer(root, sizeof *root));
        sends.back()->send(static_cast<int>(split->ranks[i]), slot);
    }
    for (auto &b : sends) {
        auto left =
            std::max(std::chrono::duration_cast<Millis>(deadline - Clock::now()), Millis(1));
        if (!b->waitSend(left))
            throw gloo::IoException("gloo: sending the sub-communicator's root was aborted");
    }
}

/* The sub-communicator's rank 0 starts a root, as root_info does, on the
 * parent's address and hands it to the others over the parent; then each
 * joins it like any communicator. */
HcclResult gloo_comm_split(hccl_engine_comm *parent, const hccl_split *split,
                           hccl_engine_comm **comm)
{
    if (!parent || !split || !split->ranks || !comm) {
        hccl_set_error("gloo: parent, split, its ranks or comm is NULL");
        return HCCL_E_PTR;
    }
    if (split->nranks == 0 || split->rank >= split->nranks || split->nranks > parent->nranks) {
        hccl_set_error("gloo: rank %u of %u ranks is not a rank of a sub-communicator of %u",
                       split->rank, split->nranks, parent->nranks);
        return HCCL_E_PARA;
    }
    for (uint32_t i = 0; i < split->nranks; i++)
        if (split->ranks[i] >= parent->nranks) {
            hccl_set_error("gloo: sub-rank %u is rank %u of the parent, which has %u", i,
                           split->ranks[i], parent->nranks);
            return HCCL_E_PARA;
        }
    unsigned char root[HCCL_ENGINE_ROOT_BYTES] = {};
    if (split->rank == 0)
        if (HcclResult ret = start_root(parent->address, root); ret != HCCL_SUCCESS)
            return ret;
    const Millis connect_timeout = to_millis(split->connect_timeout_s, kDefaultConnectS);
    HcclResult ret = HCCL_SUCCESS;
    try {
        SigpipeBlocked quiet;
        share_root(parent, split, reinterpret_cast<RootBytes *>(root), connect_timeout);
    } catch (const std::exception &e) {
        ret = classify(e);
        hccl_set_error("gloo: sub-communicator %llu, rank %u of %u: its root did not reach %s "
                       "rank%s: %s",
                       static_cast<unsigned long long>(split->id), split->rank, split->nranks,
                       split->rank == 0 ? "every" : "this", split->rank == 0 ? "" : " from rank 0",
                       e.what());
    }
    if (ret == HCCL_SUCCESS) {
        hccl_join join = {split->nranks,        split->rank, 0, root, split->connect_timeout_s,
                          split->exec_timeout_s};
        ret = init_rank(&join, parent->address, comm);
    }
    if (ret != HCCL_SUCCESS && split->rank == 0)
        hccl_rv_server_stop(root_servers().take(reinterpret_cast<RootBytes *>(root)->token));
    return ret;
}

HcclResult gloo_comm_destroy(hccl_engine_comm *comm)
{
    if (!comm) {
        hccl_set_error("gloo: comm is NULL");
        return HCCL_E_PTR;
    }
    {
        std::unique_lock<std::mutex> guard(comm->lock);
        /* A task running is bounded by the exec timeout; one still queued
         * behind other work skips its ops once destroyed is set. */
        comm->idle.wait_for(guard, comm->exec_timeout + std::chrono::seconds(5),
                            [comm] { return comm->queued == 0; });
        comm->destroyed = true;
    }
    release(comm, false);
    return HCCL_SUCCESS;
}

bool is_reduction(hccl_op_kind kind)
{
    return kind == HCCL_OP_ALLREDUCE || kind == HCCL_OP_REDUCE || kind == HCCL_OP_REDUCE_SCATTER ||
           kind == HCCL_OP_REDUCE_SCATTERV;
}

/* What the API layer checks already, checked again where a slip would
 * reach Gloo: a type without a size, a reduction without a function. */
HcclResult check_op(const hccl_op *op)
{
    if (op->kind == HCCL_OP_BARRIER)
        return HCCL_SUCCESS;
    if (op->kind == HCCL_OP_BATCH_SEND_RECV) {
        for (uint32_t i = 0; i < op->item_count; i++)
            if (hccl_dtype_size(op->items[i].dataType) == 0) {
                hccl_set_error("gloo: batch item %u has data type %d, which HCCL does not define",
                               i, static_cast<int>(op->items[i].dataType));
                return HCCL_E_PARA;
            }
        return HCCL_SUCCESS;
    }
    if (hccl_dtype_size(op->dtype) == 0) {
        hccl_set_error("gloo: data type %d is not one HCCL defines", static_cast<int>(op->dtype));
        return HCCL_E_PARA;
    }
    if (is_reduction(op->kind) && !reduce_fn(op->dtype, op->reduce)) {
        const char *why = gloo_unsupported(op->dtype, op->reduce);
        hccl_set_error("%s", why ? why : "gloo: no reduction for this type and op");
        return HCCL_E_NOT_SUPPORT;
    }
    return HCCL_SUCCESS;
}

HcclResult gloo_submit(hccl_engine_comm *comm, hccl_op *op, aclrtStream stream)
{
    if (!comm || !op) {
        if (op)
            hccl_op_free(op);
        hccl_set_error("gloo: comm or op is NULL");
        return HCCL_E_PTR;
    }
    if (HcclResult ret = check_op(op); ret != HCCL_SUCCESS) {
        hccl_op_free(op);
        return ret;
    }
    if (group_depth > 0) {
        try {
            group_ops.push_back({comm, op, stream});
        } catch (const std::bad_alloc &) {
            hccl_op_free(op);
            hccl_set_error("gloo: out of memory");
            return HCCL_E_MEMORY;
        }
        return HCCL_SUCCESS;
    }
    Task *t = new (std::nothrow) Task(comm);
    try {
        if (t)
            t->ops.push_back(op);
    } catch (const std::bad_alloc &) {
        delete t;
        t = nullptr;
    }
    if (!t) {
        hccl_op_free(op);
        hccl_set_error("gloo: out of memory");
        return HCCL_E_MEMORY;
    }
    return launch(comm, t, stream);
}

HcclResult gloo_group_start(void)
{
    group_depth++;
    return HCCL_SUCCESS;
}

/* One task per (communicator, stream), in the order of their first op. */
HcclResult gloo_group_end(void)
{
    if (group_depth == 0) {
        hccl_set_error("gloo: group end without a group start");
        return HCCL_E_PARA;
    }
    if (--group_depth > 0)
        return HCCL_SUCCESS;
    std::vector<Grouped> ops;
    ops.swap(group_ops);
    HcclResult ret = HCCL_SUCCESS;
    for (size_t i = 0; i < ops.size(); i++) {
        if (!ops[i].op)
            continue;
        Task *t = nullptr;
        if (ret == HCCL_SUCCESS) {
            t = new (std::nothrow) Task(ops[i].comm);
            if (!t) {
                hccl_set_error("gloo: out of memory");
                ret = HCCL_E_MEMORY;
            }
        }
        for (size_t j = i; j < ops.size(); j++) {
            if (!ops[j].op || ops[j].comm != ops[i].comm || ops[j].stream != ops[i].stream)
                continue;
            try {
                if (t)
                    t->ops.push_back(ops[j].op);
                else
                    hccl_op_free(ops[j].op);
            } catch (const std::bad_alloc &) {
                hccl_op_free(ops[j].op);
                delete t;
                t = nullptr;
                hccl_set_error("gloo: out of memory");
                ret = HCCL_E_MEMORY;
            }
            if (j != i)
                ops[j].op = nullptr;
        }
        ops[i].op = nullptr;
        if (t) {
            HcclResult launched = launch(ops[i].comm, t, ops[i].stream);
            if (ret == HCCL_SUCCESS)
                ret = launched;
        }
    }
    return ret;
}

HcclResult gloo_async_error(hccl_engine_comm *comm, HcclResult *error)
{
    if (!comm || !error) {
        hccl_set_error("gloo: comm or error is NULL");
        return HCCL_E_PTR;
    }
    std::lock_guard<std::mutex> guard(comm->lock);
    *error = comm->error;
    if (comm->error != HCCL_SUCCESS)
        hccl_set_error("%s", comm->error_msg.c_str());
    return HCCL_SUCCESS;
}

const char *gloo_unsupported(HcclDataType dtype, HcclReduceOp op)
{
    if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_PROD && op != HCCL_REDUCE_MAX &&
        op != HCCL_REDUCE_MIN)
        return "the Gloo engine reduces with SUM, PROD, MAX and MIN only";
    switch (dtype) {
    case HCCL_DATA_TYPE_INT128:
        return "the Gloo engine cannot reduce INT128 (no arithmetic for it here)";
    case HCCL_DATA_TYPE_HIF8:
        return "the Gloo engine cannot reduce HIF8 (an Ascend format it has no arithmetic for)";
    case HCCL_DATA_TYPE_FP8E8M0:
        return "the Gloo engine cannot reduce FP8E8M0 (a scale format without sums or products)";
    default:
        return reduce_fn(dtype, op) ? nullptr : "the Gloo engine knows no such data type";
    }
}

} // namespace

extern "C" const hccl_engine hccl_engine_gloo = {
    "gloo",          gloo_root_info,    gloo_comm_init,   gloo_comm_init_all,
    gloo_comm_split, gloo_comm_destroy, gloo_submit,      gloo_group_start,
    gloo_group_end,  gloo_async_error,  gloo_unsupported,
};
