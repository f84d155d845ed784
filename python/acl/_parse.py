"""Argument checking with the rules of CPython's PyArg_ParseTuple.

pyACL is a C extension whose functions take positional arguments only and
parse them with PyArg_ParseTuple format strings. The same format letters
are used here so that every function accepts and rejects exactly what
pyACL does:

  k, K  int only (bool included, it is an int); the value is masked to
        64 bits, never an overflow error (a negative handle wraps around)
  i     anything with __index__, not float; OverflowError outside int32
  I, H  anything with __index__, not float; masked to 32 / 16 bits
  l     anything with __index__, not float; OverflowError outside int64
  f     a real number (float, int, or anything with __float__/__index__)
  s     str without NUL characters, passed on as UTF-8
  O     any object
  |     the arguments after it are optional

A failed conversion raises TypeError (OverflowError / ValueError where
CPython does); it is never turned into an error code or a silent 0.
"""

import functools
import operator

_U16 = (1 << 16) - 1
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_I32 = (-(1 << 31), (1 << 31) - 1)
_I64 = (-(1 << 63), (1 << 63) - 1)


class _Unavailable:
    """Marks a function whose C counterpart the loaded library lacks."""

    def __repr__(self):
        return "<unavailable in this libascendcl>"


UNAVAILABLE = _Unavailable()


def _type_error(where, expected, value):
    return TypeError("%s must be %s, not %s" % (where, expected, type(value).__name__))


def _to_index(value, where):
    if isinstance(value, float):
        raise _type_error(where, "int", value)
    try:
        return operator.index(value)
    except TypeError:
        raise _type_error(where, "int", value) from None


def _in_range(value, bounds, where):
    low, high = bounds
    if value < low:
        raise OverflowError("%s: signed integer is less than minimum" % where)
    if value > high:
        raise OverflowError("%s: signed integer is greater than maximum" % where)
    return value


def _conv_unsigned_long(value, where):
    if not isinstance(value, int):
        raise _type_error(where, "int", value)
    return value & _U64


def _conv_float(value, where):
    kind = type(value)
    if isinstance(value, (str, bytes, bytearray)) or not (
            hasattr(kind, "__float__") or hasattr(kind, "__index__")):
        raise _type_error(where, "a real number", value)
    if not hasattr(kind, "__float__"):
        return float(operator.index(value))
    return float(value)


def _conv_str(value, where):
    if not isinstance(value, str):
        raise _type_error(where, "str", value)
    if "\0" in value:
        raise ValueError("%s: embedded null character" % where)
    return value.encode("utf-8")


_CONVERTERS = {
    "k": _conv_unsigned_long,
    "K": _conv_unsigned_long,
    "i": lambda v, where: _in_range(_to_index(v, where), _I32, where),
    "I": lambda v, where: _to_index(v, where) & _U32,
    "H": lambda v, where: _to_index(v, where) & _U16,
    "l": lambda v, where: _in_range(_to_index(v, where), _I64, where),
    "f": _conv_float,
    "s": _conv_str,
    "O": lambda v, where: v,
}


def _plural(n):
    return "argument" if n == 1 else "arguments"


def parsed(qualified_name, fmt):
    """Decorator: the wrapped body receives its arguments converted per fmt.

    The wrapper takes positional arguments only, as METH_VARARGS functions do,
    and checks their number and types before the body runs."""
    required, _, optional = fmt.partition("|")
    letters = required + optional
    unknown = set(letters) - set(_CONVERTERS)
    if unknown:
        raise ValueError("unknown format letters %r" % "".join(sorted(unknown)))
    low, high = len(required), len(letters)
    converters = [_CONVERTERS[c] for c in letters]

    def decorate(body):
        @functools.wraps(body)
        def wrapper(*args, **kwargs):
            if kwargs:
                raise TypeError("%s() takes no keyword arguments" % qualified_name)
            given = len(args)
            if not low <= given <= high:
                if low == high:
                    bound = "exactly %d" % low
                elif given < low:
                    bound = "at least %d" % low
                else:
                    bound = "at most %d" % high
                expected = low if given < low else high
                raise TypeError("%s() takes %s %s (%d given)"
                                % (qualified_name, bound, _plural(expected), given))
            converted = [
                convert(arg, "%s args parse failed: argument %d" % (qualified_name, position))
                for position, (convert, arg) in enumerate(zip(converters, args), 1)
            ]
            return body(*converted)

        return wrapper

    return decorate


def api(module, fmt, available=True):
    """Like parsed(), naming the function module.<name>; when the library lacks
    what the function needs (available is False) the result is UNAVAILABLE,
    which drop_unavailable() removes from the module."""
    def decorate(body):
        if not available:
            return UNAVAILABLE
        return parsed("%s.%s" % (module, body.__name__), fmt)(body)
    return decorate


def drop_unavailable(namespace):
    """Deletes the UNAVAILABLE placeholders from a module's globals."""
    for name in [n for n, v in namespace.items() if v is UNAVAILABLE]:
        del namespace[name]
