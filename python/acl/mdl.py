"""acl.mdl: model run instances (aclmdlRI*), acl-cuda's wrappers.

pyACL has no wrapper for the aclmdlRI* functions; these follow its
conventions: positional arguments, integer handles (0 for NULL; 0 as a
stream is the current context's default stream), and a bare ``ret`` or a
tuple whose last item is ``ret``. Functions whose C counterpart the loaded
libascendcl.so lacks are absent.
"""

from ._mdl import ri as _ri
from ._module import publish as _publish

_publish(globals(), _ri)
