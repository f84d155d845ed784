/* Reading host memory without trusting the pointer (probe.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/fork.h"
#include "util/probe.h"

enum {
    PIPE_CHUNK = 4096,   /* written whole into an empty pipe */
    WRITE_CHUNK = 16384, /* bytes read and written back at a time */
};

/* The calling thread's stack, [low, high); high 0 until looked up, 1 when
 * it cannot be. */
static _Thread_local uintptr_t stack_low, stack_high;

bool probe_on_stack(const void *p, size_t n)
{
    if (stack_high == 0) {
        pthread_attr_t attr;
        void *addr = NULL;
        size_t size = 0;
        stack_high = 1;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr) {
                stack_low = (uintptr_t)addr;
                stack_high = stack_low + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    /* From this frame up to the top of the stack is live. Not on the
     * thread's stack (a signal stack, a coroutine's): no answer. */
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0), at = (uintptr_t)p;
    return frame >= stack_low && frame < stack_high && at >= frame && at <= stack_high &&
           n <= stack_high - at;
}

/* 1: process_vm_readv works here; -1: refused (seccomp), use the pipe. */
static atomic_int vm_calls;

static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fds[2] = {-1, -1};
static pid_t pipe_owner; /* a child makes its own: the pipe is shared with the parent */

/* Copies through a pipe: write(2) fails with EFAULT on an unreadable
 * source, read(2) on an unwritable destination. */
static bool pipe_copy(void *dst, const void *src, size_t n)
{
    pthread_mutex_lock(&pipe_lock);
    if (pipe_owner != getpid()) {
        if (pipe_fds[0] >= 0) {
            close(pipe_fds[0]);
            close(pipe_fds[1]);
        }
        pipe_fds[0] = pipe_fds[1] = -1;
        if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) == 0)
            pipe_owner = getpid();
    }
    bool ok = pipe_fds[0] >= 0;
    for (size_t done = 0; ok && done < n;) {
        size_t chunk = n - done < PIPE_CHUNK ? n - done : PIPE_CHUNK;
        ssize_t w = write(pipe_fds[1], (const char *)src + done, chunk);
        ok = w == (ssize_t)chunk;
        for (size_t got = 0; ok && got < chunk;) {
            ssize_t r = read(pipe_fds[0], (char *)dst + done + got, chunk - got);
            ok = r > 0;
            got += ok ? (size_t)r : 0;
        }
        /* What a failed read left in the pipe is drained. */
        char sink[PIPE_CHUNK];
        while (!ok && w > 0 && read(pipe_fds[0], sink, sizeof sink) > 0)
            ;
        done += chunk;
    }
    pthread_mutex_unlock(&pipe_lock);
    return ok;
}

/* Copies with the kernel reading src and writing dst for us (write: dst
 * is the other process's side). 0: done; else errno. */
static int vm_copy(void *dst, const void *src, size_t n, bool write)
{
    for (size_t done = 0; done < n;) {
        struct iovec here = {(char *)(write ? src : dst) + done, n - done};
        struct iovec there = {(char *)(write ? dst : src) + done, n - done};
        ssize_t r = write ? process_vm_writev(getpid(), &here, 1, &there, 1, 0)
                          : process_vm_readv(getpid(), &here, 1, &there, 1, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EFAULT;
        done += (size_t)r;
    }
    return 0;
}

static bool vm_refused(int err)
{
    return err == ENOSYS || err == EPERM || err == EACCES;
}

/* Copies by process_vm_readv (write: process_vm_writev, dst the other
 * side), or through the pipe where those are refused. */
static bool kernel_copy(void *dst, const void *src, size_t n, bool write)
{
    if (n == 0)
        return true;
    if (atomic_load_explicit(&vm_calls, memory_order_relaxed) >= 0) {
        int err = vm_copy(dst, src, n, write);
        if (!vm_refused(err)) {
            atomic_store_explicit(&vm_calls, 1, memory_order_relaxed);
            return err == 0;
        }
        atomic_store_explicit(&vm_calls, -1, memory_order_relaxed);
    }
    return pipe_copy(dst, src, n);
}

bool probe_copy(void *dst, const void *src, size_t n)
{
    return kernel_copy(dst, src, n, false);
}

bool probe_write(void *dst, const void *src, size_t n)
{
    return kernel_copy(dst, src, n, true);
}

bool probe_writable(void *p, size_t n)
{
    unsigned char buffer[WRITE_CHUNK];
    for (size_t done = 0; done < n;) {
        size_t chunk = n - done < sizeof buffer ? n - done : sizeof buffer;
        char *at = (char *)p + done;
        if (!probe_copy(buffer, at, chunk) || !probe_write(at, buffer, chunk))
            return false;
        done += chunk;
    }
    return true;
}

/* The pipe's lock is a leaf: it ranks last but for the error messages. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&pipe_lock);
}

static void fork_done(void)
{
    pthread_mutex_unlock(&pipe_lock);
}

__attribute__((constructor)) static void probe_init(void)
{
    fork_register(FORK_RANK_ERRORS - 1, fork_prepare, fork_done, fork_done);
}
