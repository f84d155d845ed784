/* The client side of ipc_peer (the other process of the IPC tests): starts
 * it (fork + exec; $COMPAT_IPC_PEER names it, default ./ipc_peer), sends
 * one command per line and reads one answer line. Public API only. */
#ifndef COMPAT_IPC_PEER_H
#define COMPAT_IPC_PEER_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat.h"

typedef struct peer {
    pid_t pid;
    FILE *to, *from;
    int32_t tgid; /* what aclrtDeviceGetBareTgid says in the peer */
} peer;

static inline void peer_start(peer *p)
{
    const char *env = getenv("COMPAT_IPC_PEER");
    char path[4096];
    snprintf(path, sizeof path, "%s", env && *env ? env : "./ipc_peer");
    int in[2], out[2];
    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->pid = pid;
    p->to = fdopen(in[1], "w");
    p->from = fdopen(out[0], "r");
    ck_assert_ptr_nonnull(p->to);
    ck_assert_ptr_nonnull(p->from);
    setvbuf(p->to, NULL, _IOLBF, 0);
    char answer[256];
    fprintf(p->to, "pid\n");
    ck_assert_msg(fgets(answer, sizeof answer, p->from) != NULL, "%s did not start", path);
    ck_assert_msg(sscanf(answer, "ok %" SCNd32, &p->tgid) == 1, "peer: %s", answer);
}

/* Sends a command; the answer, without its newline, in a static buffer. */
static inline const char *peer_ask(peer *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline const char *peer_ask(peer *p, const char *fmt, ...)
{
    static char answer[512];
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->to, fmt, ap);
    va_end(ap);
    fputc('\n', p->to);
    fflush(p->to);
    ck_assert_msg(fgets(answer, sizeof answer, p->from) != NULL, "the peer did not answer");
    answer[strcspn(answer, "\n")] = '\0';
    return answer;
}

static inline void peer_stop(peer *p)
{
    fprintf(p->to, "quit\n");
    fclose(p->to);
    fclose(p->from);
    int status;
    ck_assert_int_eq(waitpid(p->pid, &status, 0), p->pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the peer ended badly (%d)",
                  status);
}

/* "ok <hex>" → the number. */
static inline uintptr_t ok_hex(const char *answer)
{
    uintptr_t v = 0;
    ck_assert_msg(sscanf(answer, "ok %" SCNxPTR, &v) == 1, "peer answered: %s", answer);
    return v;
}

static inline void expect_ok(const char *answer)
{
    ck_assert_msg(strcmp(answer, "ok") == 0, "peer answered: %s", answer);
}

/* A refusal whose code ACL does not document. */
static inline void expect_fail(const char *answer)
{
    ck_assert_msg(strncmp(answer, "err ", 4) == 0, "peer answered \"%s\", expected an error",
                  answer);
}

static inline void to_hex(const void *data, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)data)[i]);
}

#endif
