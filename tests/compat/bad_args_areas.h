/* Every area whose test file has bad-argument rows (COMPAT_BAD_ARGS in
 * tests/compat/test_<area>.c, or ext/test_<area>.c for acl-cuda's
 * extensions). One line per area: add a line when an area gets its first
 * row. acl-cuda's coverage check (tests/check/test_robustness.c) reads every
 * area's rows through this list. */
COMPAT_AREA(base)
COMPAT_AREA(init)
COMPAT_AREA(errors)
COMPAT_AREA(device)
COMPAT_AREA(context)
COMPAT_AREA(stream)
COMPAT_AREA(event)
COMPAT_AREA(memory)
COMPAT_AREA(callback)
COMPAT_AREA(notify)
COMPAT_AREA(vmm)
COMPAT_AREA(ipc)
COMPAT_AREA(host_mem)
COMPAT_AREA(managed)
COMPAT_AREA(pool)
COMPAT_AREA(dvpp)
COMPAT_AREA(mbuf)
COMPAT_AREA(allocator)
COMPAT_AREA(kernel)
COMPAT_AREA(graph)
COMPAT_AREA(cuda)
COMPAT_AREA(tdt)
COMPAT_AREA(tdt_queue)
