#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl/cluster.h"
#include "hccl/errors.h"
#include "hccl/rendezvous.h"

#define ROOT_KEY "hccl/root"

static HcclResult rendezvous_failed(const char *api, HcclResult err, const char *what,
                                    const hccl_rank_entry *root, uint16_t port)
{
    const char *detail = hccl_last_error()[0] ? hccl_last_error() : hccl_result_name(err);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", detail ? detail : "failed");
    return hccl_raise(api, err,
                      "rank table rendezvous: %s %s:%u (%s of rank 0, port from "
                      "HCCL_IF_BASE_PORT) failed: %s",
                      what, root->server_address, (unsigned)port, root->address_field, copy);
}

/* root: rank 0's entry, where the ranks meet. */
static HcclResult serve_root(const char *api, const hccl_engine *engine,
                             const hccl_rank_table *table, const hccl_rank_entry *root,
                             const hccl_env_values *env, const unsigned char *token,
                             unsigned char *root_bytes)
{
    hccl_clear_error();
    HcclResult err = engine->root_info(root_bytes);
    if (err)
        return hccl_raise_engine(api, err);
    hccl_rv_server *server;
    uint16_t port;
    hccl_clear_error();
    err = hccl_rv_serve(root->server_address, env->base_port, token, &server, &port);
    if (err)
        return rendezvous_failed(api, err, "serving on", root, env->base_port);
    hccl_rv *rv;
    hccl_clear_error();
    err = hccl_rv_connect(root->server_address, port, token, env->connect_timeout_s, &rv);
    if (err) {
        hccl_rv_server_stop(server);
        return rendezvous_failed(api, err, "connecting to", root, port);
    }
    err = hccl_rv_set(rv, ROOT_KEY, root_bytes, HCCL_ENGINE_ROOT_BYTES);
    /* The server stays until every rank has fetched the bytes. */
    for (uint32_t r = 1; r < table->nranks && !err; r++) {
        char key[32];
        snprintf(key, sizeof key, "hccl/joined/%u", r);
        void *data;
        size_t len;
        err = hccl_rv_get(rv, key, &data, &len, env->connect_timeout_s);
        if (!err)
            free(data);
        else if (err == HCCL_E_TIMEOUT)
            hccl_set_error("rank %u did not fetch the root info within %.0f s "
                           "(HCCL_CONNECT_TIMEOUT)",
                           r, env->connect_timeout_s);
    }
    hccl_rv_close(rv);
    hccl_rv_server_stop(server);
    return err ? rendezvous_failed(api, err, "serving on", root, port) : HCCL_SUCCESS;
}

static HcclResult fetch_root(const char *api, const hccl_rank_entry *root, uint32_t rank,
                             const hccl_env_values *env, const unsigned char *token,
                             unsigned char *root_bytes)
{
    hccl_rv *rv;
    hccl_clear_error();
    HcclResult err =
        hccl_rv_connect(root->server_address, env->base_port, token, env->connect_timeout_s, &rv);
    if (err)
        return rendezvous_failed(api, err, "connecting to", root, env->base_port);
    void *data = NULL;
    size_t len = 0;
    err = hccl_rv_get(rv, ROOT_KEY, &data, &len, env->connect_timeout_s);
    if (!err && len != HCCL_ENGINE_ROOT_BYTES) {
        hccl_set_error("rank 0 served %zu bytes of root info, not %d", len, HCCL_ENGINE_ROOT_BYTES);
        err = HCCL_E_TCP_TRANSFER;
    }
    if (!err) {
        memcpy(root_bytes, data, HCCL_ENGINE_ROOT_BYTES);
        char key[32];
        snprintf(key, sizeof key, "hccl/joined/%u", rank);
        err = hccl_rv_set(rv, key, "", 0);
    }
    free(data);
    hccl_rv_close(rv);
    return err ? rendezvous_failed(api, err, "fetching from", root, env->base_port) : HCCL_SUCCESS;
}

HcclResult hccl_cluster_rendezvous(const char *api, const hccl_engine *engine,
                                   const hccl_rank_table *table, uint32_t rank,
                                   const hccl_env_values *env, unsigned char *root_bytes)
{
    const hccl_rank_entry *root = &table->ranks[0];
    if (table->nranks == 1) {
        hccl_clear_error();
        HcclResult err = engine->root_info(root_bytes);
        return err ? hccl_raise_engine(api, err) : HCCL_SUCCESS;
    }
    unsigned char probe[sizeof(struct in6_addr)];
    bool addressed = inet_pton(AF_INET, root->server_address, probe) == 1 ||
                     inet_pton(AF_INET6, root->server_address, probe) == 1;
    /* One server named by something else than an address ("server_id":
     * "0", as in CANN's examples): its ranks meet on this machine. */
    hccl_rank_entry local;
    if (!addressed && table->nservers == 1) {
        local = *root;
        snprintf(local.server_address, sizeof local.server_address, "127.0.0.1");
        root = &local;
    } else if (!addressed) {
        return hccl_raise(api, HCCL_E_PARA,
                          "rank table: %s of rank 0 is \"%s\", not an IP address; rank 0's "
                          "server is reached at container_ip, else server_ip, else server_id",
                          root->address_path, root->server_address);
    }
    unsigned char token[HCCL_RV_TOKEN_BYTES];
    memcpy(token, table->digest, sizeof token);
    return rank == 0 ? serve_root(api, engine, table, root, env, token, root_bytes)
                     : fetch_root(api, root, rank, env, token, root_bytes);
}
