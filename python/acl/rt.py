"""acl.rt: devices, contexts, streams, events, memory, callbacks.

Every function has pyACL's call form: positional arguments, integer handles
(0 for NULL, and 0 as a stream means the current context's default
stream), and either a bare ``ret`` or a tuple whose last item is ``ret``.
Functions whose C counterpart the loaded libascendcl.so does not export
are absent, as they would be from a pyACL build without them.

The functions live in private modules, one per area of the API
(acl/_rt/device.py, stream.py, ...); this module only names the areas.
"""

from ._module import publish as _publish
from ._rt import callback as _callback
from ._rt import context as _context
from ._rt import device as _device
from ._rt import event as _event
from ._rt import exception as _exception
from ._rt import ipc as _ipc
from ._rt import kernel as _kernel
from ._rt import memcpy as _memcpy
from ._rt import memory as _memory
from ._rt import notify as _notify
from ._rt import stream as _stream
from ._rt import vmm as _vmm

_publish(globals(), _device, _context, _stream, _event, _memory, _memcpy, _callback, _exception, _kernel,
         _notify, _vmm, _ipc)
