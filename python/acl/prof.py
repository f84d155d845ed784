"""acl.prof: pyACL's profiling functions (aclprof*): collection to files
(init, create_config, start, stop, ...), steps and msproftx marks and
ranges. What is written: docs/profiling.md."""

from . import _prof
from ._module import publish as _publish

_publish(globals(), _prof)
