/*
 * acl-cuda: AscendCL's operator header. The runtime package of AscendCL
 * ships it empty (the operator package replaces it); acl-cuda provides no
 * operator API, so it stays empty here too, and programs that include it
 * still compile.
 */
#ifndef ACLCUDA_ACL_OP_H
#define ACLCUDA_ACL_OP_H
#endif /* ACLCUDA_ACL_OP_H */
