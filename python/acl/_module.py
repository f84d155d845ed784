"""How a public module of the package is put together from private areas.

A public module (acl.rt; acl.mdl and acl.media when they come) holds no code
of its own: each area of it (devices, streams, memory, ...) is a private
module, and the public module names its areas once::

    from ._module import publish as _publish
    from ._rt import device as _device, stream as _stream
    _publish(globals(), _device, _stream)

An area module ends with ``__all__ = exported(globals())``: its public
functions, less those the loaded library cannot back. publish() binds those
very function objects in the public module (so a call costs what it cost
before: no layer in between) and names that module as theirs, which is
what help(), pickle and repr show.
"""

from ._parse import drop_unavailable


def exported(namespace):
    """The public functions an area module defines, sorted by name, after
    removing those whose C functions the library lacks (see _parse.api)."""
    drop_unavailable(namespace)
    module = namespace["__name__"]
    return sorted(name for name, value in namespace.items()
                  if not name.startswith("_") and callable(value)
                  and getattr(value, "__module__", None) == module)


def publish(namespace, *areas):
    """Binds every name of each area's __all__ in namespace, the globals of
    a public module, and sets that module's __all__. Two areas may not
    export the same name."""
    public = namespace["__name__"]
    names = []
    for area in areas:
        for name in area.__all__:
            if name in namespace:
                raise ImportError("%s.%s is exported by %s and by another area"
                                  % (public, name, area.__name__))
            function = getattr(area, name)
            function.__module__ = public
            namespace[name] = function
            names.append(name)
    namespace["__all__"] = sorted(names)
