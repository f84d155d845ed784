/* Releases deferred behind queued work: queued work keeps alive what it
 * touches. A release of memory that work already queued may still touch
 * (an unmap, and what waits for it: the reservation's release, the
 * physical memory's free) succeeds at once for the caller, whose view
 * changes at once (the address is no longer mapped, the handle is dead),
 * while the backend's release waits until every stream's work queued
 * before it has completed: the module marks the end of the work queued on
 * every busy stream (every device, every context, and the streams
 * destroyed without waiting, whose work still runs) and runs the release
 * once all the marks completed.
 *
 * Releases run in the order they were added, at the next call of
 * deferred_reap after their work completed (the virtual-memory and IPC
 * memory calls reap on entry), when device memory is counted (aclrtGetMemInfo), when a
 * device is released, and all of them at aclFinalize. An address whose
 * release is still deferred is reused only after it (deferred_wait). */
#ifndef ACLCUDA_CORE_DEFERRED_H
#define ACLCUDA_CORE_DEFERRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct deferral deferral;

/* run: the backend's release, under the module's lock (it may take no
 * lock of the core); done: what goes with it (a reference dropped, the
 * bookkeeping freed), with no lock held. */
typedef void (*deferred_fn)(void *arg);

/* A release about to be made: with mark_work, the end of the work queued
 * so far on every stream is marked first (with no lock held: it submits
 * to the streams). NULL when out of memory. Either added or cancelled. */
deferral *deferred_begin(bool mark_work);
/* Whether d waits for nothing: no stream had work queued, so a release
 * needs no deferring (unless it must follow a deferred one). */
bool deferred_idle(const deferral *d);
void deferred_cancel(deferral *d);
/* Queues d's release of [base, base + size) after those already queued.
 * May be called under the caller's lock (vmm_lock). */
void deferred_add(deferral *d, deferred_fn run, deferred_fn done, void *arg, const void *base,
                  size_t size);
/* Whether a deferred release of addresses in [base, base + size) is
 * queued. May be called under the caller's lock. */
bool deferred_overlaps(const void *base, size_t size);

/* Runs, in order, the releases whose work has completed. Never blocks on
 * the device. No lock of the caller may be held. */
void deferred_reap(void);
/* Returns once no deferred release of [base, base + size) is left: waits
 * for their work, then runs them (and those before them). No lock held.
 * False when limit_ms (-1: none) passed first, and without waiting inside
 * a callback (callback.h), whose own stream cannot go on before it
 * returns: the release is still deferred. */
bool deferred_wait(const void *base, size_t size, int64_t limit_ms);

#endif
