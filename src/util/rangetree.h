/* Non-overlapping address ranges in a red-black tree. Intrusive: a
 * range_node lives inside its owner (range_entry finds the owner), so the
 * tree allocates nothing; the caller locks. Lookups compare in line, with
 * no callback: the tree is what every registry lookup and change walks. */
#ifndef ACLCUDA_UTIL_RANGETREE_H
#define ACLCUDA_UTIL_RANGETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct range_node {
    struct range_node *child[2]; /* lower ranges, higher ranges */
    struct range_node *parent;
    uintptr_t base;
    size_t size; /* > 0 */
    bool red;
} range_node;

typedef struct range_tree {
    range_node *root;
} range_tree;

#define range_entry(node, type, member) ((type *)((char *)(node)-offsetof(type, member)))

/* The node whose range overlaps [base, base + size), size > 0; NULL when
 * none does. As the ranges do not overlap, there is at most one unless the
 * query spans several (then one of them). */
static inline range_node *range_tree_overlap(const range_tree *t, uintptr_t base, size_t size)
{
    /* Inclusive last bytes: no overflow at the top of the address space. */
    uintptr_t last = base + (size - 1);
    range_node *n = t->root;
    while (n != NULL) {
        if (last < n->base)
            n = n->child[0];
        else if (n->base + (n->size - 1) < base)
            n = n->child[1];
        else
            return n;
    }
    return NULL;
}

/* The node whose range holds addr, NULL when none does. */
static inline range_node *range_tree_find(const range_tree *t, uintptr_t addr)
{
    return range_tree_overlap(t, addr, 1);
}

/* Inserts n (its base and size set): NULL, or the node n's range overlaps,
 * in which case n is not inserted. */
range_node *range_tree_insert(range_tree *t, range_node *n);
/* Removes n, which is in t. */
void range_tree_remove(range_tree *t, range_node *n);

#endif
