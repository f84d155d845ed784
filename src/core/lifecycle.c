#include <stdlib.h>

#include "core/lifecycle.h"

enum { MAX_OBSERVERS = 8 };

static lifecycle_fn observers[LIFECYCLE_EVENT_COUNT][MAX_OBSERVERS];
static int observer_count[LIFECYCLE_EVENT_COUNT];

/* Constructors run before any other thread can exist: no lock. */
void lifecycle_observe(lifecycle_event event, lifecycle_fn fn)
{
    if (observer_count[event] == MAX_OBSERVERS)
        abort(); /* a build-time mistake: raise MAX_OBSERVERS */
    observers[event][observer_count[event]++] = fn;
}

void lifecycle_notify(lifecycle_event event, void *subject)
{
    for (int i = 0; i < observer_count[event]; i++)
        observers[event][i](subject);
}
