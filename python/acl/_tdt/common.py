"""What the acl.tdt areas share: the loaded library and the decorator that
checks arguments per pyACL's format letters."""

from .. import _lib
from .._parse import api as _api_for
from .._parse import DEFAULT_ERROR

c = _lib.api


def api(fmt, *c_functions, error=DEFAULT_ERROR):
    """Decorator: an acl.tdt function taking arguments per fmt, present when
    the library exports every one of c_functions."""
    return _api_for("acl.tdt", fmt, _lib.has(*c_functions), error)
