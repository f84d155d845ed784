/* util/rangetree: the allocation registry's tree. Random inserts, refused
 * overlaps and removals, checked after each step against a plain array
 * and against the red-black rules (which bound every lookup's depth). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/rangetree.h"

enum { SLOTS = 512, SLOT_BYTES = 64 };

typedef struct range {
    range_node node;
    bool in;
} range;

static range ranges[SLOTS];
static range_tree tree;

/* The black height of the subtree at n, after checking order, links and
 * colours inside it; -1 after a failed check. */
static int check_subtree(const range_node *n, const range_node *parent, uintptr_t low,
                         uintptr_t high)
{
    if (n == NULL)
        return 0;
    ck_assert_ptr_eq(n->parent, parent);
    ck_assert_uint_ge(n->base, low);
    ck_assert_uint_le(n->base + n->size, high);
    if (n->red) {
        ck_assert(n->child[0] == NULL || !n->child[0]->red);
        ck_assert(n->child[1] == NULL || !n->child[1]->red);
    }
    int left = check_subtree(n->child[0], n, low, n->base);
    int right = check_subtree(n->child[1], n, n->base + n->size, high);
    ck_assert_int_eq(left, right);
    return left + !n->red;
}

static void check_tree(void)
{
    ck_assert(tree.root == NULL || !tree.root->red);
    (void)check_subtree(tree.root, NULL, 0, UINTPTR_MAX);
    for (uintptr_t a = 0; a < (uintptr_t)SLOTS * SLOT_BYTES; a += 7) {
        const range *r = &ranges[a / SLOT_BYTES];
        bool inside = r->in && a - r->node.base < r->node.size;
        ck_assert_ptr_eq(range_tree_find(&tree, a), inside ? &r->node : NULL);
    }
}

START_TEST(random_changes_keep_the_rules)
{
    srand(12345);
    for (int step = 0; step < 20000; step++) {
        range *r = &ranges[rand() % SLOTS];
        uintptr_t slot = (uintptr_t)(r - ranges) * SLOT_BYTES;
        if (r->in) {
            range_tree_remove(&tree, &r->node);
            r->in = false;
        } else {
            /* Somewhere in its slot, of 1 to 32 bytes: never past it. */
            size_t offset = (size_t)(rand() % 32);
            r->node.base = slot + offset;
            r->node.size = 1 + (size_t)(rand() % 32);
            ck_assert_ptr_null(range_tree_insert(&tree, &r->node));
            r->in = true;
            /* A range overlapping only its last byte, or only its first,
             * is refused, naming it. */
            uintptr_t last = r->node.base + r->node.size - 1;
            range other = {.node = {.base = last, .size = slot + SLOT_BYTES - last}};
            ck_assert_ptr_eq(range_tree_insert(&tree, &other.node), &r->node);
            if (offset > 0) {
                other.node.base = slot;
                other.node.size = offset + 1;
                ck_assert_ptr_eq(range_tree_insert(&tree, &other.node), &r->node);
            }
        }
        if (step % 64 == 0 || step > 19900)
            check_tree();
    }
    for (int i = 0; i < SLOTS; i++)
        if (ranges[i].in)
            range_tree_remove(&tree, &ranges[i].node);
    ck_assert_ptr_null(tree.root);
}
END_TEST

/* Ascending and descending runs, the orders that unbalance a plain tree. */
START_TEST(sorted_runs_stay_balanced)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < SLOTS; i++) {
            range *r = &ranges[pass ? SLOTS - 1 - i : i];
            r->node.base = (uintptr_t)(r - ranges) * SLOT_BYTES;
            r->node.size = SLOT_BYTES;
            ck_assert_ptr_null(range_tree_insert(&tree, &r->node));
            r->in = true;
        }
        check_tree();
        /* 2 log2(n + 1) bounds a red-black tree's height. */
        int depth = 0;
        for (const range_node *n = tree.root; n != NULL; n = n->child[1])
            depth++;
        ck_assert_int_le(depth, 2 * 10);
        for (int i = 0; i < SLOTS; i++) {
            range *r = &ranges[pass ? i : SLOTS - 1 - i];
            range_tree_remove(&tree, &r->node);
            r->in = false;
            if (i % 97 == 0)
                check_tree();
        }
        ck_assert_ptr_null(tree.root);
    }
}
END_TEST

/* A range ending at the top of the address space. */
START_TEST(top_of_the_address_space)
{
    range top = {.node = {.base = UINTPTR_MAX - 15, .size = 16}};
    ck_assert_ptr_null(range_tree_insert(&tree, &top.node));
    ck_assert_ptr_eq(range_tree_find(&tree, UINTPTR_MAX), &top.node);
    ck_assert_ptr_null(range_tree_find(&tree, UINTPTR_MAX - 16));
    ck_assert_ptr_null(range_tree_overlap(&tree, UINTPTR_MAX - 20, 5));
    ck_assert_ptr_eq(range_tree_overlap(&tree, UINTPTR_MAX - 20, 6), &top.node);
    range_tree_remove(&tree, &top.node);
    ck_assert_ptr_null(tree.root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rangetree");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, random_changes_keep_the_rules);
    tcase_add_test(tc, sorted_runs_stay_balanced);
    tcase_add_test(tc, top_of_the_address_space);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
