/* Memory files shared with other processes (memfd_create), sealed so that
 * no holder of a descriptor can change their size: a peer that shrank one
 * would make every process mapping it fault (SIGBUS) on the lost pages. */
#ifndef ACLCUDA_UTIL_MEMFD_H
#define ACLCUDA_UTIL_MEMFD_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* A close-on-exec memory file of `size` bytes whose size is sealed; -1 with
 * errno set on failure. */
int sealed_memfd(const char *name, size_t size);

/* True when fd is a memory file sealed as sealed_memfd seals (its size, and
 * against further seals) of at least `end` bytes: its first `end` bytes
 * can be mapped and used for as long as the mapping lives, whoever else
 * holds it. */
bool memfd_holds(int fd, uint64_t end);

#endif
