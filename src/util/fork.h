/* fork() safety: no lock of the library may be inherited locked by a child.
 * Every module whose locks a child could need registers handlers here with
 * its rank in the library's lock order (docs/hacking.md): before a fork,
 * prepare handlers run by ascending rank, so outer locks are taken before
 * inner ones as everywhere else; after it, parent and child handlers run
 * by descending rank. Registration happens in constructors, before any
 * thread of the program can call into the library. */
#ifndef ACLCUDA_UTIL_FORK_H
#define ACLCUDA_UTIL_FORK_H

/* The lock order, outermost first. A module may hold a lock of a lower rank
 * while taking one of a higher rank, never the reverse. */
enum fork_rank {
    FORK_RANK_INIT = 10,      /* aclInit's state */
    FORK_RANK_DEVICES = 20,   /* device table, then each context's lock */
    FORK_RANK_CALLBACKS = 30, /* report threads, subscription stripes, each report thread */
    FORK_RANK_QUEUES = 34,    /* tdt queues and routes of this process */
    FORK_RANK_KERNELS = 35,   /* kernel symbols and argument lists, then captures */
    FORK_RANK_VMM = 36,       /* mappings, pools, IPC keys, host registrations */
    FORK_RANK_SHARE = 37,     /* what this process shares with others */
    FORK_RANK_DEFERRED = 38,  /* releases deferred behind queued work */
    FORK_RANK_MEMORY = 40,    /* allocation registry, parked blocks */
    FORK_RANK_HANDLES = 50,   /* handle table */
    FORK_RANK_PAUSE = 55,     /* the host backend's pause of its workers (an export) */
    FORK_RANK_BACKEND = 60,   /* backend pools and streams */
    FORK_RANK_ERRORS = 70,    /* process-level error messages */
};

typedef void (*fork_fn)(void);

/* Any of the three may be NULL. */
void fork_register(int rank, fork_fn prepare, fork_fn parent, fork_fn child);

#endif
