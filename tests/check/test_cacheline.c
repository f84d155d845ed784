/* util/cacheline: the allocator of streams and events, whose hot fields
 * are laid out for one cache line each. Every block starts on a line, is
 * zeroed over its whole size (under ASan, writable exactly that far), and
 * sizes that cannot be padded are refused. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/cacheline.h"

enum { LARGEST = 1024 };

START_TEST(blocks_start_on_a_line_and_are_zeroed)
{
    for (size_t size = 1; size <= LARGEST; size += size < 128 ? 1 : 37) {
        /* Leave dirty memory behind for the block to be carved from. */
        unsigned char *dirty = malloc(size + 2 * CACHELINE_BYTES);
        ck_assert_ptr_nonnull(dirty);
        memset(dirty, 0xa5, size + 2 * CACHELINE_BYTES);
        free(dirty);
        unsigned char *block = cacheline_zalloc(size);
        ck_assert_ptr_nonnull(block);
        ck_assert_uint_eq((uintptr_t)block % CACHELINE_BYTES, 0);
        for (size_t i = 0; i < size; i++)
            ck_assert_uint_eq(block[i], 0);
        memset(block, 0x5a, size);
        cacheline_free(block);
    }
}
END_TEST

START_TEST(many_live_blocks_do_not_overlap)
{
    enum { COUNT = 256, SIZE = 200 };
    unsigned char *blocks[COUNT];
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = cacheline_zalloc(SIZE);
        ck_assert_ptr_nonnull(blocks[i]);
        memset(blocks[i], i, SIZE);
    }
    for (int i = 0; i < COUNT; i++) {
        for (int j = 0; j < SIZE; j++)
            ck_assert_uint_eq(blocks[i][j], (unsigned char)i);
        cacheline_free(blocks[i]);
    }
}
END_TEST

START_TEST(sizes_that_cannot_be_padded_are_refused)
{
    ck_assert_ptr_null(cacheline_zalloc(SIZE_MAX));
    ck_assert_ptr_null(cacheline_zalloc(SIZE_MAX - CACHELINE_BYTES));
    cacheline_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cacheline");
    TCase *tc = tcase_create("blocks");
    tcase_add_test(tc, blocks_start_on_a_line_and_are_zeroed);
    tcase_add_test(tc, many_live_blocks_do_not_overlap);
    tcase_add_test(tc, sizes_that_cannot_be_padded_are_refused);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
