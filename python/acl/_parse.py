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
CPython does); it is never turned into an error code or a silent 0. A
keyword argument is refused with Python's own TypeError ("... got an
unexpected keyword argument ..."), which costs nothing per call.
"""

import ctypes
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


def _checker(qualified_name, fmt):
    """(letters, optional letters, check) for a format: check(args) converts a
    tuple of arguments per fmt, or raises what PyArg_ParseTuple would. It is
    the slow path of every wrapper, so messages are built only on failure."""
    required, _, optional = fmt.partition("|")
    letters = required + optional
    unknown = set(letters) - set(_CONVERTERS)
    if unknown:
        raise ValueError("unknown format letters %r" % "".join(sorted(unknown)))
    low, high = len(required), len(letters)
    converters = [_CONVERTERS[c] for c in letters]

    def check(args):
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
        converted = []
        for position, (convert, value) in enumerate(zip(converters, args)):
            try:
                converted.append(convert(value))
            except _BadArgument as bad:
                raise bad.exc_type("%s args parse failed: argument %d%s"
                                   % (qualified_name, position + 1, bad.detail)) from None
        return converted

    return letters, optional, check


# Marks a parameter the caller left out: the generated wrappers declare each
# one with this default, so that a call with too few arguments reaches the
# slow path (and its pyACL message) instead of Python's own message.
_MISSING = object()

# Per letter: the test that lets a plain int through, and what is passed on
# then (masked where the letter masks), as source text; None for "any
# object". Other letters have no fast path.
_FAST_PATHS = {
    "k": ("type(a{n}) is int", "a{n} & 0xFFFFFFFFFFFFFFFF"),
    "K": ("type(a{n}) is int", "a{n} & 0xFFFFFFFFFFFFFFFF"),
    "i": ("type(a{n}) is int and -2147483648 <= a{n} <= 2147483647", "a{n}"),
    "I": ("type(a{n}) is int", "a{n} & 0xFFFFFFFF"),
    "O": (None, "a{n}"),
}


def _fast_path(letters, unmasked):
    """(test, values): the source of the test that every argument is given
    and passes its letter's fast test, and of the arguments passed on then
    (letters in unmasked as given: ctypes masks or refuses them itself).
    None when a letter has no fast path."""
    tests, values = [], []
    for n, letter in enumerate(letters):
        if letter not in _FAST_PATHS:
            return None
        test, value = _FAST_PATHS[letter]
        if test is None and n == len(letters) - 1:
            # Any object passes, but the last one must be given (the
            # earlier ones are whenever it is).
            test = "a{n} is not _MISSING"
        if test:
            tests.append(test.format(n=n))
        values.append(("a{n}" if letter in unmasked else value).format(n=n))
    tests.append("not extra")
    return " and ".join(tests), ", ".join(values)


def _generate(name, letters, source_lines, scope):
    """Defines name(a0=_MISSING, ..., /, *extra) with the given body lines,
    which see the names of scope (all starting with "_").

    Positional-only parameters with defaults make the call as cheap as a
    Python call gets (no argument tuple or keyword dict is built); Python
    itself refuses a keyword argument, with a TypeError."""
    if name in scope or name == "_MISSING":
        raise ValueError("cannot generate a wrapper named %r" % name)
    parameters = ["a%d=_MISSING" % n for n in range(len(letters))]
    if parameters:
        parameters.append("/")
    header = "def %s(%s):" % (name, ", ".join(parameters + ["*extra"]))
    scope = dict(scope, _MISSING=_MISSING)
    exec("\n".join([header] + ["    " + line for line in source_lines]), scope)
    return scope[name]


def _parameters(letters):
    """The source of all a generated wrapper's parameters, as call arguments."""
    return "".join("a%d, " % n for n in range(len(letters))) + "*extra"


def _given(*args):
    """The arguments a generated wrapper was called with, from its parameters."""
    return tuple(arg for arg in args if arg is not _MISSING)


def parsed(qualified_name, fmt):
    """Decorator: the wrapped body receives its arguments converted per fmt.

    The wrapper takes positional arguments only, as METH_VARARGS functions do,
    and checks their number and types before the body runs. Calls are hot
    (record_event, memcpy_async in loops), so the wrapper is generated with
    one inline test per argument; anything else (another type, a wrong
    number of arguments) goes through the full check."""
    letters, optional, check = _checker(qualified_name, fmt)
    # Optional arguments have no fast path: no caller of those is hot.
    fast = None if optional else _fast_path(letters, "")

    def decorate(body):
        # Both paths call the body from the wrapper itself, so that the
        # caller is always two frames up from the body (app_log and the
        # deprecation warnings rely on it).
        lines = ["return _body(*_check(_given(%s)))" % _parameters(letters)]
        if fast:
            lines[:0] = ["if %s:" % fast[0], "    return _body(%s)" % fast[1]]
        wrapper = _generate(body.__name__, letters, lines,
                            {"_body": body, "_check": check, "_given": _given})
        return functools.wraps(body)(wrapper)

    return decorate


def foreign(qualified_name, fmt, function, out=None):
    """Decorator for a function that only passes its arguments on to the C
    function `function` (a ctypes function with argtypes): the wrapper checks
    them per fmt and calls it directly, with no Python body in between. The
    decorated def gives the signature and docstring; its body is not run.

    With out (a ctypes type), the C function takes one more argument, a
    pointer to a value of that type, and the result is (value, ret); value
    is 0 when ret is not (the fast path reuses values, which may hold what
    an earlier call wrote).

    On the fast path "k" and "K" arguments are passed on unmasked: ctypes
    masks them to the 64 bits of an integer parameter itself, and a pointer
    parameter refuses what does not fit with ArgumentError, before the C
    function is called; the slow path then masks them as PyArg_ParseTuple
    does and calls again."""
    letters, optional, check = _checker(qualified_name, fmt)
    if optional or not set(letters) <= set("kKiI"):
        # Other letters have no fast path, or (O) could make ctypes refuse
        # an argument with ArgumentError instead of TypeError.
        raise ValueError("foreign() takes formats of k, K, i and I only, not %r" % fmt)
    fast = _fast_path(letters, "kK")

    def slow(*args):
        converted = check(_given(*args))
        if out is None:
            return function(*converted)
        value = out()
        ret = function(*converted, value)
        return (0 if ret else value.value), ret

    def decorate(body):
        test, values = fast
        scope = {"_function": function, "_slow": slow, "_ArgumentError": ctypes.ArgumentError}
        if out is None:
            lines = ["if %s:" % test,
                     "    try:",
                     "        return _function(%s)" % values,
                     "    except _ArgumentError:",
                     "        pass"]
        else:
            # Making a value per call costs about 100 ns, so values are
            # reused through a pool, each call owning the one it took until
            # it has read it. One value shared would be written by other
            # threads in the C function (the GIL is released there), or,
            # were the GIL held through the call, by one that runs between
            # its return and the read; one per thread, by a signal handler
            # or finalizer that runs there and calls the same function. The
            # pool holds as many values as calls were ever in flight at once.
            pool = []
            scope.update(_out=out, _take=pool.pop, _give=pool.append)
            lines = ["if %s:" % test,
                     "    try:",
                     "        value = _take()",
                     "    except IndexError:",
                     "        value = _out()",
                     "    try:",
                     "        ret = _function(%s)" % ", ".join(filter(None, [values, "value"])),
                     "        return (0 if ret else value.value), ret",
                     "    except _ArgumentError:",
                     "        pass",
                     "    finally:",
                     "        _give(value)"]
        lines.append("return _slow(%s)" % _parameters(letters))
        wrapper = _generate(body.__name__, letters, lines, scope)
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


def foreign_api(module, fmt, function, out=None):
    """Like foreign(), naming the function module.<name>; function is None
    when the library lacks it, and the result is UNAVAILABLE then."""
    def decorate(body):
        if function is None:
            return UNAVAILABLE
        return foreign("%s.%s" % (module, body.__name__), fmt, function, out)(body)
    return decorate


def drop_unavailable(namespace):
    """Deletes the UNAVAILABLE placeholders from a module's globals."""
    for name in [n for n, v in namespace.items() if v is UNAVAILABLE]:
        del namespace[name]
