/* Built models with stream control flow: streams bound with
 * ACL_MODEL_STREAM_FLAG_DEFAULT started by aclrtActiveStream, switches to
 * another stream (aclrtSwitchStream), labels with jumps forward (into
 * other branches too) and back (loops of both layouts), streams started
 * inside branches and loops, event waits between such streams and across
 * branches, what cannot be put together as a graph (refused when the
 * build ends, naming the label and the task), the control tasks' rules,
 * and aclmdlRIUnbindStream while a model is built. Each model runs with
 * its results checked, more than once where a run could leave state. The
 * host backend runs a graph's nodes in the order they were added, which
 * follows their dependencies: the dependencies themselves reach a GPU. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "kerneltest.h"

static void set_up(void)
{
    ACL_OK(aclInit(NULL));
    acltest_set_device();
}

static void tear_down(void)
{
    acltest_reset_device();
    ACL_OK(aclFinalize());
}

static aclrtStream persistent(void)
{
    aclrtStream s = NULL;
    ACL_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    return s;
}

/* The test kernels a model here runs, and 16 zeroed words of device memory. */
typedef struct fixture {
    aclrtBinHandle bin;
    aclrtFuncHandle add, increment;
    int32_t *w;
    aclrtStream exec;
} fixture;

static void fixture_open(fixture *f)
{
    f->bin = kt_load();
    f->add = kt_function(f->bin, "add_scalar");
    f->increment = kt_function(f->bin, "increment");
    f->w = kt_device(16 * sizeof *f->w);
    ACL_OK(aclrtMemset(f->w, 16 * sizeof *f->w, 0, 16 * sizeof *f->w));
    f->exec = acltest_new_stream();
}

static void fixture_close(fixture *f)
{
    ACL_OK(aclrtDestroyStream(f->exec));
    ACL_OK(aclrtFree(f->w));
    ACL_OK(aclrtBinaryUnLoad(f->bin));
}

/* *p += value, on s. */
static void add(const fixture *f, int32_t *p, int32_t value, aclrtStream s)
{
    uint32_t n = 1;
    void *args[] = {&p, &value, &n};
    ACL_OK(aclrtLaunchKernelWithArgsArray(f->add, 1, s, NULL, args));
}

static void increment(const fixture *f, int32_t *p, aclrtStream s)
{
    void *args[] = {&p};
    ACL_OK(aclrtLaunchKernelWithArgsArray(f->increment, 1, s, NULL, args));
}

static int32_t word(const fixture *f, int i)
{
    int32_t v;
    kt_read_i32(f->w + i, &v, 1);
    return v;
}

static void set_word(const fixture *f, int i, int32_t v)
{
    ACL_OK(aclrtMemcpy(f->w + i, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void run(const fixture *f, aclmdlRI model)
{
    ACL_OK(aclmdlRIExecuteAsync(model, f->exec));
    ACL_OK(aclrtSynchronizeStream(f->exec));
}

static aclrtLabel new_label(void)
{
    aclrtLabel l = NULL;
    ACL_OK(aclrtCreateLabel(&l));
    return l;
}

static aclrtLabelList new_list(aclrtLabel *labels, size_t n)
{
    aclrtLabelList list = NULL;
    ACL_OK(aclrtCreateLabelList(labels, n, &list));
    return list;
}

/* Whether the last error message holds `what`. */
static void assert_message(const char *what)
{
    const char *msg = aclGetRecentErrMsg();
    ck_assert_msg(msg && strstr(msg, what), "expected \"%s\" in the message: %s", what,
                  msg ? msg : "(none)");
}

/* ---- streams started by others ------------------------------------------------------- */

/* w: 0 x, 1 copy of x taken by the started stream, 2 head's later work, 3
 * started stream's own work, 4 a stream nothing starts. */
START_TEST(default_stream_starts_where_it_is_started)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent(), idle = persistent();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclmdlRIBindStream(model, idle, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtActiveStream(d, h));
    add(&f, f.w + 2, 5, h);
    ACL_OK(aclrtMemcpyAsync(f.w + 1, 4, f.w, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, d));
    add(&f, f.w + 3, 7, d);
    add(&f, f.w + 4, 100, idle);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ck_assert_int_eq(word(&f, 0), 0); /* built, not run */
    for (int r = 1; r <= 2; r++) {
        run(&f, model);
        ck_assert_int_eq(word(&f, 0), r);
        ck_assert_int_eq(word(&f, 1), r); /* after the head's work before the start */
        ck_assert_int_eq(word(&f, 2), 5 * r);
        ck_assert_int_eq(word(&f, 3), 7 * r);
        ck_assert_int_eq(word(&f, 4), 0);
    }
    ACL_OK(aclmdlRIExecute(model, -1)); /* on its first bound stream */
    ck_assert_int_eq(word(&f, 1), 3);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    ACL_OK(aclrtDestroyStream(idle));
    fixture_close(&f);
}
END_TEST

/* A stream started from two places of the run starts once, after both. */
START_TEST(stream_started_twice_runs_once_after_both)
{
    fixture f;
    fixture_open(&f);
    aclrtStream a = persistent(), b = persistent(), joint = persistent();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, a, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, b, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, joint, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, a);
    ACL_OK(aclrtActiveStream(joint, a));
    add(&f, f.w + 1, 2, b);
    ACL_OK(aclrtActiveStream(joint, b));
    /* w[2] = w[0] + w[1] when it runs: after both. */
    ACL_OK(aclrtMemcpyAsync(f.w + 2, 4, f.w, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, joint));
    ACL_OK(aclrtMemcpyAsync(f.w + 3, 4, f.w + 1, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, joint));
    increment(&f, f.w + 4, joint);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    run(&f, model);
    ck_assert_int_eq(word(&f, 2), 1);
    ck_assert_int_eq(word(&f, 3), 2);
    ck_assert_int_eq(word(&f, 4), 1);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(a));
    ACL_OK(aclrtDestroyStream(b));
    ACL_OK(aclrtDestroyStream(joint));
    fixture_close(&f);
}
END_TEST

/* A wait for an event that a started stream records. */
START_TEST(event_wait_between_started_streams)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent();
    aclrtEvent done;
    ACL_OK(aclrtCreateEvent(&done));
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, d);
    ACL_OK(aclrtRecordEvent(done, d));
    ACL_OK(aclrtActiveStream(d, h));
    ACL_OK(aclrtStreamWaitEvent(h, done));
    ACL_OK(aclrtMemcpyAsync(f.w + 1, 4, f.w, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, h));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    for (int r = 1; r <= 2; r++) {
        run(&f, model);
        ck_assert_int_eq(word(&f, 1), r);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    fixture_close(&f);
}
END_TEST

/* An event recorded inside a branch (the stream a switch takes) and waited
 * for outside it: the wait follows the whole branch, taken or not. */
START_TEST(wait_outside_a_branch_for_a_record_in_it)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), g = persistent(), t = persistent();
    aclrtEvent done;
    ACL_OK(aclrtCreateEvent(&done));
    set_word(&f, 6, 1);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, g, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, t);
    ACL_OK(aclrtRecordEvent(done, t));
    ACL_OK(aclrtSwitchStream(f.w + 5, ACL_RT_EQUAL, f.w + 6, ACL_RT_SWITCH_INT32, t, NULL, h));
    ACL_OK(aclrtStreamWaitEvent(g, done));
    ACL_OK(aclrtMemcpyAsync(f.w + 1, 4, f.w, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, g));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 5, 1);
    run(&f, model);
    ck_assert_int_eq(word(&f, 1), 1);
    set_word(&f, 5, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 1), 1); /* not taken: x stays, the wait does not hang */
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(g));
    ACL_OK(aclrtDestroyStream(t));
    fixture_close(&f);
}
END_TEST

/* An event recorded outside a branch and waited for inside it: the
 * branch follows the record. */
START_TEST(wait_inside_a_branch_for_a_record_outside)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), g = persistent(), t = persistent();
    aclrtEvent done;
    ACL_OK(aclrtCreateEvent(&done));
    set_word(&f, 5, 1);
    set_word(&f, 6, 1);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, g, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtRecordEvent(done, h));
    ACL_OK(aclrtSwitchStream(f.w + 5, ACL_RT_EQUAL, f.w + 6, ACL_RT_SWITCH_INT32, t, NULL, g));
    ACL_OK(aclrtStreamWaitEvent(t, done));
    ACL_OK(aclrtMemcpyAsync(f.w + 1, 4, f.w, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, t));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    for (int r = 1; r <= 2; r++) {
        run(&f, model);
        ck_assert_int_eq(word(&f, 1), r);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyEvent(done));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(g));
    ACL_OK(aclrtDestroyStream(t));
    fixture_close(&f);
}
END_TEST

/* ---- switches to another stream ----------------------------------------------------- */

/* w[5] is the left value; true: the target runs (w[1] += 1), the rest of
 * the head does not (w[0] += 10); false: the other way round. */
START_TEST(switch_stream_runs_the_target_or_the_rest)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), t = persistent();
    int32_t *one = f.w + 6;
    set_word(&f, 6, 1);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtSwitchStream(f.w + 5, ACL_RT_EQUAL, one, ACL_RT_SWITCH_INT32, t, NULL, h));
    add(&f, f.w, 10, h);
    add(&f, f.w + 1, 1, t);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 5, 1);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1);
    ck_assert_int_eq(word(&f, 1), 1);
    set_word(&f, 5, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 12);
    ck_assert_int_eq(word(&f, 1), 1);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(t));
    fixture_close(&f);
}
END_TEST

/* Every comparison, on 32- and 64-bit values (the 64-bit ones differ only
 * above bit 31). */
START_TEST(switch_stream_compares)
{
    static const aclrtCondition conds[] = {ACL_RT_EQUAL,   ACL_RT_NOT_EQUAL,
                                           ACL_RT_GREATER, ACL_RT_GREATER_OR_EQUAL,
                                           ACL_RT_LESS,    ACL_RT_LESS_OR_EQUAL};
    fixture f;
    fixture_open(&f);
    int64_t *v = kt_device(2 * sizeof *v);
    for (int wide = 0; wide < 2; wide++)
        for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
            aclrtStream h = persistent(), t = persistent();
            aclmdlRI model = NULL;
            ACL_OK(aclmdlRIBuildBegin(&model, 0));
            ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
            ACL_OK(aclmdlRIBindStream(model, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
            ACL_OK(aclrtSwitchStream(v, conds[c], v + 1,
                                     wide ? ACL_RT_SWITCH_INT64 : ACL_RT_SWITCH_INT32, t, NULL, h));
            increment(&f, f.w + 1, t);
            ACL_OK(aclmdlRIBuildEnd(model, NULL));
            /* left - right: -1, 0, 1 */
            for (int diff = -1; diff <= 1; diff++) {
                int64_t base = wide ? (int64_t)5 << 33 : 5;
                int64_t host[2] = {base + diff, base};
                if (!wide) {
                    int32_t narrow[2] = {(int32_t)host[0], (int32_t)host[1]};
                    ACL_OK(aclrtMemcpy(v, 4, &narrow[0], 4, ACL_MEMCPY_HOST_TO_DEVICE));
                    ACL_OK(aclrtMemcpy(v + 1, 4, &narrow[1], 4, ACL_MEMCPY_HOST_TO_DEVICE));
                } else {
                    ACL_OK(
                        aclrtMemcpy(v, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE));
                }
                set_word(&f, 1, 0);
                run(&f, model);
                bool want = conds[c] == ACL_RT_EQUAL              ? diff == 0
                            : conds[c] == ACL_RT_NOT_EQUAL        ? diff != 0
                            : conds[c] == ACL_RT_GREATER          ? diff > 0
                            : conds[c] == ACL_RT_GREATER_OR_EQUAL ? diff >= 0
                            : conds[c] == ACL_RT_LESS             ? diff < 0
                                                                  : diff <= 0;
                ck_assert_msg(word(&f, 1) == (want ? 1 : 0),
                              "condition %d, %s, left - right = %d: the target %s", (int)conds[c],
                              wide ? "int64" : "int32", diff, want ? "did not run" : "ran");
            }
            ACL_OK(aclmdlRIDestroy(model));
            ACL_OK(aclrtDestroyStream(h));
            ACL_OK(aclrtDestroyStream(t));
        }
    ACL_OK(aclrtFree(v));
    fixture_close(&f);
}
END_TEST

/* ---- labels -------------------------------------------------------------------------- */

/* Labels and label lists are the build's: a model destroyed after them, or
 * run after they are gone, still takes the branch its index picks. */
START_TEST(labels_destroyed_after_the_build_leave_the_model_whole)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent();
    aclrtLabel l[2] = {new_label(), new_label()}, end = new_label();
    aclrtLabelList branches = new_list(l, 2), to_end = new_list(&end, 1);
    uint32_t *index = (uint32_t *)(f.w + 8);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtSwitchLabelByIndex(index, 2, branches, h));
    ACL_OK(aclrtSetLabel(l[0], h));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtSwitchLabelByIndex(index, 1, to_end, h));
    ACL_OK(aclrtSetLabel(l[1], h));
    add(&f, f.w, 10, h);
    ACL_OK(aclrtSetLabel(end, h));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ACL_OK(aclrtDestroyLabelList(branches));
    ACL_OK(aclrtDestroyLabelList(to_end));
    ACL_OK(aclrtDestroyLabel(l[0]));
    ACL_OK(aclrtDestroyLabel(l[1]));
    ACL_OK(aclrtDestroyLabel(end));
    static const int32_t picks[][2] = {{0, 1}, {1, 10}};
    for (int i = 0; i < 2; i++) {
        set_word(&f, 8, picks[i][0]);
        set_word(&f, 0, 0);
        run(&f, model);
        ck_assert_msg(word(&f, 0) == picks[i][1], "index %d gave %d", picks[i][0], word(&f, 0));
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(h));
    fixture_close(&f);
}
END_TEST

/* A jump to one of three branches, each jumping on to a common end; an
 * index past the list selects its last label. */
START_TEST(label_switch_runs_one_branch)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent();
    aclrtLabel l[3] = {new_label(), new_label(), new_label()}, end = new_label();
    aclrtLabelList branches = new_list(l, 3), to_end = new_list(&end, 1);
    uint32_t *index = (uint32_t *)(f.w + 8);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtSwitchLabelByIndex(index, 3, branches, h));
    static const int32_t adds[3] = {1, 10, 100};
    for (int i = 0; i < 3; i++) {
        ACL_OK(aclrtSetLabel(l[i], h));
        add(&f, f.w, adds[i], h);
        if (i < 2)
            ACL_OK(aclrtSwitchLabelByIndex(index, 1, to_end, h));
    }
    ACL_OK(aclrtSetLabel(end, h));
    increment(&f, f.w + 1, h);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    static const int32_t picks[][2] = {{0, 1}, {1, 10}, {2, 100}, {9, 100}};
    for (int i = 0; i < 4; i++) {
        set_word(&f, 8, picks[i][0]);
        set_word(&f, 0, 0);
        run(&f, model);
        ck_assert_msg(word(&f, 0) == picks[i][1], "index %d gave %d", picks[i][0], word(&f, 0));
        ck_assert_int_eq(word(&f, 1), i + 1);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(branches));
    ACL_OK(aclrtDestroyLabelList(to_end));
    for (int i = 0; i < 3; i++)
        ACL_OK(aclrtDestroyLabel(l[i]));
    ACL_OK(aclrtDestroyLabel(end));
    ACL_OK(aclrtDestroyStream(h));
    fixture_close(&f);
}
END_TEST

/* A branch with no jump at its end runs on into the next (CANN's label
 * sample: the labels follow the jump). */
START_TEST(label_switch_falls_through)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent();
    aclrtLabel l[2] = {new_label(), new_label()};
    aclrtLabelList list = new_list(l, 2);
    uint32_t *index = (uint32_t *)(f.w + 8);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    add(&f, f.w, 1000, h);
    ACL_OK(aclrtSwitchLabelByIndex(index, 2, list, h));
    add(&f, f.w, 5000, h); /* between the jump and its labels: never runs */
    ACL_OK(aclrtSetLabel(l[0], h));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtSetLabel(l[1], h));
    add(&f, f.w, 10, h);
    ACL_OK(aclmdlRIEndTask(model, h));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 8, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1011);
    set_word(&f, 8, 1);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 2021);
    ACL_OK(aclmdlRIUnbindStream(model, h));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabel(l[0]));
    ACL_OK(aclrtDestroyLabel(l[1]));
    ACL_OK(aclrtDestroyStream(h));
    fixture_close(&f);
}
END_TEST

/* A branch that jumps into the middle of the next one goes on from there:
 * [A, B]; A: +1, jump to M; B: +10; M: +100; then +1000 after both. */
START_TEST(label_jump_into_another_branch)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent();
    aclrtLabel a = new_label(), b = new_label(), m = new_label();
    aclrtLabel ab[2] = {a, b};
    aclrtLabelList branches = new_list(ab, 2), to_m = new_list(&m, 1);
    uint32_t *index = (uint32_t *)(f.w + 8);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtSwitchLabelByIndex(index, 2, branches, h));
    ACL_OK(aclrtSetLabel(a, h));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtSwitchLabelByIndex(index, 1, to_m, h));
    ACL_OK(aclrtSetLabel(b, h));
    add(&f, f.w, 10, h);
    ACL_OK(aclrtSetLabel(m, h));
    add(&f, f.w, 100, h);
    add(&f, f.w, 1000, h);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 8, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1101);
    set_word(&f, 0, 0);
    set_word(&f, 8, 1);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1110);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(branches));
    ACL_OK(aclrtDestroyLabelList(to_m));
    ACL_OK(aclrtDestroyLabel(a));
    ACL_OK(aclrtDestroyLabel(b));
    ACL_OK(aclrtDestroyLabel(m));
    ACL_OK(aclrtDestroyStream(h));
    fixture_close(&f);
}
END_TEST

/* A stream started in a branch of labels runs when that branch does. */
START_TEST(stream_started_in_a_branch_runs_with_it)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent();
    aclrtLabel l[2] = {new_label(), new_label()}, end = new_label();
    aclrtLabelList list = new_list(l, 2), to_end = new_list(&end, 1);
    uint32_t *index = (uint32_t *)(f.w + 8);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    increment(&f, f.w + 1, d);
    ACL_OK(aclrtSwitchLabelByIndex(index, 2, list, h));
    ACL_OK(aclrtSetLabel(l[0], h));
    ACL_OK(aclrtActiveStream(d, h));
    ACL_OK(aclrtSwitchLabelByIndex(index, 1, to_end, h));
    ACL_OK(aclrtSetLabel(l[1], h));
    increment(&f, f.w, h);
    ACL_OK(aclrtSetLabel(end, h));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 8, 1);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1);
    ck_assert_int_eq(word(&f, 1), 0);
    set_word(&f, 8, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 1);
    ck_assert_int_eq(word(&f, 1), 1);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabelList(to_end));
    ACL_OK(aclrtDestroyLabel(l[0]));
    ACL_OK(aclrtDestroyLabel(l[1]));
    ACL_OK(aclrtDestroyLabel(end));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    fixture_close(&f);
}
END_TEST

/* A loop whose jump back decides: rounds while the count left (w[9]) is
 * not 0 (index 0: out, else back), w[10] the count a run starts from. */
/* A loop decided at its end (the layout of a do-while loop): w[0] counts
 * its rounds, w[10] says how many, w[9] counts down, w[1] counts the runs
 * that left it. */
typedef struct counted_loop {
    aclrtStream h;
    aclrtLabel head, out;
    aclrtLabelList list;
} counted_loop;

static aclmdlRI counted_loop_build(const fixture *f, counted_loop *loop)
{
    loop->h = persistent();
    loop->head = new_label();
    loop->out = new_label();
    aclrtLabel ways[2] = {loop->out, loop->head};
    loop->list = new_list(ways, 2);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, loop->h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtMemcpyAsync(f->w + 9, 4, f->w + 10, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, loop->h));
    ACL_OK(aclrtSetLabel(loop->head, loop->h));
    increment(f, f->w, loop->h);
    add(f, f->w + 9, -1, loop->h);
    ACL_OK(aclrtSwitchLabelByIndex(f->w + 9, 2, loop->list, loop->h));
    ACL_OK(aclrtSetLabel(loop->out, loop->h));
    increment(f, f->w + 1, loop->h);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    return model;
}

static void counted_loop_destroy(counted_loop *loop, aclmdlRI model)
{
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(loop->list));
    ACL_OK(aclrtDestroyLabel(loop->head));
    ACL_OK(aclrtDestroyLabel(loop->out));
    ACL_OK(aclrtDestroyStream(loop->h));
}

START_TEST(label_loop_decided_at_its_end)
{
    fixture f;
    fixture_open(&f);
    counted_loop loop;
    aclmdlRI model = counted_loop_build(&f, &loop);
    static const int32_t counts[] = {3, 1, 5};
    int32_t total = 0;
    for (int i = 0; i < 3; i++) {
        set_word(&f, 10, counts[i]);
        run(&f, model);
        total += counts[i];
        ck_assert_msg(word(&f, 0) == total, "%d rounds: %d in all, expected %d", counts[i],
                      word(&f, 0), total);
        ck_assert_int_eq(word(&f, 1), i + 1);
    }
    counted_loop_destroy(&loop, model);
    fixture_close(&f);
}
END_TEST

static void set_flag(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/* A built model's loop that would run for ever (its count is 2^31 - 1) is
 * ended by the teardown of the context whose stream runs it, and the
 * stream goes on; the model's next run, on another stream, loops its full
 * count. */
START_TEST(teardown_ends_a_loop_and_later_runs_loop_again)
{
    fixture f;
    fixture_open(&f);
    counted_loop loop;
    aclmdlRI model = counted_loop_build(&f, &loop);

    aclrtContext main_ctx, ctx;
    ACL_OK(aclrtGetCurrentContext(&main_ctx));
    set_word(&f, 10, INT32_MAX);
    ACL_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream doomed;
    ACL_OK(aclrtCreateStream(&doomed));
    atomic_int ran = 0;
    ACL_OK(aclmdlRIExecuteAsync(model, doomed));
    ACL_OK(aclrtLaunchHostFunc(doomed, set_flag, &ran));
    nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
    ck_assert_int_eq(atomic_load(&ran), 0);
    ACL_OK(aclrtDestroyStreamForce(doomed));
    ACL_OK(aclrtDestroyContext(ctx));
    ck_assert_int_eq(atomic_load(&ran), 1);
    ACL_OK(aclrtSetCurrentContext(main_ctx));

    int32_t rounds = word(&f, 0), ends = word(&f, 1);
    set_word(&f, 10, 3);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), rounds + 3);
    ck_assert_int_eq(word(&f, 1), ends + 1);
    counted_loop_destroy(&loop, model);
    fixture_close(&f);
}
END_TEST

/* A loop tested at its top (the layout of a while loop): its jump back is
 * unconditional; the test goes on into the body or out. Zero rounds too. */
START_TEST(label_loop_tested_at_its_top)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent();
    aclrtLabel test = new_label(), body = new_label(), out = new_label();
    aclrtLabel ways[2] = {out, body};
    aclrtLabelList choice = new_list(ways, 2), back = new_list(&test, 1);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclrtMemcpyAsync(f.w + 9, 4, f.w + 10, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, h));
    ACL_OK(aclrtSetLabel(test, h));
    increment(&f, f.w + 2, h); /* every test */
    ACL_OK(aclrtSwitchLabelByIndex(f.w + 9, 2, choice, h));
    ACL_OK(aclrtSetLabel(body, h));
    increment(&f, f.w, h);
    add(&f, f.w + 9, -1, h);
    ACL_OK(aclrtSwitchLabelByIndex(f.w + 9, 1, back, h));
    ACL_OK(aclrtSetLabel(out, h));
    increment(&f, f.w + 1, h);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    static const int32_t counts[] = {3, 0, 2};
    int32_t rounds = 0, tests = 0;
    for (int i = 0; i < 3; i++) {
        set_word(&f, 10, counts[i]);
        run(&f, model);
        rounds += counts[i];
        tests += counts[i] + 1;
        ck_assert_msg(word(&f, 0) == rounds, "%d rounds: %d in all, expected %d", counts[i],
                      word(&f, 0), rounds);
        ck_assert_int_eq(word(&f, 2), tests);
        ck_assert_int_eq(word(&f, 1), i + 1);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(choice));
    ACL_OK(aclrtDestroyLabelList(back));
    ACL_OK(aclrtDestroyLabel(test));
    ACL_OK(aclrtDestroyLabel(body));
    ACL_OK(aclrtDestroyLabel(out));
    ACL_OK(aclrtDestroyStream(h));
    fixture_close(&f);
}
END_TEST

/* A stream started inside a loop runs in each round. */
START_TEST(stream_started_in_a_loop_runs_each_round)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent();
    aclrtLabel head = new_label(), out = new_label();
    aclrtLabel ways[2] = {out, head};
    aclrtLabelList list = new_list(ways, 2);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    increment(&f, f.w + 1, d);
    set_word(&f, 9, 4);
    ACL_OK(aclrtSetLabel(head, h));
    ACL_OK(aclrtActiveStream(d, h));
    add(&f, f.w + 9, -1, h);
    ACL_OK(aclrtSwitchLabelByIndex(f.w + 9, 2, list, h));
    ACL_OK(aclrtSetLabel(out, h));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    run(&f, model);
    ck_assert_int_eq(word(&f, 1), 4);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabel(head));
    ACL_OK(aclrtDestroyLabel(out));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    fixture_close(&f);
}
END_TEST

/* A loop of labels in a stream that a switch takes: branches nest. */
START_TEST(loop_inside_a_switched_to_stream)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), t = persistent();
    aclrtLabel head = new_label(), out = new_label();
    aclrtLabel ways[2] = {out, head};
    aclrtLabelList list = new_list(ways, 2);
    set_word(&f, 6, 1);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, t, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclrtSwitchStream(f.w + 5, ACL_RT_EQUAL, f.w + 6, ACL_RT_SWITCH_INT32, t, NULL, h));
    increment(&f, f.w + 2, h); /* the rest: not taken */
    ACL_OK(aclrtMemcpyAsync(f.w + 9, 4, f.w + 10, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, t));
    ACL_OK(aclrtSetLabel(head, t));
    increment(&f, f.w, t);
    add(&f, f.w + 9, -1, t);
    ACL_OK(aclrtSwitchLabelByIndex(f.w + 9, 2, list, t));
    ACL_OK(aclrtSetLabel(out, t));
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    set_word(&f, 5, 1);
    set_word(&f, 10, 3);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 3);
    ck_assert_int_eq(word(&f, 2), 0);
    set_word(&f, 5, 0);
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 3);
    ck_assert_int_eq(word(&f, 2), 1);
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabel(head));
    ACL_OK(aclrtDestroyLabel(out));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(t));
    fixture_close(&f);
}
END_TEST

/* ---- what a graph cannot hold ---------------------------------------------------------- */

/* Builds a model of three streams (a head stream a, b bound with b_flag,
 * c bound with ACL_MODEL_STREAM_FLAG_DEFAULT) with `shape`, and checks that
 * its end is refused with code and a message holding `what` (and the
 * label's handle when the shape names one); the model cannot run after. */
typedef struct shape_args {
    const fixture *f;
    aclrtStream a, b, c;
    aclrtLabel l[3];
    aclrtLabelList lists[3]; /* [l0], [l0 l1], [l1 l2] */
    aclrtLabel named;        /* the label the message names, if any */
} shape_args;

typedef void (*shape_fn)(shape_args *x);

static void expect_refused(shape_fn shape, uint32_t b_flag, aclError code, const char *what)
{
    fixture f;
    fixture_open(&f);
    shape_args x = {.f = &f, .a = persistent(), .b = persistent(), .c = persistent()};
    for (int i = 0; i < 3; i++)
        x.l[i] = new_label();
    x.lists[0] = new_list(x.l, 1);
    x.lists[1] = new_list(x.l, 2);
    x.lists[2] = new_list(x.l + 1, 2);
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, x.a, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, x.b, b_flag));
    ACL_OK(aclmdlRIBindStream(model, x.c, ACL_MODEL_STREAM_FLAG_DEFAULT));
    shape(&x);
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclmdlRIBuildEnd(model, NULL), code);
    const char *msg = aclGetRecentErrMsg();
    ck_assert_msg(msg && strstr(msg, what), "expected \"%s\" in the message: %s", what,
                  msg ? msg : "(none)");
    if (x.named) {
        char handle[32];
        snprintf(handle, sizeof handle, "%p", x.named);
        ck_assert_msg(strstr(msg, handle), "the message does not name label %s: %s", handle, msg);
    }
    ck_assert_msg(strstr(msg, "task"), "the message names no task: %s", msg);
    ACL_FAILS_WITH(aclmdlRIExecuteAsync(model, f.exec), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclmdlRIDestroy(model));
    for (int i = 0; i < 3; i++) {
        ACL_OK(aclrtDestroyLabelList(x.lists[i]));
        ACL_OK(aclrtDestroyLabel(x.l[i]));
    }
    ACL_OK(aclrtDestroyStream(x.a));
    ACL_OK(aclrtDestroyStream(x.b));
    ACL_OK(aclrtDestroyStream(x.c));
    fixture_close(&f);
}

static void jump_to_another_stream(shape_args *x)
{
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a));
    ACL_OK(aclrtSetLabel(x->l[0], x->b));
    x->named = x->l[0];
}

static void jump_to_a_label_not_set(shape_args *x)
{
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a));
    x->named = x->l[0];
}

static void two_jumps_back(shape_args *x)
{
    ACL_OK(aclrtSetLabel(x->l[0], x->a));
    add(x->f, x->f->w, 1, x->a);
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a));
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a));
    x->named = x->l[0];
}

static void jump_out_of_a_branch(shape_args *x)
{
    /* [l1 l2] branches; the l1 branch jumps back into the switch's past. */
    ACL_OK(aclrtSetLabel(x->l[0], x->a));
    add(x->f, x->f->w, 1, x->a);
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 2, x->lists[2], x->a));
    ACL_OK(aclrtSetLabel(x->l[1], x->a));
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a)); /* back to l0 */
    ACL_OK(aclrtSetLabel(x->l[2], x->a));
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 1, x->lists[0], x->a)); /* and again */
    x->named = x->l[0];
}

static void switch_stream_in_a_loop(shape_args *x)
{
    ACL_OK(aclrtSetLabel(x->l[1], x->a));
    ACL_OK(aclrtSwitchStream(x->f->w, ACL_RT_EQUAL, x->f->w + 1, ACL_RT_SWITCH_INT32, x->b, NULL,
                             x->a));
    ACL_OK(aclrtSwitchLabelByIndex(x->f->w, 2, x->lists[2], x->a)); /* l1: back, l2: out */
    ACL_OK(aclrtSetLabel(x->l[2], x->a));
}

static void streams_starting_each_other(shape_args *x)
{
    ACL_OK(aclrtActiveStream(x->b, x->a));
    ACL_OK(aclrtActiveStream(x->c, x->b));
    ACL_OK(aclrtActiveStream(x->b, x->c));
}

static void streams_switching_to_each_other(shape_args *x)
{
    ACL_OK(aclrtSwitchStream(x->f->w, ACL_RT_EQUAL, x->f->w + 1, ACL_RT_SWITCH_INT32, x->b, NULL,
                             x->a));
    ACL_OK(aclrtSwitchStream(x->f->w, ACL_RT_EQUAL, x->f->w + 1, ACL_RT_SWITCH_INT32, x->c, NULL,
                             x->b));
    ACL_OK(aclrtSwitchStream(x->f->w, ACL_RT_EQUAL, x->f->w + 1, ACL_RT_SWITCH_INT32, x->b, NULL,
                             x->c));
}

START_TEST(shapes_a_graph_cannot_hold_are_refused_at_the_end)
{
    const uint32_t def = ACL_MODEL_STREAM_FLAG_DEFAULT, head = ACL_MODEL_STREAM_FLAG_HEAD;
    expect_refused(jump_to_another_stream, head, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                   "jump between streams");
    expect_refused(jump_to_a_label_not_set, head, ACL_ERROR_INVALID_PARAM, "not set");
    expect_refused(two_jumps_back, head, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "two jumps back");
    expect_refused(jump_out_of_a_branch, head, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "jumps back");
    expect_refused(switch_stream_in_a_loop, def, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                   "stops the rest of its stream");
    expect_refused(streams_starting_each_other, def, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                   "wait for each other");
    expect_refused(streams_switching_to_each_other, def, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                   "again inside the work");
}
END_TEST

/* ---- the control tasks' rules ------------------------------------------------------------ */

START_TEST(control_tasks_need_streams_of_a_model_being_built)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent(), loose = persistent(), other = persistent();
    aclrtLabel l = new_label(), l2 = new_label();
    aclrtLabelList list = new_list(&l, 1);
    aclmdlRI model = NULL, second = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBuildBegin(&second, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclmdlRIBindStream(second, other, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_FAILS_WITH(aclmdlRIBindStream(model, loose, 0x1234), ACL_ERROR_INVALID_PARAM);
    /* Streams of no model, or of another one. */
    ACL_FAILS_WITH(aclrtActiveStream(d, loose), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtActiveStream(loose, h), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtActiveStream(other, h), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtSwitchStream(f.w, ACL_RT_EQUAL, f.w, ACL_RT_SWITCH_INT32, loose, NULL, h),
                   ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtSetLabel(l, loose), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtSwitchLabelByIndex(f.w, 1, list, loose), ACL_ERROR_RT_STREAM_MODEL);
    /* A head stream starts with every run: nothing starts it. */
    ACL_FAILS_WITH(aclrtActiveStream(h, d), ACL_ERROR_INVALID_PARAM);
    /* maxValue: 1 to the list's labels. */
    ACL_FAILS_WITH(aclrtSwitchLabelByIndex(f.w, 0, list, h), ACL_ERROR_INVALID_PARAM);
    ACL_FAILS_WITH(aclrtSwitchLabelByIndex(f.w, 2, list, h), ACL_ERROR_INVALID_PARAM);
    /* Control tasks are tasks of their stream. */
    uint32_t before = 0, after = 0;
    ACL_OK(aclrtActiveStream(d, h));
    ACL_OK(aclrtGetThreadLastTaskId(&before));
    ACL_OK(aclrtSwitchLabelByIndex(f.w, 1, list, h));
    ACL_OK(aclrtGetThreadLastTaskId(&after));
    ck_assert_uint_eq(after, before + 1);
    /* A label is set once. */
    ACL_OK(aclrtSetLabel(l, h));
    ACL_FAILS_WITH(aclrtSetLabel(l, h), ACL_ERROR_INVALID_PARAM);
    /* Closed streams take no more. */
    ACL_OK(aclmdlRIEndTask(model, h));
    ACL_FAILS_WITH(aclrtActiveStream(d, h), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclrtSetLabel(l2, h), ACL_ERROR_RT_STREAM_MODEL);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    ACL_FAILS_WITH(aclrtActiveStream(d, h), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    uint32_t n = 0;
    ACL_OK(aclmdlRIGetTasksByStream(h, NULL, &n));
    aclmdlRITask tasks[8];
    ck_assert_uint_eq(n, 3); /* the start, the jump, the label */
    ACL_OK(aclmdlRIGetTasksByStream(h, tasks, &n));
    for (uint32_t i = 0; i < n; i++) {
        aclmdlRITaskType type;
        ACL_OK(aclmdlRITaskGetType(tasks[i], &type));
        ck_assert_int_eq(type, ACL_MODEL_RI_TASK_DEFAULT);
    }
    /* A captured stream is bound to no model. */
    aclrtStream cap = acltest_new_stream();
    ACL_OK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    ACL_FAILS_WITH(aclrtSetLabel(l2, cap), ACL_ERROR_RT_STREAM_MODEL);
    aclmdlRI captured = NULL;
    ACL_OK(aclmdlRICaptureEnd(cap, &captured));
    ACL_OK(aclmdlRIDestroy(captured));
    ACL_OK(aclrtDestroyStream(cap));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclmdlRIDestroy(second));
    ACL_OK(aclrtDestroyLabelList(list));
    ACL_OK(aclrtDestroyLabel(l));
    ACL_OK(aclrtDestroyLabel(l2));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    ACL_OK(aclrtDestroyStream(loose));
    ACL_OK(aclrtDestroyStream(other));
    fixture_close(&f);
}
END_TEST

/* Labels belong to the context they were made in. */
START_TEST(labels_belong_to_their_context)
{
    aclrtContext first, second;
    ACL_OK(aclrtGetCurrentContext(&first));
    ACL_OK(aclrtCreateContext(&second, 0));
    aclrtLabel theirs = new_label();
    ACL_OK(aclrtSetCurrentContext(first));
    aclrtLabel mine = new_label();
    aclrtLabelList list = NULL;
    aclrtLabel both[2] = {mine, theirs};
    ACL_FAILS_WITH(aclrtCreateLabelList(both, 2, &list), ACL_ERROR_RT_LABEL_CONTEXT);
    aclrtStream h = persistent();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_FAILS_WITH(aclrtSetLabel(theirs, h), ACL_ERROR_RT_LABEL_CONTEXT);
    ACL_OK(aclrtSetLabel(mine, h));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyLabel(mine));
    ACL_OK(aclrtDestroyLabel(theirs));
    ACL_FAILS_WITH(aclrtDestroyLabel(mine), ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyContext(second));
}
END_TEST

/* Tasks recorded once a model has stream control flow run inside parts
 * of its graph: they cannot change; those recorded before can. */
START_TEST(tasks_before_the_control_flow_stay_updatable)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    add(&f, f.w, 1, h);
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    ACL_OK(aclrtActiveStream(d, h));
    add(&f, f.w + 1, 1, h);
    add(&f, f.w + 2, 1, d);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    aclmdlRITask tasks[4];
    uint32_t n = 4;
    ACL_OK(aclmdlRIGetTasksByStream(h, tasks, &n));
    ck_assert_uint_eq(n, 3);
    aclmdlRITaskParams p;
    memset(&p, 0, sizeof p);
    ACL_OK(aclmdlRITaskGetParams(tasks[0], &p));
    struct {
        int32_t *data;
        int32_t value;
        uint32_t n;
    } next = {f.w, 3, 1};
    p.kernelTaskParams.args = &next;
    p.kernelTaskParams.argsSize = sizeof next;
    p.kernelTaskParams.isHostArgs = 1;
    ACL_OK(aclmdlRITaskSetParams(tasks[0], &p));
    memset(&p, 0, sizeof p);
    ACL_OK(aclmdlRITaskGetParams(tasks[2], &p));
    (void)aclGetRecentErrMsg();
    ck_assert_int_eq(aclmdlRITaskSetParams(tasks[2], &p), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_message("stream control flow");
    ACL_FAILS_WITH(aclmdlRITaskDisable(tasks[2]), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_OK(aclmdlRIUpdate(model));
    run(&f, model);
    ck_assert_int_eq(word(&f, 0), 3);
    ck_assert_int_eq(word(&f, 1), 1);
    ck_assert_int_eq(word(&f, 2), 1);
    ACL_OK(aclmdlRIDebugJsonPrint(model, "/dev/null", ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    fixture_close(&f);
}
END_TEST

/* ---- unbinding while the model is built --------------------------------------------------- */

/* As CANN's: the stream leaves the model with what it recorded, the
 * first bound stream too, before or after the model took control flow. */
START_TEST(unbind_while_building_takes_the_stream_out)
{
    fixture f;
    fixture_open(&f);
    aclrtStream first = persistent(), second = persistent(), third = persistent(),
                started = persistent();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, first, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, second, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, third, ACL_MODEL_STREAM_FLAG_HEAD));
    add(&f, f.w, 1, first);
    add(&f, f.w + 1, 1, second);
    add(&f, f.w + 2, 1, third);
    ACL_OK(aclmdlRIUnbindStream(model, second));
    ACL_FAILS_WITH(aclmdlRIUnbindStream(model, second), ACL_ERROR_RT_STREAM_MODEL);
    /* A persistent stream bound to nothing takes no host work. */
    uint32_t one = 1;
    void *args[] = {&f.w, &one, &one};
    ACL_FAILS_WITH(aclrtLaunchKernelWithArgsArray(f.add, 1, second, NULL, args),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ACL_FAILS_WITH(aclmdlRIEndTask(model, second), ACL_ERROR_RT_STREAM_MODEL);
    ACL_FAILS_WITH(aclmdlRIBindStream(model, second, ACL_MODEL_STREAM_FLAG_HEAD),
                   ACL_ERROR_INVALID_PARAM);
    ACL_OK(aclrtDestroyStream(second));
    /* The first bound stream goes too, and a stream that was to start. */
    ACL_OK(aclmdlRIBindStream(model, started, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w + 3, 1, started);
    add(&f, f.w + 4, 1, third);
    ACL_OK(aclrtActiveStream(started, third));
    ACL_OK(aclmdlRIUnbindStream(model, first));
    ACL_OK(aclmdlRIUnbindStream(model, started));
    add(&f, f.w + 4, 1, third);
    ACL_OK(aclmdlRIBuildEnd(model, NULL));
    uint32_t n = 0;
    ACL_OK(aclmdlRIGetStreams(model, NULL, &n));
    ck_assert_uint_eq(n, 1);
    for (int r = 1; r <= 2; r++) {
        ACL_OK(aclmdlRIExecute(model, -1));
        ck_assert_int_eq(word(&f, 0), 0);
        ck_assert_int_eq(word(&f, 1), 0);
        ck_assert_int_eq(word(&f, 2), r);
        ck_assert_int_eq(word(&f, 3), 0);
        ck_assert_int_eq(word(&f, 4), 2 * r);
    }
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyStream(first));
    ACL_OK(aclrtDestroyStream(third));
    ACL_OK(aclrtDestroyStream(started));
    fixture_close(&f);
}
END_TEST

/* The cleanup of a build that failed half-way (CANN's samples unbind
 * their streams, then destroy the model). */
START_TEST(unbind_and_destroy_a_model_being_built)
{
    fixture f;
    fixture_open(&f);
    aclrtStream h = persistent(), d = persistent();
    aclrtLabel l = new_label();
    aclmdlRI model = NULL;
    ACL_OK(aclmdlRIBuildBegin(&model, 0));
    ACL_OK(aclmdlRIBindStream(model, h, ACL_MODEL_STREAM_FLAG_HEAD));
    ACL_OK(aclmdlRIBindStream(model, d, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(&f, f.w, 1, h);
    ACL_OK(aclrtSetLabel(l, d));
    ACL_OK(aclmdlRIUnbindStream(model, h));
    ACL_OK(aclmdlRIUnbindStream(model, d));
    ACL_OK(aclmdlRIDestroy(model));
    ACL_OK(aclrtDestroyLabel(l));
    ACL_OK(aclrtDestroyStream(h));
    ACL_OK(aclrtDestroyStream(d));
    fixture_close(&f);
}
END_TEST

typedef struct racing_bind {
    aclmdlRI model;
    aclrtStream s;
    aclrtContext ctx;
    pthread_barrier_t *start;
    aclError err;
} racing_bind;

static void *bind_stream(void *arg)
{
    racing_bind *b = arg;
    ACL_OK(aclrtSetCurrentContext(b->ctx));
    pthread_barrier_wait(b->start);
    b->err = aclmdlRIBindStream(b->model, b->s, ACL_MODEL_STREAM_FLAG_HEAD);
    return NULL;
}

/* Two threads bind the first streams of one model at once: both join one
 * build, and once it ends neither stream is left captured. */
START_TEST(first_streams_bound_on_two_threads)
{
    aclrtContext ctx;
    ACL_OK(aclrtGetCurrentContext(&ctx));
    for (int round = 0; round < 200; round++) {
        aclmdlRI model = NULL;
        ACL_OK(aclmdlRIBuildBegin(&model, 0));
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 2);
        racing_bind b[2];
        pthread_t t[2];
        for (int i = 0; i < 2; i++) {
            b[i] = (racing_bind){model, persistent(), ctx, &start, ACL_SUCCESS};
            ck_assert_int_eq(pthread_create(&t[i], NULL, bind_stream, &b[i]), 0);
        }
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&start);
        ck_assert_msg(b[0].err == ACL_SUCCESS && b[1].err == ACL_SUCCESS,
                      "round %d: the binds returned %d and %d", round, (int)b[0].err,
                      (int)b[1].err);
        ACL_OK(aclmdlRIBuildEnd(model, NULL));
        for (int i = 0; i < 2; i++) {
            aclmdlRICaptureStatus status;
            aclmdlRI of = NULL;
            ACL_OK(aclmdlRICaptureGetInfo(b[i].s, &status, &of));
            ck_assert_msg(status == ACL_MODEL_RI_CAPTURE_STATUS_NONE,
                          "round %d: stream %d is still captured", round, i);
        }
        ACL_OK(aclmdlRIDestroy(model));
        for (int i = 0; i < 2; i++)
            ACL_OK(aclrtDestroyStream(b[i].s));
    }
}
END_TEST

static Suite *model_flow_suite(void)
{
    Suite *s = suite_create("model_flow");
    TCase *streams = tcase_create("streams");
    tcase_add_checked_fixture(streams, set_up, tear_down);
    tcase_add_test(streams, default_stream_starts_where_it_is_started);
    tcase_add_test(streams, stream_started_twice_runs_once_after_both);
    tcase_add_test(streams, event_wait_between_started_streams);
    tcase_add_test(streams, wait_outside_a_branch_for_a_record_in_it);
    tcase_add_test(streams, wait_inside_a_branch_for_a_record_outside);
    tcase_add_test(streams, switch_stream_runs_the_target_or_the_rest);
    tcase_add_test(streams, switch_stream_compares);
    suite_add_tcase(s, streams);

    TCase *labels = tcase_create("labels");
    tcase_add_checked_fixture(labels, set_up, tear_down);
    tcase_add_test(labels, label_switch_runs_one_branch);
    tcase_add_test(labels, labels_destroyed_after_the_build_leave_the_model_whole);
    tcase_add_test(labels, label_switch_falls_through);
    tcase_add_test(labels, label_jump_into_another_branch);
    tcase_add_test(labels, stream_started_in_a_branch_runs_with_it);
    tcase_add_test(labels, label_loop_decided_at_its_end);
    tcase_add_test(labels, label_loop_tested_at_its_top);
    tcase_add_test(labels, teardown_ends_a_loop_and_later_runs_loop_again);
    tcase_add_test(labels, stream_started_in_a_loop_runs_each_round);
    tcase_add_test(labels, loop_inside_a_switched_to_stream);
    suite_add_tcase(s, labels);

    TCase *rules = tcase_create("rules");
    tcase_add_checked_fixture(rules, set_up, tear_down);
    tcase_add_test(rules, shapes_a_graph_cannot_hold_are_refused_at_the_end);
    tcase_add_test(rules, control_tasks_need_streams_of_a_model_being_built);
    tcase_add_test(rules, labels_belong_to_their_context);
    tcase_add_test(rules, tasks_before_the_control_flow_stay_updatable);
    tcase_add_test(rules, unbind_while_building_takes_the_stream_out);
    tcase_add_test(rules, unbind_and_destroy_a_model_being_built);
    tcase_add_test(rules, first_streams_bound_on_two_threads);
    suite_add_tcase(s, rules);
    return s;
}

int main(void)
{
    return acltest_run(model_flow_suite());
}
