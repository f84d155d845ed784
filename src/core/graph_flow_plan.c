/* Builds with stream control flow: the tree of what runs where, made from
 * the streams' items once the build's capture is over (graph_flow.h).
 *
 * A thread walks a range of its stream's items: control enters at its
 * start and leaves at its end. Pieces, starts of other streams and event
 * records and waits are steps of the thread. The rest makes conditional
 * steps whose bodies are scopes of their own:
 *   - aclrtSwitchStream: IF (the switched-to stream, from its start | the
 *     rest of the range). It stops the rest of its stream, so it is only
 *     taken where nothing of the stream follows the range;
 *   - a jump forward to several labels: SWITCH, one body per entry of the
 *     list, from its label to the join: the first place no jump of the
 *     bodies reaches past (what a body falls through into is its own,
 *     again); a jump to one label skips to it, a jump to the range's end
 *     leaves the range;
 *   - a label that a later jump of the range goes back to: the head of a
 *     loop, WHILE. Either its jump back is also its exit (the jump selects
 *     the head or one label past it), or it always goes back and one jump
 *     at the loop's top level leaves it (to one label past the loop) or
 *     goes on (to one label further in the loop): the rest of a round is
 *     then an IF on that choice. A selection before the node sets the
 *     word to 1 (the first round always runs), one at the end of a round
 *     sets it from the jump's index.
 * Everything else is refused, naming the label and the task. Branches
 * that fall through into each other are planned once per entry (copies
 * in the graph); a plan is limited in size for that. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/graph_flow.h"

enum {
    STEPS_MAX = 1 << 16, /* of a whole plan */
    DEPTH_MAX = 1024,    /* scopes inside scopes (each a few frames of the walk) */
    MASK_LABELS = 64,    /* labels of a loop's jump: one bit each */
    RANGE_TAIL = 1,      /* nothing of the stream follows the range */
    RANGE_LOOP = 2,      /* the range is (part of) a round of a loop */
};

typedef struct planner {
    const char *api;
    const model_flow *f;
    uint32_t model_id;
    flow_plan *plan;
    size_t nsteps;
    /* The streams whose start is being planned, outermost first: one that
     * would start again inside its own work makes no tree. */
    size_t *chain;
    size_t nchain, chain_cap;
    size_t depth; /* scopes being planned inside each other */
} planner;

/* Raises code, prefixed with what is refused. */
static aclError refuse(planner *p, aclError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static aclError refuse(planner *p, aclError code, const char *fmt, ...)
{
    char why[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return acl_raise(p->api, code, "model %u cannot be put together as a graph: %s",
                     (unsigned)p->model_id, why);
}

static aclError out_of_memory(planner *p)
{
    return acl_raise(p->api, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
}

static const flow_stream *stream_at(const planner *p, size_t k)
{
    return &p->f->streams[k];
}

/* ---- bit sets of records ------------------------------------------------------------- */

static uint64_t *set_new(const planner *p)
{
    return calloc(p->plan->set_words ? p->plan->set_words : 1, sizeof(uint64_t));
}

static void set_add(uint64_t *set, uint32_t id)
{
    set[id / 64] |= 1ull << (id % 64);
}

/* ---- scopes and threads ------------------------------------------------------------ */

static void scope_free(flow_scope *sc);

static void thread_free(flow_thread *t)
{
    for (size_t i = 0; i < t->nsteps; i++) {
        flow_step *st = &t->steps[i];
        if (st->kind != STEP_COND)
            continue;
        for (uint32_t b = 0; b < st->u.cond.size; b++)
            scope_free(st->u.cond.bodies[b]);
        free(st->u.cond.bodies);
        free(st->u.cond.made);
        free(st->u.cond.waited);
    }
    free(t->steps);
}

static void scope_free(flow_scope *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->nthreads; i++)
        thread_free(&sc->threads[i]);
    free(sc->threads);
    free(sc->made);
    free(sc->waited);
    free(sc);
}

/* A new thread of sc running stream k (its index: sc->nthreads - 1). */
static aclError thread_add(planner *p, flow_scope *sc, size_t k, bool root)
{
    if (sc->nthreads == sc->thread_cap) {
        size_t cap = sc->thread_cap ? 2 * sc->thread_cap : 4;
        flow_thread *grown = realloc(sc->threads, cap * sizeof *grown);
        if (!grown)
            return out_of_memory(p);
        sc->threads = grown;
        sc->thread_cap = cap;
    }
    sc->threads[sc->nthreads++] = (flow_thread){.stream = k, .root = root};
    return ACL_SUCCESS;
}

/* On failure what st owns stays the caller's. */
static aclError step_add(planner *p, flow_thread *t, const flow_step *st)
{
    if (++p->nsteps > STEPS_MAX)
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "its branches, copied where they fall through into each other, come to "
                      "more than %d tasks",
                      (int)STEPS_MAX);
    if (t->nsteps == t->step_cap) {
        size_t cap = t->step_cap ? 2 * t->step_cap : 8;
        flow_step *grown = realloc(t->steps, cap * sizeof *grown);
        if (!grown)
            return out_of_memory(p);
        t->steps = grown;
        t->step_cap = cap;
    }
    t->steps[t->nsteps++] = *st;
    return ACL_SUCCESS;
}

/* ---- labels ------------------------------------------------------------------------ */

/* Where label is set: the stream and its item's index. */
static bool label_find(const model_flow *f, aclrtLabel label, size_t *stream, size_t *at)
{
    for (size_t k = 0; k < f->nstreams; k++) {
        const flow_stream *fs = &f->streams[k];
        for (size_t i = 0; i < fs->nitems; i++)
            if (fs->items[i].kind == ITEM_LABEL && fs->items[i].u.label == label) {
                *stream = k;
                *at = i;
                return true;
            }
    }
    return false;
}

/* Where label is set in stream k, for a jump of it (task `task`). Raises. */
static aclError label_place(planner *p, aclrtLabel label, size_t k, uint32_t by, size_t *at)
{
    size_t stream;
    if (!label_find(p->f, label, &stream, at))
        return refuse(p, ACL_ERROR_INVALID_PARAM,
                      "aclrtSwitchLabelByIndex (task %u of stream %d) jumps to label %p, which is "
                      "not set on a stream of the model (aclrtSetLabel)",
                      by, (int)stream_at(p, k)->id, label);
    if (stream != k)
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "aclrtSwitchLabelByIndex (task %u of stream %d) jumps to label %p, which is "
                      "set on stream %d: a graph cannot jump between streams (aclrtSwitchStream "
                      "switches to a stream's start)",
                      by, (int)stream_at(p, k)->id, label, (int)stream_at(p, stream)->id);
    return ACL_SUCCESS;
}

/* The places of the labels of stream k's jump it (count of them). */
static aclError jump_targets(planner *p, size_t k, const flow_item *it, size_t **out)
{
    size_t *at = malloc(it->u.jump.count * sizeof *at);
    if (!at)
        return out_of_memory(p);
    for (uint32_t v = 0; v < it->u.jump.count; v++) {
        aclError err = label_place(p, it->u.jump.labels[v], k, it->task, &at[v]);
        if (err) {
            free(at);
            return err;
        }
    }
    *out = at;
    return ACL_SUCCESS;
}

static bool jump_goes_to(const flow_item *it, aclrtLabel label)
{
    for (uint32_t v = 0; v < it->u.jump.count; v++)
        if (it->u.jump.labels[v] == label)
            return true;
    return false;
}

/* ---- the walk -------------------------------------------------------------------------- */

static aclError plan_range(planner *p, flow_thread *t, size_t k, size_t a, size_t b,
                           unsigned flags);
static aclError scope_close(planner *p, flow_scope *sc);

/* A scope whose first thread runs items [a, b) of stream k. */
/* A new scope, one level deeper. */
static aclError scope_new(planner *p, size_t k, flow_scope **out)
{
    if (p->depth == DEPTH_MAX)
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "stream %d nests branches and loops more than %d deep",
                      (int)stream_at(p, k)->id, (int)DEPTH_MAX);
    if (!(*out = calloc(1, sizeof **out)))
        return out_of_memory(p);
    p->depth++;
    return ACL_SUCCESS;
}

static aclError scope_of_range(planner *p, size_t k, size_t a, size_t b, unsigned flags,
                               flow_scope **out)
{
    flow_scope *sc;
    aclError err = scope_new(p, k, &sc);
    if (err)
        return err;
    if (!(err = thread_add(p, sc, k, true)))
        err = plan_range(p, &sc->threads[0], k, a, b, flags);
    if (!err)
        err = scope_close(p, sc);
    p->depth--;
    if (err) {
        scope_free(sc);
        return err;
    }
    *out = sc;
    return ACL_SUCCESS;
}

/* Plans stream k from its start into thread t (of a scope being closed),
 * started by task `by` of stream `from` (none for a head stream). */
static aclError plan_start(planner *p, flow_thread *t, size_t k, size_t from, uint32_t by)
{
    for (size_t i = 0; i < p->nchain; i++)
        if (p->chain[i] == k)
            return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "task %u of stream %d starts stream %d again inside the work that "
                          "stream starts (streams that start or switch to each other in a "
                          "circle): a graph does not loop through streams",
                          by, (int)stream_at(p, from)->id, (int)stream_at(p, k)->id);
    if (p->nchain == p->chain_cap) {
        size_t cap = p->chain_cap ? 2 * p->chain_cap : 8;
        size_t *grown = realloc(p->chain, cap * sizeof *grown);
        if (!grown)
            return out_of_memory(p);
        p->chain = grown;
        p->chain_cap = cap;
    }
    p->chain[p->nchain++] = k;
    aclError err = plan_range(p, t, k, 0, stream_at(p, k)->nitems, RANGE_TAIL);
    p->nchain--;
    return err;
}

/* A scope whose first thread runs stream k from its start (none: empty),
 * switched to by task `by` of stream `from`. */
static aclError scope_of_start(planner *p, size_t k, size_t from, uint32_t by, flow_scope **out)
{
    flow_scope *sc;
    aclError err = scope_new(p, from, &sc);
    if (err)
        return err;
    if (k < p->f->nstreams && !(err = thread_add(p, sc, k, true)))
        err = plan_start(p, &sc->threads[0], k, from, by);
    if (!err)
        err = scope_close(p, sc);
    p->depth--;
    if (err) {
        scope_free(sc);
        return err;
    }
    *out = sc;
    return ACL_SUCCESS;
}

/* The records made and waited for in a whole scope, for the conditional
 * step holding it: the bodies' made records become its own. */
static aclError scope_sets(planner *p, flow_scope *sc)
{
    if (!(sc->made = set_new(p)) || !(sc->waited = set_new(p)))
        return out_of_memory(p);
    for (size_t i = 0; i < sc->nthreads; i++) {
        const flow_thread *t = &sc->threads[i];
        for (size_t j = 0; j < t->nsteps; j++) {
            const flow_step *st = &t->steps[j];
            if (st->kind == STEP_RECORD)
                set_add(sc->made, st->u.record);
            else if (st->kind == STEP_WAIT)
                set_add(sc->waited, st->u.record);
            else if (st->kind == STEP_COND)
                for (size_t w = 0; w < p->plan->set_words; w++) {
                    sc->made[w] |= st->u.cond.made[w];
                    sc->waited[w] |= st->u.cond.waited[w];
                }
        }
    }
    return ACL_SUCCESS;
}

/* The streams that sc's threads start become threads of it, each once, and
 * ACTIVATE steps name them; then its record sets. */
static aclError scope_close(planner *p, flow_scope *sc)
{
    for (size_t i = 0; i < sc->nthreads; i++) {
        for (size_t j = 0; j < sc->threads[i].nsteps; j++) {
            flow_step *st = &sc->threads[i].steps[j];
            if (st->kind != STEP_ACTIVATE)
                continue;
            size_t k = st->u.thread; /* a stream until now */
            size_t found = 0;
            while (found < sc->nthreads && sc->threads[found].stream != k)
                found++;
            if (found < sc->nthreads && sc->threads[found].root)
                return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                              "aclrtActiveStream (task %u of stream %d) starts stream %d where "
                              "it runs already",
                              st->task, (int)stream_at(p, sc->threads[i].stream)->id,
                              (int)stream_at(p, k)->id);
            aclError err = ACL_SUCCESS;
            if (found == sc->nthreads && !(err = thread_add(p, sc, k, false)))
                err = plan_start(p, &sc->threads[found], k, sc->threads[i].stream, st->task);
            if (err)
                return err;
            /* sc->threads may have moved: st points into a thread's steps. */
            sc->threads[i].steps[j].u.thread = (uint32_t)found;
            sc->threads[found].starters++;
        }
    }
    return scope_sets(p, sc);
}

/* Appends the conditional step of bodies (taken: freed on failure). */
static aclError cond_add(planner *p, flow_thread *t, cond_kind kind, uint32_t word, uint32_t by,
                         flow_scope **bodies, uint32_t size)
{
    flow_step st = {.kind = STEP_COND,
                    .word = word,
                    .task = by,
                    .u.cond = {.kind = kind, .size = size, .bodies = bodies}};
    aclError err = ACL_SUCCESS;
    if (!(st.u.cond.made = set_new(p)) || !(st.u.cond.waited = set_new(p)))
        err = out_of_memory(p);
    for (uint32_t b = 0; !err && b < size; b++)
        for (size_t w = 0; w < p->plan->set_words; w++) {
            st.u.cond.made[w] |= bodies[b]->made[w];
            st.u.cond.waited[w] |= bodies[b]->waited[w];
        }
    /* Waits for records of the bodies need nothing outside them. */
    for (size_t w = 0; !err && w < p->plan->set_words; w++)
        st.u.cond.waited[w] &= ~st.u.cond.made[w];
    if (!err)
        err = step_add(p, t, &st);
    if (err) {
        for (uint32_t b = 0; b < size; b++)
            scope_free(bodies[b]);
        free(bodies);
        free(st.u.cond.made);
        free(st.u.cond.waited);
    }
    return err;
}

static aclError select_add(planner *p, flow_thread *t, uint32_t word, uint32_t by, flow_select sel)
{
    return step_add(p, t,
                    &(flow_step){.kind = STEP_SELECT, .word = word, .task = by, .u.select = sel});
}

/* aclrtSwitchStream at item i of stream k's range [i, b). */
static aclError plan_switch(planner *p, flow_thread *t, size_t k, size_t i, size_t b,
                            unsigned flags)
{
    const flow_item *it = &stream_at(p, k)->items[i];
    if (!(flags & RANGE_TAIL) || (flags & RANGE_LOOP))
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "aclrtSwitchStream (task %u of stream %d) stops the rest of its stream, "
                      "but it lies in a branch or loop of labels that goes on after it: a "
                      "graph's branch cannot stop what follows it",
                      it->task, (int)stream_at(p, k)->id);
    uint32_t word = p->plan->nwords++;
    aclError err = select_add(p, t, word, it->task, it->u.sw.test);
    if (err)
        return err;
    flow_scope **bodies = calloc(2, sizeof *bodies);
    if (!bodies)
        return out_of_memory(p);
    if ((err = scope_of_start(p, flow_stream_index(p->f, it->u.sw.stream), k, it->task,
                              &bodies[0])) ||
        (err = scope_of_range(p, k, i + 1, b, flags, &bodies[1]))) {
        scope_free(bodies[0]);
        free(bodies);
        return err;
    }
    return cond_add(p, t, COND_IF, word, it->task, bodies, 2);
}

/* A jump forward at item i of [i, b), to the places at[] (count of them):
 * where control goes on after it (*next; b: it leaves the range). */
static aclError plan_jump(planner *p, flow_thread *t, size_t k, size_t i, size_t b, unsigned flags,
                          size_t *next)
{
    const flow_stream *fs = stream_at(p, k);
    const flow_item *it = &fs->items[i];
    size_t *at;
    aclError err = jump_targets(p, k, it, &at);
    if (err)
        return err;
    uint32_t count = it->u.jump.count;
    size_t first = at[0], join = at[0];
    bool one = true;
    for (uint32_t v = 0; v < count && !err; v++) {
        one &= at[v] == first;
        if (at[v] <= i)
            err = refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtSwitchLabelByIndex (task %u of stream %d) jumps back to label %p "
                         "from outside the loop that label heads, or from a branch that does "
                         "not hold the loop",
                         it->task, (int)fs->id, it->u.jump.labels[v]);
        else if (at[v] > b)
            err = refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtSwitchLabelByIndex (task %u of stream %d) jumps to label %p, out "
                         "of the branch or loop it lies in (to past where its branches meet)",
                         it->task, (int)fs->id, it->u.jump.labels[v]);
        else if (at[v] > join)
            join = at[v];
    }
    if (err || one) {
        *next = first; /* a jump to one label: what lies between is skipped */
        free(at);
        return err;
    }
    /* Where the branches meet: no jump between reaches past it (jumps
     * elsewhere are refused where they are planned). */
    for (bool grown = true; grown;) {
        grown = false;
        for (size_t x = i + 1; x < join; x++) {
            const flow_item *j = &fs->items[x];
            for (uint32_t v = 0; j->kind == ITEM_JUMP && v < j->u.jump.count; v++) {
                size_t stream, there;
                if (label_find(p->f, j->u.jump.labels[v], &stream, &there) && stream == k &&
                    there > join && there <= b) {
                    join = there;
                    grown = true;
                }
            }
        }
    }
    uint32_t word = p->plan->nwords++;
    flow_select sel = {.kind = FLOW_SELECT_INDEX, .count = count, .index = it->u.jump.index};
    err = select_add(p, t, word, it->task, sel);
    flow_scope **bodies = err ? NULL : calloc(count, sizeof *bodies);
    if (!err && !bodies)
        err = out_of_memory(p);
    unsigned body_flags = (flags & RANGE_LOOP) | (join == b ? flags & RANGE_TAIL : 0);
    for (uint32_t v = 0; !err && v < count; v++)
        err = scope_of_range(p, k, at[v], join, body_flags, &bodies[v]);
    free(at);
    if (err) {
        for (uint32_t v = 0; bodies && v < count; v++)
            scope_free(bodies[v]);
        free(bodies);
        return err;
    }
    *next = join;
    return cond_add(p, t, COND_SWITCH, word, it->task, bodies, count);
}

/* The bits of the list entries of jump it that go to `place`. */
static aclError place_mask(planner *p, const flow_item *it, const size_t *at, size_t place,
                           uint64_t *mask)
{
    if (it->u.jump.count > MASK_LABELS)
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "aclrtSwitchLabelByIndex (task %u) decides a loop with %u labels: at most "
                      "%d can",
                      it->task, it->u.jump.count, (int)MASK_LABELS);
    *mask = 0;
    for (uint32_t v = 0; v < it->u.jump.count; v++)
        if (at[v] == place)
            *mask |= 1ull << v;
    return ACL_SUCCESS;
}

/* The one jump of items (h, q) of stream k that leaves the loop they are
 * in (a target past q): its index. Raises. */
static aclError loop_test(planner *p, size_t k, size_t h, size_t q, size_t *test)
{
    const flow_stream *fs = stream_at(p, k);
    aclrtLabel label = fs->items[h].u.label;
    *test = q;
    for (size_t x = h + 1; x < q; x++) {
        const flow_item *j = &fs->items[x];
        for (uint32_t v = 0; j->kind == ITEM_JUMP && v < j->u.jump.count; v++) {
            size_t there;
            aclError err = label_place(p, j->u.jump.labels[v], k, j->task, &there);
            if (err)
                return err;
            if (there <= q || *test == x)
                continue;
            if (*test != q)
                return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                              "the loop at label %p is left by two jumps (tasks %u and %u of "
                              "stream %d): a loop of a graph has one way out",
                              label, fs->items[*test].task, j->task, (int)fs->id);
            *test = x;
        }
    }
    if (*test == q)
        return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "the loop at label %p (its jump back: task %u of stream %d) has no jump "
                      "out of it: it would never end",
                      label, fs->items[q].task, (int)fs->id);
    return ACL_SUCCESS;
}

/* Sorts the places at[] of the jump at item x of the loop [h, q] into its
 * way on (*on: the head h for the jump back, `back`; else one place in
 * (x, q]; SIZE_MAX when none) and its exit (*exit: one place in (q, b];
 * SIZE_MAX when none). Raises. */
static aclError loop_ways(planner *p, size_t k, size_t x, const size_t *at, size_t h, size_t q,
                          size_t b, bool back, size_t *on, size_t *exit)
{
    const flow_stream *fs = stream_at(p, k);
    const flow_item *it = &fs->items[x];
    *on = SIZE_MAX;
    *exit = SIZE_MAX;
    for (uint32_t v = 0; v < it->u.jump.count; v++) {
        size_t there = at[v];
        bool leaves = there > q;
        bool goes_on = back ? there == h : there > x && there <= q;
        if (leaves && there <= b && (*exit == SIZE_MAX || there == *exit))
            *exit = there;
        else if (goes_on && (*on == SIZE_MAX || there == *on))
            *on = there;
        else
            return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrtSwitchLabelByIndex (task %u of stream %d) in the loop at label "
                          "%p goes to label %p: a loop of a graph goes %s, or out to one label "
                          "past it",
                          it->task, (int)fs->id, fs->items[h].u.label, it->u.jump.labels[v],
                          back ? "back to its head" : "on to one label further in it");
    }
    return ACL_SUCCESS;
}

/* The loop whose head is the label at item h of [h, b) and whose jump back
 * is at item q; *next: where control goes on after it. */
static aclError plan_loop(planner *p, flow_thread *t, size_t k, size_t h, size_t q, size_t b,
                          size_t *next)
{
    const flow_stream *fs = stream_at(p, k);
    const flow_item *back = &fs->items[q];
    uint32_t word = p->plan->nwords++;
    size_t *at, on, exit;
    aclError err = jump_targets(p, k, back, &at);
    if (err)
        return err;
    err = loop_ways(p, k, q, at, h, q, b, true, &on, &exit);
    flow_scope *round = NULL;
    flow_select sel = {.kind = FLOW_SELECT_MASK};
    if (!err && exit != SIZE_MAX) {
        /* Its jump back decides: another round while it selects the head. */
        sel.count = back->u.jump.count;
        sel.index = back->u.jump.index;
        if (!(err = place_mask(p, back, at, h, &sel.value)) &&
            !(err = scope_of_range(p, k, h + 1, q, RANGE_LOOP, &round)))
            err = select_add(p, &round->threads[0], word, back->task, sel);
    } else if (!err) {
        /* It always goes back: one jump of its top level decides, and the
         * rest of a round runs when that jump goes on. */
        size_t test;
        free(at);
        at = NULL;
        if (!(err = loop_test(p, k, h, q, &test)) &&
            !(err = jump_targets(p, k, &fs->items[test], &at)) &&
            !(err = loop_ways(p, k, test, at, h, q, b, false, &on, &exit))) {
            const flow_item *out = &fs->items[test];
            sel.count = out->u.jump.count;
            sel.index = out->u.jump.index;
            flow_scope **rest = calloc(1, sizeof *rest);
            if (!rest)
                err = out_of_memory(p);
            else if ((err = place_mask(p, out, at, on, &sel.value)) ||
                     (err = scope_of_range(p, k, h + 1, test, RANGE_LOOP, &round)) ||
                     (err = select_add(p, &round->threads[0], word, out->task, sel)) ||
                     (err = scope_of_range(p, k, on == SIZE_MAX ? q : on, q, RANGE_LOOP, &rest[0])))
                free(rest);
            else
                err = cond_add(p, &round->threads[0], COND_IF, word, out->task, rest, 1);
        }
    }
    free(at);
    flow_scope **bodies = NULL;
    if (!err) {
        /* The round's records and waits again, now that it is whole. */
        free(round->made);
        free(round->waited);
        round->made = round->waited = NULL;
        if (!(err = scope_sets(p, round)) && !(bodies = calloc(1, sizeof *bodies)))
            err = out_of_memory(p);
    }
    if (!err)
        err = select_add(p, t, word, fs->items[h].task,
                         (flow_select){.kind = FLOW_SELECT_CONSTANT, .value = 1});
    if (err) {
        free(bodies);
        scope_free(round);
        return err;
    }
    bodies[0] = round;
    *next = exit;
    return cond_add(p, t, COND_WHILE, word, fs->items[h].task, bodies, 1);
}

/* A label at item i of [i, b): a loop's head when a later jump of the
 * range goes back to it. */
static aclError plan_label(planner *p, flow_thread *t, size_t k, size_t i, size_t b, size_t *next)
{
    const flow_stream *fs = stream_at(p, k);
    aclrtLabel label = fs->items[i].u.label;
    size_t back = 0;
    for (size_t x = i + 1; x < fs->nitems; x++) {
        const flow_item *j = &fs->items[x];
        if (j->kind != ITEM_JUMP || !jump_goes_to(j, label))
            continue;
        if (x >= b)
            return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrtSwitchLabelByIndex (task %u of stream %d) jumps back to label "
                          "%p, into a branch that does not hold it (past where that branch's "
                          "jump meets the others)",
                          j->task, (int)fs->id, label);
        if (back)
            return refuse(p, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "label %p is the target of two jumps back (tasks %u and %u of stream "
                          "%d): a loop of a graph has one way back",
                          label, fs->items[back].task, j->task, (int)fs->id);
        back = x;
    }
    if (!back) {
        *next = i + 1;
        return ACL_SUCCESS;
    }
    return plan_loop(p, t, k, i, back, b, next);
}

static aclError plan_range(planner *p, flow_thread *t, size_t k, size_t a, size_t b, unsigned flags)
{
    const flow_stream *fs = stream_at(p, k);
    aclError err = ACL_SUCCESS;
    for (size_t i = a; i < b && !err;) {
        const flow_item *it = &fs->items[i];
        flow_step st = {.task = it->task};
        switch (it->kind) {
        case ITEM_PIECE:
            st.kind = STEP_PIECE;
            st.u.piece = it->u.piece;
            err = step_add(p, t, &st);
            i++;
            break;
        case ITEM_RECORD:
        case ITEM_WAIT:
            st.kind = it->kind == ITEM_RECORD ? STEP_RECORD : STEP_WAIT;
            st.u.record = it->u.record;
            err = step_add(p, t, &st);
            i++;
            break;
        case ITEM_ACTIVATE: {
            size_t target = flow_stream_index(p->f, it->u.stream);
            st.kind = STEP_ACTIVATE;
            st.u.thread = (uint32_t)target; /* a stream until scope_close */
            if (target < p->f->nstreams)    /* else unbound meanwhile: nothing starts */
                err = step_add(p, t, &st);
            i++;
            break;
        }
        case ITEM_SWITCH:
            return plan_switch(p, t, k, i, b, flags);
        case ITEM_LABEL:
            err = plan_label(p, t, k, i, b, &i);
            break;
        case ITEM_JUMP:
            err = plan_jump(p, t, k, i, b, flags, &i);
            break;
        }
    }
    return err;
}

/* ---- the plan ---------------------------------------------------------------------------- */

aclError flow_plan_make(const char *api, const model_flow *f, uint32_t model_id, flow_plan *out)
{
    memset(out, 0, sizeof *out);
    out->set_words = (f->next_record + 63) / 64;
    planner p = {.api = api, .f = f, .model_id = model_id, .plan = out};
    flow_scope *top = calloc(1, sizeof *top);
    aclError err = top ? ACL_SUCCESS : out_of_memory(&p);
    for (size_t k = 0; !err && k < f->nstreams; k++)
        if (f->streams[k].head && !(err = thread_add(&p, top, k, true)))
            err = plan_start(&p, &top->threads[top->nthreads - 1], k, k, 0);
    if (!err)
        err = scope_close(&p, top);
    free(p.chain);
    if (err) {
        scope_free(top);
        return err;
    }
    out->top = top;
    return ACL_SUCCESS;
}

void flow_plan_free(flow_plan *p)
{
    scope_free(p->top);
    p->top = NULL;
}
