"""Argument checking with the rules and the error texts of pyACL.

pyACL is a C extension whose functions take positional arguments only and
parse them with PyArg_ParseTuple format strings. The same format letters
are used here so that every function accepts and rejects exactly what
pyACL does:

  k, K  int only (bool included, it is an int); the value is masked to
        64 bits, never an overflow error (a negative handle wraps around)
  i     anything with __index__, not float; out of int32 is an error
  I, H  anything with __index__, not float; masked to 32 / 16 bits
  l, L  anything with __index__, not float; out of int64 is an error
  f     a real number (float, int, or anything with __float__/__index__)
  s     str without NUL characters, passed on as UTF-8
  O     any object
  |     the arguments after it are optional

Arguments that do not parse raise; they are never turned into an error
code or a silent 0. What they raise is pyACL's, which depends on the
function (the error argument of parsed(), api(), ...):

  DEFAULT_ERROR    most pyACL functions replace whatever PyArg_ParseTuple
                   raised by TypeError("acl.rt.<name> args parse failed"),
                   for a wrong number of arguments, a wrong type or an
                   out-of-range value alike
  a str            the same with another text (pyACL's texts vary: a "!"
                   at the end, a misspelling, another function's name)
  CPYTHON_ERRORS   a few keep PyArg_ParseTuple's own exception, e.g.
                   TypeError("function takes exactly 2 arguments (0
                   given)") or OverflowError("signed integer is greater
                   than maximum")

The replacing TypeError carries PyArg_ParseTuple's exception as its
__cause__, so a traceback still tells which argument was wrong and why.
All of it is built on the error path only: a call whose arguments parse
costs the same whatever the function's error texts. A keyword argument is
refused with Python's own TypeError ("... got an unexpected keyword
argument ..."), which costs nothing per call (pyACL's text, "name() takes
no keyword arguments", would need a **kwargs dict on every call).

A function of no arguments is parsed with fmt None: like pyACL's, which
do not look at their arguments, it takes any number and ignores them.
"""

import ctypes
import functools
import operator

_U16 = (1 << 16) - 1
_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1
_I32 = (-(1 << 31), (1 << 31) - 1)
_I64 = (-(1 << 63), (1 << 63) - 1)

# The error argument of parsed(), api(), ...: see the module docstring.
DEFAULT_ERROR = "{name} args parse failed"
CPYTHON_ERRORS = None


class _Unavailable:
    """Marks a function whose C counterpart the loaded library lacks."""

    def __repr__(self):
        return "<unavailable in this libascendcl>"


UNAVAILABLE = _Unavailable()


class _BadArgument(Exception):
    """A conversion failed: error is the exception PyArg_ParseTuple raises,
    whose text the checker prefixes with "argument N " when positional."""

    def __init__(self, error, positional=False):
        super().__init__(error)
        self.error = error
        self.positional = positional


def type_name(value):
    """The tp_name of value's type, as CPython's messages show it: with the
    module for a type of an extension module (numpy.ndarray)."""
    kind = type(value)
    if kind.__flags__ & (1 << 9) or kind.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return kind.__name__
    return "%s.%s" % (kind.__module__, kind.__name__)


def _must_be(expected, value):
    # PyArg_ParseTuple's own text, which says "None" where others say "NoneType".
    found = "None" if value is None else type_name(value)
    return _BadArgument(TypeError("must be %s, not %s" % (expected, found)), positional=True)


def _to_index(value):
    if type(value) is int:
        return value
    if not isinstance(value, float):
        try:
            return operator.index(value)
        except TypeError:
            pass
    _raise(TypeError("'%s' object cannot be interpreted as an integer" % type_name(value)))


def _raise(error):
    raise _BadArgument(error)


def _conv_int(value):
    value = _to_index(value)
    if not _I64[0] <= value <= _I64[1]:
        _raise(OverflowError("Python int too large to convert to C long"))
    if value < _I32[0]:
        _raise(OverflowError("signed integer is less than minimum"))
    if value > _I32[1]:
        _raise(OverflowError("signed integer is greater than maximum"))
    return value


def _conv_long(value):
    value = _to_index(value)
    if not _I64[0] <= value <= _I64[1]:
        _raise(OverflowError("Python int too large to convert to C long"))
    return value


def _conv_unsigned_long(value):
    if type(value) is int or isinstance(value, int):
        return value & _U64
    raise _must_be("int", value)


def _conv_float(value):
    kind = type(value)
    if isinstance(value, (str, bytes, bytearray)) or not (
            hasattr(kind, "__float__") or hasattr(kind, "__index__")):
        _raise(TypeError("must be real number, not %s" % type_name(value)))
    if not hasattr(kind, "__float__"):
        return float(operator.index(value))
    return float(value)


def _conv_str(value):
    if not isinstance(value, str):
        raise _must_be("str", value)
    if "\0" in value:
        _raise(ValueError("embedded null character"))
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate
        _raise(exc)


_CONVERTERS = {
    "k": _conv_unsigned_long,
    "K": _conv_unsigned_long,
    "i": _conv_int,
    "I": lambda v: _to_index(v) & _U32,
    "H": lambda v: _to_index(v) & _U16,
    "l": _conv_long,
    "L": _conv_long,
    "f": _conv_float,
    "s": _conv_str,
    "O": lambda v: v,
}


def _plural(n):
    return "argument" if n == 1 else "arguments"


def _error_text(qualified_name, error):
    """The text of the TypeError a function raises for arguments that do
    not parse, or None when it raises PyArg_ParseTuple's own exception."""
    if error is CPYTHON_ERRORS:
        return None
    return error.format(name=qualified_name)


def _checker(qualified_name, fmt, error=DEFAULT_ERROR):
    """(letters, optional letters, check) for a format: check(args) converts a
    tuple of arguments per fmt, or raises what pyACL would (see the module
    docstring). It is the slow path of every wrapper, so messages are built
    only on failure."""
    required, _, optional = fmt.partition("|")
    letters = required + optional
    unknown = set(letters) - set(_CONVERTERS)
    if unknown:
        raise ValueError("unknown format letters %r" % "".join(sorted(unknown)))
    low, high = len(required), len(letters)
    converters = [_CONVERTERS[c] for c in letters]
    text = _error_text(qualified_name, error)

    def parse(args):
        """PyArg_ParseTuple: the converted arguments, or the exception it raises."""
        given = len(args)
        if not low <= given <= high:
            if low == high:
                bound = "exactly %d" % low
            elif given < low:
                bound = "at least %d" % low
            else:
                bound = "at most %d" % high
            expected = low if given < low else high
            return TypeError("function takes %s %s (%d given)" % (bound, _plural(expected), given))
        converted = []
        for position, (convert, value) in enumerate(zip(converters, args)):
            try:
                converted.append(convert(value))
            except _BadArgument as bad:
                if not bad.positional:
                    return bad.error
                return type(bad.error)("argument %d %s" % (position + 1, bad.error))
        return converted

    def check(args):
        converted = parse(args)
        if not isinstance(converted, BaseException):
            return converted
        if text is None:
            raise converted
        raise TypeError(text) from converted

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


def _ignoring_arguments(body):
    """The wrapper of a function that, as pyACL's, takes any positional
    arguments and ignores them (fmt None)."""
    def wrapper(*_ignored):
        return body()
    return functools.wraps(body)(wrapper)


def parsed(qualified_name, fmt, error=DEFAULT_ERROR):
    """Decorator: the wrapped body receives its arguments converted per fmt;
    error says what arguments that do not parse raise (module docstring).

    The wrapper takes positional arguments only, as METH_VARARGS functions do,
    and checks their number and types before the body runs. Calls are hot
    (record_event, memcpy_async in loops), so the wrapper is generated with
    one inline test per argument; anything else (another type, a wrong
    number of arguments) goes through the full check. With fmt None it
    takes any arguments and ignores them."""
    if fmt is None:
        return _ignoring_arguments
    letters, optional, check = _checker(qualified_name, fmt, error)
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


def foreign(qualified_name, fmt, function, out=None, error=DEFAULT_ERROR, sliced=None):
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
    does and calls again. error is as for parsed().

    With sliced, (slice_ms, busy): a wait in slices (no out then). The C
    function takes one more argument, slice_ms, and is called again while
    it returns a code in busy; a pending signal's handler runs between two
    calls. A wait that ends in its first slice (an idle stream) costs one
    call and one test."""
    letters, optional, check = _checker(qualified_name, fmt, error)
    if sliced is not None and out is not None:
        raise ValueError("foreign() takes out or sliced, not both")
    if optional or not set(letters) <= set("kKiI"):
        # Other letters have no fast path, or (O) could make ctypes refuse
        # an argument with ArgumentError instead of TypeError.
        raise ValueError("foreign() takes formats of k, K, i and I only, not %r" % fmt)
    fast = _fast_path(letters, "kK")

    def slow(*args):
        converted = check(_given(*args))
        if sliced is not None:
            ret = function(*converted, sliced[0])
            while ret and ret in sliced[1]:
                ret = function(*converted, sliced[0])
            return ret
        if out is None:
            return function(*converted)
        value = out()
        ret = function(*converted, value)
        return (0 if ret else value.value), ret

    def decorate(body):
        test, values = fast
        scope = {"_function": function, "_slow": slow, "_ArgumentError": ctypes.ArgumentError}
        if sliced is not None:
            # The slice loop is inline: a helper called here was most of
            # the wrapper's cost on an idle stream (callgrind, #31). The
            # slice parameter is declared _lib._FastInt, which passes an
            # int as it is: a c_int32 converted from an int per call cost
            # ~110 ns, and a c_int32 made once still ~50 ns (host).
            scope.update(_slice=sliced[0], _busy=tuple(sliced[1]))
            call = "_function(%s)" % ", ".join(filter(None, [values, "_slice"]))
            lines = ["if %s:" % test,
                     "    try:",
                     "        ret = %s" % call,
                     "    except _ArgumentError:",
                     "        pass",
                     "    else:",
                     "        while ret and ret in _busy:",
                     "            ret = %s" % call,
                     "        return ret"]
        elif out is None:
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


def api(module, fmt, available=True, error=DEFAULT_ERROR):
    """Like parsed(), naming the function module.<name>; when the library lacks
    what the function needs (available is False) the result is UNAVAILABLE,
    which drop_unavailable() removes from the module."""
    def decorate(body):
        if not available:
            return UNAVAILABLE
        return parsed("%s.%s" % (module, body.__name__), fmt, error)(body)
    return decorate


def foreign_api(module, fmt, function, out=None, error=DEFAULT_ERROR, sliced=None):
    """Like foreign(), naming the function module.<name>; function is None
    when the library lacks it, and the result is UNAVAILABLE then."""
    def decorate(body):
        if function is None:
            return UNAVAILABLE
        return foreign("%s.%s" % (module, body.__name__), fmt, function, out, error,
                       sliced)(body)
    return decorate


def drop_unavailable(namespace):
    """Deletes the UNAVAILABLE placeholders from a module's globals."""
    for name in [n for n, v in namespace.items() if v is UNAVAILABLE]:
        del namespace[name]
