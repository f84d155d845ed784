/* Helpers of acl-cuda's own (internals) Check suites. They share the
 * compatibility suite's helpers (tests/compat/compat.h: public API only,
 * ACL_OK / ACL_FAILS_WITH, gates, fixtures) and may use acl-cuda's
 * extension header on top. Each test runs in its own forked process: main()
 * must not call ACL before srunner_run_all, so no backend (and no CUDA) is
 * initialised in the parent. */
#ifndef ACLTEST_H
#define ACLTEST_H

#include "compat.h"

#define acltest_run_thread compat_run_thread
#define acltest_new_stream compat_new_stream
#define acltest_set_device compat_set_device
#define acltest_reset_device compat_reset_device
#define acltest_gate compat_gate
#define acltest_gate_close compat_gate_close
#define acltest_gate_wait_reached compat_gate_wait_reached
#define acltest_gate_open compat_gate_open

/* Runs one suite, each test forked unless CK_FORK=no (for slow checkers), and turns the result into an exit code. */
static inline int acltest_run(Suite *suite)
{
    return compat_run(suite);
}

#endif
