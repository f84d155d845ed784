/* acl-cuda's error table (src/core/error_table.def, the source of every code's
 * name and text) agrees with the public headers it was written from. The
 * header values themselves are pinned by the compatibility suite
 * (tests/compat/test_headers.c). */
#include "acltest.h"

/* One row per ACL_CODE line: the value written in the table and the value
 * the header gives the same name. */
typedef struct code_row {
    const char *name;
    long long table_value;
    long long header_value;
} code_row;

#define ACL_CODE(name, value, text) {#name, (long long)(value), (long long)(name)},
static const code_row code_rows[] = {
#include "core/error_table.def"
};
#undef ACL_CODE

#define CODE_COUNT (sizeof code_rows / sizeof code_rows[0])

START_TEST(error_table_matches_headers)
{
    for (size_t i = 0; i < CODE_COUNT; i++)
        ck_assert_msg(code_rows[i].table_value == code_rows[i].header_value,
                      "%s: table says %lld, header says %lld", code_rows[i].name,
                      code_rows[i].table_value, code_rows[i].header_value);
}
END_TEST

/* 71 ACL-layer, 145 runtime and 38 graph-engine codes. A code added to a
 * header must be added to the table too; this count is the reminder. */
START_TEST(error_table_is_complete_and_unique)
{
    ck_assert_uint_eq(CODE_COUNT, 71 + 145 + 38);
    for (size_t i = 0; i < CODE_COUNT; i++)
        for (size_t j = i + 1; j < CODE_COUNT; j++)
            ck_assert_msg(strcmp(code_rows[i].name, code_rows[j].name) != 0, "%s listed twice",
                          code_rows[i].name);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("error table");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, error_table_matches_headers);
    tcase_add_test(tc, error_table_is_complete_and_unique);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return acltest_run(suite());
}
