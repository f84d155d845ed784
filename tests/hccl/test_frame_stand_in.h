/* TEST-ONLY: see test_frame_stand_in.c. */
#ifndef TEST_FRAME_STAND_IN_H
#define TEST_FRAME_STAND_IN_H

/* The message of the last hccl_set_error on this thread. */
const char *test_last_error(void);

#endif
