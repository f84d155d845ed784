#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hccl/comm.h"
#include "hccl/errors.h"

#define COMM_MAGIC 0x48434f4d4d414c43ULL /* "HCOMMALC" */
#define COMM_DEAD 0x444541444445414cULL
/* Handles are id << 4 | tag: never a small integer, never an aligned address. */
#define HANDLE_TAG 0x9U

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t borrowers_gone = PTHREAD_COND_INITIALIZER;
static hccl_comm *registry;
static uint64_t next_id = 1;

HcclComm hccl_comm_handle(const hccl_comm *comm)
{
    return (HcclComm)(uintptr_t)(comm->id << 4 | HANDLE_TAG);
}

hccl_comm *hccl_comm_register(const hccl_engine *engine, hccl_engine_comm *engine_comm,
                              uint32_t rank, uint32_t nranks, int32_t device, double exec_timeout_s,
                              const char *name, bool sub)
{
    hccl_comm *comm = calloc(1, sizeof *comm);
    if (!comm)
        return NULL;
    comm->magic = COMM_MAGIC;
    comm->engine = engine;
    comm->engine_comm = engine_comm;
    comm->rank = rank;
    comm->nranks = nranks;
    comm->device = device;
    comm->exec_timeout_s = exec_timeout_s;
    comm->sub = sub;
    snprintf(comm->name, sizeof comm->name, "%s", name);
    pthread_mutex_lock(&registry_lock);
    comm->id = next_id++;
    comm->next = registry;
    registry = comm;
    pthread_mutex_unlock(&registry_lock);
    return comm;
}

/* The registered communicator behind handle, or NULL; the lock is held. */
static hccl_comm *lookup(HcclComm handle)
{
    uintptr_t value = (uintptr_t)handle;
    if ((value & 0xfU) != HANDLE_TAG)
        return NULL;
    uint64_t id = (uint64_t)(value >> 4);
    for (hccl_comm *c = registry; c; c = c->next)
        if (c->id == id)
            return c->magic == COMM_MAGIC ? c : NULL;
    return NULL;
}

HcclResult hccl_comm_get(const char *api, HcclComm handle, hccl_comm **comm)
{
    if (!handle)
        return hccl_raise(api, HCCL_E_PTR, "comm is NULL");
    pthread_mutex_lock(&registry_lock);
    hccl_comm *found = lookup(handle);
    if (found)
        found->borrowers++;
    pthread_mutex_unlock(&registry_lock);
    if (!found)
        return hccl_raise(api, HCCL_E_PARA,
                          "comm %p is not a communicator of this process, or was destroyed",
                          handle);
    *comm = found;
    return HCCL_SUCCESS;
}

void hccl_comm_put(hccl_comm *comm)
{
    pthread_mutex_lock(&registry_lock);
    if (--comm->borrowers == 0)
        pthread_cond_broadcast(&borrowers_gone);
    pthread_mutex_unlock(&registry_lock);
}

HcclResult hccl_comm_withdraw(const char *api, HcclComm handle, hccl_comm **comm)
{
    if (!handle)
        return hccl_raise(api, HCCL_E_PTR, "comm is NULL");
    pthread_mutex_lock(&registry_lock);
    hccl_comm *found = lookup(handle);
    if (!found) {
        pthread_mutex_unlock(&registry_lock);
        return hccl_raise(api, HCCL_E_PARA,
                          "comm %p is not a communicator of this process, or was destroyed",
                          handle);
    }
    for (hccl_comm **link = &registry; *link; link = &(*link)->next)
        if (*link == found) {
            *link = found->next;
            break;
        }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)found->exec_timeout_s;
    int waited = 0;
    while (found->borrowers && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&borrowers_gone, &registry_lock, &deadline);
    bool busy = found->borrowers != 0;
    pthread_mutex_unlock(&registry_lock);
    if (busy)
        /* Left allocated: a call still inside uses it. */
        return hccl_raise(api, HCCL_E_TIMEOUT,
                          "calls on comm %p were still running after %.0f s (HCCL_EXEC_TIMEOUT); "
                          "the communicator is withdrawn but not freed",
                          handle, found->exec_timeout_s);
    *comm = found;
    return HCCL_SUCCESS;
}

void hccl_comm_free(hccl_comm *comm)
{
    comm->magic = COMM_DEAD;
    free(comm);
}

HcclResult hccl_comm_find(const char *name, int32_t device, HcclComm *handle)
{
    hccl_comm *first = NULL, *on_device = NULL;
    pthread_mutex_lock(&registry_lock);
    for (hccl_comm *c = registry; c; c = c->next) {
        if (strcmp(c->name, name) != 0)
            continue;
        if (!first)
            first = c;
        if (!on_device && c->device == device)
            on_device = c;
    }
    hccl_comm *found = on_device ? on_device : first;
    if (found)
        *handle = hccl_comm_handle(found);
    pthread_mutex_unlock(&registry_lock);
    return found ? HCCL_SUCCESS : HCCL_E_NOT_FOUND;
}

bool hccl_comm_named_on(const char *name, int32_t device)
{
    bool found = false;
    pthread_mutex_lock(&registry_lock);
    for (hccl_comm *c = registry; c && !found; c = c->next)
        found = c->device == device && strcmp(c->name, name) == 0;
    pthread_mutex_unlock(&registry_lock);
    return found;
}
