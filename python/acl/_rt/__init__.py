"""The areas of acl.rt, one private module each; acl/rt.py publishes them.

    common     what the areas share: the library, the argument decorators,
               out-parameter helpers
    device     devices, core groups, peer access, overflow status
    context    contexts and system parameters
    stream     streams
    event      events (and the event wait timeout)
    memory     allocation, memory information, cache maintenance, host
               registration, UCE, custom allocators
    memcpy     copies, fills, copy descriptors, reductions, value write/wait
    callback   report threads and launch_callback
    exception  exception reports, last errors
    kernel     binaries, functions, argument lists, kernel launches,
               execution time limits
    notify     notifies (record, wait and reset, shared between processes)
    vmm        virtual memory, physical memory, shareable handles
    ipc        device memory shared between processes by key

A new area is a new module here ending with ``__all__ = _exported(globals())``, named
in the _publish() call of acl/rt.py, listed in ACL_PY_SOURCES of
Makefile.am, and its names recorded in tests/python/public-api.txt. Areas
of the other public modules get a private package of their own (acl/_mdl/
for acl.mdl's aclmdlRI calls; acl/_media/ for dvpp_malloc, say) and a
public module made the same way (see acl/_module.py).
"""
