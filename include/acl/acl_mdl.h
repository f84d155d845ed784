/*
 * acl-cuda: the part of AscendCL's model header that acl-cuda provides.
 *
 * The model API proper (loading and running offline models) is not provided.
 * The model run instances (aclmdlRI*: captured and built graphs) are declared
 * in acl_rt.h, where AscendCL's newest runtime headers declare them; this
 * header adds what AscendCL keeps in its model header for them.
 */
#ifndef ACLCUDA_ACL_MDL_H
#define ACLCUDA_ACL_MDL_H

#include "acl_rt.h"

/* aclmdlRIBindStream: the stream runs from the start of every execution
 * (HEAD), or only when a branch or loop activates it (DEFAULT; see
 * aclrtActiveStream). */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

#endif /* ACLCUDA_ACL_MDL_H */
