/* The set of live handles: an open-addressing hash set of pointers with
 * linear probing and backward-shift deletion, under a reader-writer lock so
 * that the lookups made by every call run in parallel. */
#include <stdlib.h>

#include "internal.h"

static void **slots;
static size_t slot_count; /* a power of two, or 0 */
static size_t live_count;
static pthread_rwlock_t set_lock = PTHREAD_RWLOCK_INITIALIZER;

static size_t slot_of(const void *h, size_t mask)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & mask;
}

static bool insert_slot(void **table, size_t count, void *h)
{
    size_t mask = count - 1;
    for (size_t i = slot_of(h, mask);; i = (i + 1) & mask) {
        if (table[i] == h)
            return false;
        if (!table[i]) {
            table[i] = h;
            return true;
        }
    }
}

static void grow(void)
{
    size_t count = slot_count ? slot_count * 2 : 1024;
    void **table = calloc(count, sizeof *table);
    if (!table)
        abort(); /* a handle we could not track would be unusable */
    for (size_t i = 0; i < slot_count; i++)
        if (slots[i])
            insert_slot(table, count, slots[i]);
    free(slots);
    slots = table;
    slot_count = count;
}

void handle_register(void *h)
{
    pthread_rwlock_wrlock(&set_lock);
    if ((live_count + 1) * 2 > slot_count)
        grow();
    if (insert_slot(slots, slot_count, h))
        live_count++;
    pthread_rwlock_unlock(&set_lock);
}

void handle_unregister(void *h)
{
    pthread_rwlock_wrlock(&set_lock);
    if (slot_count) {
        size_t mask = slot_count - 1;
        size_t i = slot_of(h, mask);
        while (slots[i] && slots[i] != h)
            i = (i + 1) & mask;
        if (slots[i]) {
            /* Shift later members of the probe run back into the hole. */
            size_t hole = i;
            for (size_t j = (i + 1) & mask; slots[j]; j = (j + 1) & mask) {
                size_t home = slot_of(slots[j], mask);
                bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
                if (movable) {
                    slots[hole] = slots[j];
                    hole = j;
                }
            }
            slots[hole] = NULL;
            live_count--;
        }
    }
    pthread_rwlock_unlock(&set_lock);
}

static bool is_member(const void *h)
{
    if (!slot_count)
        return false;
    size_t mask = slot_count - 1;
    for (size_t i = slot_of(h, mask); slots[i]; i = (i + 1) & mask)
        if (slots[i] == h)
            return true;
    return false;
}

void *handle_lookup(const void *h, uint32_t magic)
{
    if (!h)
        return NULL;
    pthread_rwlock_rdlock(&set_lock);
    bool ok = is_member(h) && *(const uint32_t *)h == magic;
    pthread_rwlock_unlock(&set_lock);
    return ok ? (void *)h : NULL;
}

uint32_t handle_kind(const void *h)
{
    if (!h)
        return 0;
    pthread_rwlock_rdlock(&set_lock);
    uint32_t kind = is_member(h) ? *(const uint32_t *)h : 0;
    pthread_rwlock_unlock(&set_lock);
    return kind;
}
