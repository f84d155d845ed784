/*
 * acl-cuda: AscendCL entry header. Programs include this one.
 *
 * Only the runtime part of AscendCL (acl_rt.h) is provided; the model and
 * operator parts are not.
 */
#ifndef ACLCUDA_ACL_H
#define ACLCUDA_ACL_H

#include "acl_rt.h"

#endif /* ACLCUDA_ACL_H */
