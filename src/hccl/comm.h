/* Communicators. An HcclComm is not an address but an identifier that is
 * never reused: a NULL, foreign, stale or destroyed handle is looked up,
 * found absent and refused, never followed. A lookup borrows the object
 * (comm_get / comm_put); a destroy takes it out of the registry first and
 * waits for the calls still borrowing it. */
#ifndef ACLCUDA_HCCL_COMM_H
#define ACLCUDA_HCCL_COMM_H

#include <stdbool.h>
#include <stdint.h>

#include "hccl/engine.h"
#include "hccl/hccl_comm.h"

typedef struct hccl_comm {
    uint64_t magic;
    uint64_t id;
    const hccl_engine *engine;
    hccl_engine_comm *engine_comm;
    uint32_t rank;
    uint32_t nranks;
    int32_t device; /* the ACL device current at init */
    bool sub;       /* made by HcclCreateSubCommConfig, which CANN splits no further */
    double exec_timeout_s;
    char name[COMM_NAME_MAX_LENGTH];
    unsigned borrowers; /* the registry's lock */
    struct hccl_comm *next;
} hccl_comm;

/* A communicator around an engine's, registered; NULL when out of memory. */
hccl_comm *hccl_comm_register(const hccl_engine *engine, hccl_engine_comm *engine_comm,
                              uint32_t rank, uint32_t nranks, int32_t device, double exec_timeout_s,
                              const char *name, bool sub);
HcclComm hccl_comm_handle(const hccl_comm *comm);

/* Borrows the communicator behind handle; raises for api (HCCL_E_PTR for
 * NULL, HCCL_E_PARA for anything else that is not a live communicator). */
HcclResult hccl_comm_get(const char *api, HcclComm handle, hccl_comm **comm);
void hccl_comm_put(hccl_comm *comm);

/* Takes the communicator out of the registry (later lookups fail) and waits,
 * up to its execution timeout, for the calls borrowing it; the caller then
 * owns it and frees it with hccl_comm_free. */
HcclResult hccl_comm_withdraw(const char *api, HcclComm handle, hccl_comm **comm);
void hccl_comm_free(hccl_comm *comm);

/* Whether a live communicator on device is named name. */
bool hccl_comm_named_on(const char *name, int32_t device);

/* The live communicator named name, preferring one on device; HCCL_E_NOT_FOUND. */
HcclResult hccl_comm_find(const char *name, int32_t device, HcclComm *handle);

#endif
