/* Teardown notifications. Ownership runs one way (device -> context ->
 * stream), so the owners never call modules that merely use their objects
 * (callbacks, memory); those register here instead, from constructors,
 * and are told when something they may hold on to goes away. */
#ifndef ACLCUDA_CORE_LIFECYCLE_H
#define ACLCUDA_CORE_LIFECYCLE_H

typedef enum lifecycle_event {
    /* subject: a stream just made (default streams included), live and
     * borrowed by its creator. */
    LIFECYCLE_STREAM_MADE,
    /* subject: the acl_stream being torn down (its handle already gone). */
    LIFECYCLE_STREAM_GONE,
    /* subject: a live acl_stream (borrowed) whose queued work an
     * aclrtStreamAbort just settled. */
    LIFECYCLE_STREAM_ABORTED,
    /* subject: the device's backend index as an intptr_t; its default
     * context was just released. */
    LIFECYCLE_DEVICE_RELEASED,
    /* subject: NULL; aclFinalize released everything. */
    LIFECYCLE_FINALIZED,
    /* subject: the mem_block (memory.h) aclrtFree or a sibling just took
     * from the registry, before the backend frees it. */
    LIFECYCLE_MEMORY_FREED,
    LIFECYCLE_EVENT_COUNT
} lifecycle_event;

typedef void (*lifecycle_fn)(void *subject);

/* From constructors only. */
void lifecycle_observe(lifecycle_event event, lifecycle_fn fn);
void lifecycle_notify(lifecycle_event event, void *subject);

#endif
