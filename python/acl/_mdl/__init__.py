"""The areas of acl.mdl, one private module each; acl/mdl.py publishes them.

    ri    model run instances (aclmdlRI*): stream capture into a model,
          building one from bound streams, running, naming, destroying

pyACL's acl.mdl wraps offline models (.om files: load_from_file, execute,
datasets), which acl-cuda does not provide; the aclmdlRI* calls it has no
wrapper for. acl.mdl here holds only acl-cuda's wrappers of those, named
the way pyACL names its functions (aclmdlRICaptureBegin becomes
acl.mdl.ri_capture_begin) and following its conventions (positional
arguments, integer handles, ret last). A new area is a module here ending
with ``__all__ = _exported(globals())``, named in acl/mdl.py's _publish().
"""
