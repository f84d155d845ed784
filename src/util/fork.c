/* One pthread_atfork for the whole library, running the modules' handlers
 * in lock order (pthread_atfork alone would run them in registration
 * order, which follows the link order of constructors). */
#include <pthread.h>
#include <stdlib.h>

#include "util/fork.h"

enum { MAX_HANDLERS = 48 };

typedef struct handler {
    int rank;
    fork_fn prepare, parent, child;
} handler;

static handler handlers[MAX_HANDLERS];
static int handler_count;

static void run_prepare(void)
{
    for (int i = 0; i < handler_count; i++)
        if (handlers[i].prepare)
            handlers[i].prepare();
}

static void run_parent(void)
{
    for (int i = handler_count - 1; i >= 0; i--)
        if (handlers[i].parent)
            handlers[i].parent();
}

static void run_child(void)
{
    for (int i = handler_count - 1; i >= 0; i--)
        if (handlers[i].child)
            handlers[i].child();
}

/* Called from constructors only (single-threaded): no lock needed. */
void fork_register(int rank, fork_fn prepare, fork_fn parent, fork_fn child)
{
    if (handler_count == MAX_HANDLERS)
        abort(); /* a build-time mistake: raise MAX_HANDLERS */
    if (handler_count == 0)
        pthread_atfork(run_prepare, run_parent, run_child);
    int i = handler_count++;
    while (i > 0 && handlers[i - 1].rank > rank) {
        handlers[i] = handlers[i - 1];
        i--;
    }
    handlers[i] = (handler){rank, prepare, parent, child};
}
