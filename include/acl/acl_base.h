/*
 * acl-cuda: umbrella for the base definitions (types, enums, error codes).
 */
#ifndef ACLCUDA_ACL_BASE_H
#define ACLCUDA_ACL_BASE_H

#include "acl_base_rt.h"
#include "acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* ACLCUDA_ACL_BASE_H */
