#include "config.h"

#include <stdatomic.h>
#include <string.h>

#include "acl/acl_cuda.h"
#include "hccl/errors.h"
#include "hccl/select.h"

/* An engine that refuses everything with why it is missing. */
#define UNAVAILABLE_ENGINE(var, engine_name, why)                                                  \
    static HcclResult var##_refuse(void)                                                           \
    {                                                                                              \
        hccl_set_error("%s", why);                                                                 \
        return HCCL_E_NOT_SUPPORT;                                                                 \
    }                                                                                              \
    static HcclResult var##_root_info(unsigned char *out)                                          \
    {                                                                                              \
        (void)out;                                                                                 \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_comm_init(const hccl_join *join, hccl_engine_comm **comm)              \
    {                                                                                              \
        (void)join;                                                                                \
        (void)comm;                                                                                \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_comm_init_all(uint32_t ndev, const int32_t *devices,                   \
                                          hccl_engine_comm **comms)                                \
    {                                                                                              \
        (void)ndev;                                                                                \
        (void)devices;                                                                             \
        (void)comms;                                                                               \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_comm_split(hccl_engine_comm *parent, const hccl_split *split,          \
                                       hccl_engine_comm **comm)                                    \
    {                                                                                              \
        (void)parent;                                                                              \
        (void)split;                                                                               \
        (void)comm;                                                                                \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_comm_destroy(hccl_engine_comm *comm)                                   \
    {                                                                                              \
        (void)comm;                                                                                \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_submit(hccl_engine_comm *comm, hccl_op *op, aclrtStream stream)        \
    {                                                                                              \
        (void)comm;                                                                                \
        (void)stream;                                                                              \
        hccl_op_free(op);                                                                          \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static HcclResult var##_async_error(hccl_engine_comm *comm, HcclResult *error)                 \
    {                                                                                              \
        (void)comm;                                                                                \
        (void)error;                                                                               \
        return var##_refuse();                                                                     \
    }                                                                                              \
    static const char *var##_unsupported(HcclDataType dtype, HcclReduceOp op)                      \
    {                                                                                              \
        (void)dtype;                                                                               \
        (void)op;                                                                                  \
        return NULL;                                                                               \
    }                                                                                              \
    static const hccl_engine var = {                                                               \
        .name = engine_name,                                                                       \
        .root_info = var##_root_info,                                                              \
        .comm_init = var##_comm_init,                                                              \
        .comm_init_all = var##_comm_init_all,                                                      \
        .comm_split = var##_comm_split,                                                            \
        .comm_destroy = var##_comm_destroy,                                                        \
        .submit = var##_submit,                                                                    \
        .group_start = var##_refuse,                                                               \
        .group_end = var##_refuse,                                                                 \
        .async_error = var##_async_error,                                                          \
        .unsupported = var##_unsupported,                                                          \
    };

#ifdef ACLCUDA_HAVE_NCCL
#define CUDA_ENGINE hccl_engine_nccl
#else
UNAVAILABLE_ENGINE(nccl_unavailable, "nccl",
                   "acl-cuda was built without NCCL (install NCCL's headers, nccl.h, and "
                   "reconfigure, or give --with-nccl=DIR)")
#define CUDA_ENGINE nccl_unavailable
#endif

#ifdef ACLCUDA_HAVE_GLOO
#define HOST_ENGINE hccl_engine_gloo
#else
UNAVAILABLE_ENGINE(gloo_unavailable, "gloo",
                   "acl-cuda was built without Gloo (install libgloo-dev and reconfigure)")
#define HOST_ENGINE gloo_unavailable
#endif

static _Atomic(const hccl_engine *) override;

void hccl_engine_override(const hccl_engine *engine)
{
    atomic_store(&override, engine);
}

const hccl_engine *hccl_engine_select(const char *api)
{
    const hccl_engine *chosen = atomic_load(&override);
    if (chosen)
        return chosen;
    const char *backend = aclcudaGetBackendName();
    if (backend && !strcmp(backend, "cuda"))
        return &CUDA_ENGINE;
    if (backend && !strcmp(backend, "host"))
        return &HOST_ENGINE;
    hccl_raise(api, HCCL_E_NOT_SUPPORT, "the ACL backend \"%s\" has no collective engine",
               backend ? backend : "(none)");
    return NULL;
}
