/* Raw Gloo for bench_hccl (bench_hccl_gloo.h). The calls are the ones
 * src/hccl/engine_gloo.cc makes for the same collectives (options with a
 * timeout, the default algorithm, a TCP device per rank), so that the two
 * columns differ by what libhccl adds and nothing else. */
#include "bench_hccl_gloo.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

struct raw_gloo_store {
    gloo::rendezvous::HashStore store;
};

struct raw_gloo {
    std::shared_ptr<gloo::rendezvous::Context> ctx;
    std::chrono::milliseconds timeout;
};

namespace
{

void say(char *why, size_t why_len, const char *what, const std::exception &e)
{
    std::snprintf(why, why_len, "gloo %s: %s", what, e.what());
}

} // namespace

extern "C" raw_gloo_store *raw_gloo_store_new(char *why, size_t why_len)
{
    try {
        return new raw_gloo_store;
    } catch (const std::exception &e) {
        say(why, why_len, "store", e);
        return nullptr;
    }
}

extern "C" void raw_gloo_store_free(raw_gloo_store *store)
{
    delete store;
}

extern "C" raw_gloo *raw_gloo_join(raw_gloo_store *store, const char *address, int rank, int nranks,
                                   double timeout_s, char *why, size_t why_len)
{
    try {
        std::unique_ptr<raw_gloo> g(new raw_gloo);
        g->timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
        gloo::transport::tcp::attr attr(address);
        auto device = gloo::transport::tcp::CreateDevice(attr);
        g->ctx = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
        g->ctx->setTimeout(g->timeout);
        g->ctx->connectFullMesh(store->store, device);
        return g.release();
    } catch (const std::exception &e) {
        say(why, why_len, "connect", e);
        return nullptr;
    }
}

extern "C" void raw_gloo_free(raw_gloo *g)
{
    delete g;
}

extern "C" bool raw_gloo_allreduce_f32(raw_gloo *g, const float *in, float *out, size_t count,
                                       char *why, size_t why_len)
{
    try {
        gloo::AllreduceOptions o(g->ctx);
        o.setInput<float>(const_cast<float *>(in), count);
        o.setOutput<float>(out, count);
        o.setReduceFunction(
            static_cast<void (*)(void *, const void *, const void *, size_t)>(&gloo::sum<float>));
        o.setTimeout(g->timeout);
        gloo::allreduce(o);
        return true;
    } catch (const std::exception &e) {
        say(why, why_len, "allreduce", e);
        return false;
    }
}

extern "C" bool raw_gloo_allgather(raw_gloo *g, const void *in, void *out, size_t bytes, char *why,
                                   size_t why_len)
{
    try {
        gloo::AllgatherOptions o(g->ctx);
        o.setInput<uint8_t>(static_cast<uint8_t *>(const_cast<void *>(in)), bytes);
        o.setOutput<uint8_t>(static_cast<uint8_t *>(out), bytes * g->ctx->size);
        o.setTimeout(g->timeout);
        gloo::allgather(o);
        return true;
    } catch (const std::exception &e) {
        say(why, why_len, "all-gather", e);
        return false;
    }
}
