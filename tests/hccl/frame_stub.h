/* The few frame functions engine.h declares, as a test-only stand-in until
 * libhccl's frame (errors.c) provides them; plus a reader of the last
 * message for the tests. */
#ifndef ACLCUDA_TESTS_HCCL_FRAME_STUB_H
#define ACLCUDA_TESTS_HCCL_FRAME_STUB_H

/* The message hccl_set_error last recorded on this thread ("" if none). */
const char *frame_stub_last_error(void);

#endif
