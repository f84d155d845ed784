/* Thread-local variables read on every ACL call. In a shared library the
 * default TLS model makes each access a call to __tls_get_addr; the
 * initial-exec model makes it one load. A library loaded with dlopen (as
 * pyACL's ctypes does) takes these from the static TLS space glibc keeps
 * spare for that purpose, so only a few small variables use it. */
#ifndef ACLCUDA_UTIL_TLS_H
#define ACLCUDA_UTIL_TLS_H

#define HOT_TLS _Thread_local __attribute__((tls_model("initial-exec")))

#endif
