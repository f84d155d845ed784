"""The areas of acl.media, one private module each; acl/media.py publishes them.

    memory     DVPP memory: dvpp_malloc, dvpp_malloc_with_cfg, dvpp_free

The rest of pyACL's acl.media (channels, picture and stream descriptions,
image and video processing) is not part of acl-cuda.
"""
