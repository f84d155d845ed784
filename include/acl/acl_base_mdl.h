/*
 * acl-cuda: AscendCL's base model header. The runtime package of AscendCL
 * ships it empty (the model package replaces it); the model run instances
 * acl-cuda provides are declared in acl_rt.h, so it stays empty here too.
 */
#ifndef ACLCUDA_ACL_BASE_MDL_H
#define ACLCUDA_ACL_BASE_MDL_H
#endif /* ACLCUDA_ACL_BASE_MDL_H */
