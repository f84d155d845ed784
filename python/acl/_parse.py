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


class _BadArgument(Exception):
    """A conversion failed; the wrapper names the function and position."""

    def __init__(self, exc_type, detail):
        super().__init__(detail)
        self.exc_type = exc_type
        self.detail = detail


def _wrong_type(expected, value):
    return _BadArgument(TypeError, " must be %s, not %s" % (expected, type(value).__name__))


def _to_index(value):
    if type(value) is int:
        return value
    if isinstance(value, float):
        raise _wrong_type("int", value)
    try:
        return operator.index(value)
    except TypeError:
        raise _wrong_type("int", value) from None


def _in_range(value, bounds):
    low, high = bounds
    if value < low:
        raise _BadArgument(OverflowError, ": signed integer is less than minimum")
    if value > high:
        raise _BadArgument(OverflowError, ": signed integer is greater than maximum")
    return value


def _conv_unsigned_long(value):
    if type(value) is int or isinstance(value, int):
        return value & _U64
    raise _wrong_type("int", value)


def _conv_float(value):
    kind = type(value)
    if isinstance(value, (str, bytes, bytearray)) or not (
            hasattr(kind, "__float__") or hasattr(kind, "__index__")):
        raise _wrong_type("a real number", value)
    if not hasattr(kind, "__float__"):
        return float(operator.index(value))
    return float(value)


def _conv_str(value):
    if not isinstance(value, str):
        raise _wrong_type("str", value)
    if "\0" in value:
        raise _BadArgument(ValueError, ": embedded null character")
    return value.encode("utf-8")


_CONVERTERS = {
    "k": _conv_unsigned_long,
    "K": _conv_unsigned_long,
    "i": lambda v: _in_range(_to_index(v), _I32),
    "I": lambda v: _to_index(v) & _U32,
    "H": lambda v: _to_index(v) & _U16,
    "l": lambda v: _in_range(_to_index(v), _I64),
    "f": _conv_float,
    "s": _conv_str,
    "O": lambda v: v,
}


def _plural(n):
    return "argument" if n == 1 else "arguments"


# Per letter: the test that lets a plain int through untouched (or with a
# mask), as source text; anything else goes through the full converter.
_FAST_PATHS = {
    "k": ("type(a{n}) is int", "a{n} & 0xFFFFFFFFFFFFFFFF"),
    "K": ("type(a{n}) is int", "a{n} & 0xFFFFFFFFFFFFFFFF"),
    "i": ("type(a{n}) is int and -2147483648 <= a{n} <= 2147483647", "a{n}"),
    "I": ("type(a{n}) is int", "a{n} & 0xFFFFFFFF"),
    "O": ("True", "a{n}"),
}


def parsed(qualified_name, fmt):
    """Decorator: the wrapped body receives its arguments converted per fmt.

    The wrapper takes positional arguments only, as METH_VARARGS functions do,
    and checks their number and types before the body runs. Calls are hot
    (record_event, memcpy_async in loops), so for formats without optional
    arguments the wrapper is generated with one inline test per argument and
    builds error messages only when a check fails."""
    required, _, optional = fmt.partition("|")
    letters = required + optional
    unknown = set(letters) - set(_CONVERTERS)
    if unknown:
        raise ValueError("unknown format letters %r" % "".join(sorted(unknown)))
    low, high = len(required), len(letters)
    converters = [_CONVERTERS[c] for c in letters]

    def refuse(args, kwargs):
        if kwargs:
            raise TypeError("%s() takes no keyword arguments" % qualified_name)
        given = len(args)
        if low == high:
            bound = "exactly %d" % low
        elif given < low:
            bound = "at least %d" % low
        else:
            bound = "at most %d" % high
        expected = low if given < low else high
        raise TypeError("%s() takes %s %s (%d given)"
                        % (qualified_name, bound, _plural(expected), given))

    def convert(position, value):
        try:
            return converters[position](value)
        except _BadArgument as bad:
            raise bad.exc_type("%s args parse failed: argument %d%s"
                               % (qualified_name, position + 1, bad.detail)) from None

    def decorate(body):
        if optional:
            def wrapper(*args, **kwargs):
                if kwargs or not low <= len(args) <= high:
                    refuse(args, kwargs)
                return body(*[convert(n, arg) for n, arg in enumerate(args)])
        else:
            names = ["a%d" % n for n in range(high)]
            lines = ["def wrapper(*args, **kwargs):",
                     "    if kwargs or len(args) != %d:" % high,
                     "        refuse(args, kwargs)"]
            if names:
                lines.append("    %s, = args" % ", ".join(names))
            converted = []
            for n, letter in enumerate(letters):
                test, value = _FAST_PATHS.get(letter, ("False", "a{n}"))
                lines.append("    a{n} = {value} if {test} else convert({n}, a{n})".format(
                    n=n, test=test.format(n=n), value=value.format(n=n)))
                converted.append("a%d" % n)
            lines.append("    return body(%s)" % ", ".join(converted))
            scope = {"refuse": refuse, "convert": convert, "body": body}
            exec("\n".join(lines), scope)
            wrapper = scope["wrapper"]
        return functools.wraps(body)(wrapper)

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
