/*
 * acl-cuda: AscendCL entry header. Programs include this one.
 *
 * The runtime part of AscendCL (acl_rt.h, with the model run instances of
 * acl_mdl.h) is provided; loading offline models and the operator API are
 * not.
 */
#ifndef ACLCUDA_ACL_H
#define ACLCUDA_ACL_H

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* ACLCUDA_ACL_H */
