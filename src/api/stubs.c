/*
 * Made from the API table (api.def), row by row:
 *
 * - every row becomes a declaration of its function, so a row whose return
 *   type or parameters disagree with the public header is a compile error;
 * - an UNSUPPORTED row also becomes the function itself: an exported stub
 *   that fails with ACL_ERROR_RT_FEATURE_NOT_SUPPORT (or returns the row's
 *   fail value) and leaves a message naming itself for aclGetRecentErrMsg.
 *   Programs using such a function link and run, and learn at run time.
 *
 * IMPLEMENTED, ACCEPTED and REFUSED functions are defined where their area
 * lives. To implement a function, define it there and flip its row to
 * IMPLEMENTED.
 */
#include "api/api.h"

/* The headers not included by acl/acl.h. */
#include "acl/acl_platform.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "acl/ops/acl_dvpp.h"
/* ---- profiling, logging, dumps (issue 29) ---- */
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
#include "base/acl_log.h"
#include "mstx/ms_tools_ext.h"

/* A stub ignores its arguments by design. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The fail value of a void function: `return VOID;` is `return ;`. */
#define VOID

#define ACL_API_IMPLEMENTED(name, ret, params, fail) ret name params;
#define ACL_API_ACCEPTED(name, ret, params, fail) ret name params;
#define ACL_API_REFUSED(name, ret, params, fail) ret name params;

#define ACL_API_UNSUPPORTED(name, ret, params, fail)                                               \
    ret name params;                                                                               \
    ACL_EXPORT ret name params                                                                     \
    {                                                                                              \
        (void)acl_unsupported(__func__);                                                           \
        return fail;                                                                               \
    }

#define ACL_API(name, header, area, status, args, ret, params, fail)                               \
    ACL_API_##status(name, ret, params, fail)

#include "api.def"
