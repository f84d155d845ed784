"""acl.tdt: tensor data transfer channels and shared queues (acl_tdt.h,
acl_tdt_queue.h).

pyACL's call forms: positional arguments, integer handles (0 for NULL),
queue ids, pids and addresses as ints; a function whose C counterpart
returns a handle or a count returns it bare, the others a bare ``ret`` or
a tuple whose last item is ``ret``. Functions whose C counterpart the
loaded libascendcl.so does not export are absent.
"""

from ._module import publish as _publish
from ._tdt import channel as _channel
from ._tdt import queue as _queue

_publish(globals(), _channel, _queue)
