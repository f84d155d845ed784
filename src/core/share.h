/* Sharing with other processes of this machine: what one process exports
 * (IPC memory keys, notifies, shareable handles of physical memory, IPC
 * events), another fetches by (pid, id, nonce).
 *
 * Each exporting process runs a broker thread listening on an abstract
 * Unix socket named after its pid. An importer connects, names the entry,
 * and gets the entry's description and, over SCM_RIGHTS, its file
 * descriptor, once the broker has checked the importer's pid (SO_PEERCRED)
 * against the entry's list of allowed processes (unless the exporter
 * turned validation off; then any process of the same user). The exporter
 * decides: nothing the importer can write is consulted. Names are
 * unguessable: a random 64-bit id and a random 64-bit nonce, or for names
 * that must fit 64 bits with the pid (shareable handles), a random id of
 * SHARE_SHORT_ID_BITS bits. The importer checks that the broker it reached
 * runs in the named process. The broker serves many connections at once;
 * one that sends nothing is dropped after a while, or when too many others
 * wait behind it, so that idle connections never keep importers waiting.
 *
 * Codes (bare): ACL_ERROR_INVALID_PARAM when the entry does not exist (or
 * no longer: withdrawn, or its process ended), ACL_ERROR_RT_NO_PERMISSION
 * when the importer is not allowed, ACL_ERROR_RT_IPC_ERROR when the broker
 * cannot be reached or answers badly. */
#ifndef ACLCUDA_CORE_SHARE_H
#define ACLCUDA_CORE_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

enum { SHARE_BLOB_MAX = 256 };

typedef enum share_kind {
    SHARE_IPC_MEMORY = 1, /* aclrtIpcMemGetExportKey */
    SHARE_PHYSICAL = 2,   /* aclrtMemExportToShareableHandle(V2) */
    SHARE_EVENT = 3,      /* aclrtIpcGetEventHandle */
    SHARE_NOTIFY = 4,     /* aclrtNotifyGetExportKey */
    SHARE_QUEUE = 5,      /* acltdtCreateQueue (granted with acltdtGrantQueue) */
} share_kind;

/* Linux pids fit 22 bits (PID_MAX_LIMIT): a 64-bit name holds the pid and
 * this many random bits. */
enum { SHARE_SHORT_ID_BITS = 42 };

/* Copied whole into handles that go to other processes: no padding, and
 * `spare` stays 0 (the initialisers name the other fields). */
typedef struct share_name {
    int32_t pid;
    uint32_t spare;
    uint64_t id, nonce;
} share_name;
_Static_assert(sizeof(share_name) == 24, "a share name has no padding");

/* The broker's wire format (one message each way on a SOCK_SEQPACKET
 * connection; the reply carries the descriptor, if any, as SCM_RIGHTS).
 * Public here for the tests that speak it as a hostile client would. */
#define SHARE_MAGIC 0x41534852u /* "ASHR" */
typedef struct share_request {
    uint32_t magic, kind;
    uint64_t id, nonce;
} share_request;
typedef struct share_reply {
    uint32_t magic;
    int32_t status;
    uint32_t len;
    unsigned char blob[SHARE_BLOB_MAX];
} share_reply;

/* Publishes blob (and fd, which the entry then owns; -1 for none). With
 * check_pids, only this process and those allowed later (share_allow) may
 * fetch it. A short name has a random id of SHARE_SHORT_ID_BITS bits and
 * nonce 0 (for names that must fit 64 bits); any other a random 64-bit id
 * and nonce. */
aclError share_publish(share_kind kind, int fd, const void *blob, size_t len, bool check_pids,
                       bool short_name, share_name *name);
/* Publishes like share_publish with check_pids, under an id the caller
 * chose (not 0) and nonce 0: for names the API fixes, such as a queue's
 * 32-bit id, which are guessable, so only the allow-list guards them.
 * ACL_ERROR_INVALID_PARAM when the id is taken. */
aclError share_publish_at(share_kind kind, int fd, const void *blob, size_t len, uint64_t id,
                          share_name *name);
/* Adds processes allowed to fetch an entry of ours (each pid positive; a
 * pid listed already counts once; at most 1024 per entry). Raises for api. */
aclError share_allow(const char *api, const share_name *name, const int32_t *pids, size_t count);
/* Withdraws an entry of ours; later fetches fail. */
void share_withdraw(const share_name *name);
/* Whether name is a live entry of this process of that kind. */
bool share_is_ours(const share_name *name, share_kind kind);

/* Fetches an entry from its process: *fd (the caller's to close; -1 when
 * the entry has none) and its blob (at most *len bytes; *len becomes its
 * length). */
aclError share_fetch(const share_name *name, share_kind kind, int *fd, void *blob, size_t *len);

#endif
