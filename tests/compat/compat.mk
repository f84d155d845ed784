# The compatibility suite's build, included by the Makefile that
# ./configure writes (which sets srcdir, CC, the ACL and Check flags, PYTHON
# and the run environment). See docs/compat-suite.md.
#
#   make            build the C programs
#   make check      run everything, print the summary (results/ holds TAP,
#                   Check XML, JUnit XML and logs)
#   make check HOSTILE=yes|no   UNKNOWN=no   PYTEST_ARGS='-k memcpy'   JOBS=8
#   make clean

AREAS = headers base init errors device context stream event memory callback notify vmm ipc host_mem \
	managed pool dvpp mbuf allocator kernel graph tdt tdt_queue
PROGRAMS = $(AREAS:%=test_%)
ifeq ($(EXTENSIONS),yes)
PROGRAMS += ext/test_cuda
endif
HDRS = $(srcdir)/compat.h $(srcdir)/bad_args.h $(srcdir)/bad_args_areas.h $(srcdir)/reporter.h \
	$(srcdir)/ipc_peer.h
ALL_CPPFLAGS = -I$(srcdir) $(ACL_CPPFLAGS) $(CHECK_CFLAGS) -D_GNU_SOURCE $(CPPFLAGS)
ALL_CFLAGS = -std=c11 -pthread $(WARN_CFLAGS) $(CFLAGS)
ALL_LIBS = $(ACL_LIBS) $(CHECK_LIBS) -lpthread -lm $(LIBS)

RESULTS = results
HOSTILE = auto
UNKNOWN = yes
JOBS = 1

all: $(PROGRAMS) compat_probe ipc_peer

test_%: $(srcdir)/test_%.c $(HDRS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(ALL_LIBS)

ext/test_%: $(srcdir)/ext/test_%.c $(HDRS)
	@mkdir -p ext
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(ALL_LIBS)

# The second process of test_ipc.
ipc_peer: $(srcdir)/ipc_peer.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(ACL_LIBS)

compat_probe: $(srcdir)/probe.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(ACL_LIBS) -ldl

check: all
	@COMPAT_SRCDIR='$(srcdir)' COMPAT_RESULTS='$(RESULTS)' COMPAT_PROGRAMS='$(PROGRAMS)' \
	  PYTHON='$(PYTHON)' HOSTILE='$(HOSTILE)' UNKNOWN='$(UNKNOWN)' COMPAT_JOBS='$(JOBS)' \
	  ACL_LIBDIR='$(ACL_LIBDIR)' ACL_PYTHONPATH='$(ACL_PYTHONPATH)' \
	  COMPAT_IMPLEMENTED='$(COMPAT_IMPLEMENTED)' \
	  $(SHELL) '$(srcdir)/run.sh'

clean:
	rm -rf $(AREAS:%=test_%) ext compat_probe ipc_peer $(RESULTS)

.PHONY: all check clean
