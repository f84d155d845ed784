/* Helpers of the profile suites (test_prof, test_prof_cuda): reading the
 * trace acl-cuda wrote. */
#ifndef PROFTEST_H
#define PROFTEST_H

#include <jansson.h>
#include <stdio.h>

#include "acltest.h"

/* The traceEvents array of DIR/timeline.json (the caller's reference). */
static inline json_t *events_of(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/timeline.json", dir);
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    ck_assert_msg(root != NULL, "%s: %s (line %d)", path, error.text, error.line);
    json_t *events = json_object_get(root, "traceEvents");
    ck_assert(json_is_array(events));
    json_incref(events);
    json_decref(root);
    return events;
}

#endif
