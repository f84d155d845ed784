"""acl.media: the DVPP memory functions of pyACL's media module.

acl-cuda implements DVPP memory only (dvpp_malloc, dvpp_malloc_with_cfg,
dvpp_free), so image buffers allocated the pyACL way work unchanged; image
and video processing itself is not part of acl-cuda, and its functions are
absent. The functions live in private modules (acl/_media/); this module
only names them.
"""

from ._module import publish as _publish
from ._media import memory as _memory

_publish(globals(), _memory)
