#!/usr/bin/env python3
"""Checks the include graph of src/ against the layers of docs/hacking.md.

    api (src/api) -> core (src/core) -> backend (src/backend) -> util (src/util)

A file may include headers of its own layer and of the layers below it,
never above; the two backends (src/backend/host, src/backend/cuda) do not
include each other. Inside the core, captures and models (core/graph*.h)
sit on top: only core/graph*.c and the API layer include their headers, the
rest of the core reaching a capture through a stream's sink (core/sink.h).
The public headers (acl/, base/, mstx/), config.h and system headers are
open to every layer. Prints each violation and exits 1 if there
is one; --self-test also checks that a planted upward include is caught.
"""
import pathlib
import re
import sys

# Public header folders (include/): open to every layer.
PUBLIC = ("acl/", "base/", "mstx/")

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ["util", "backend", "core", "api"]  # bottom to top
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer of a path relative to src/, or None when it has none."""
    first = path.split("/", 1)[0]
    return first if first in LAYERS else None


def backend_of(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "backend" else None


CLIENT = "hccl"  # src/hccl: libhccl
# The top of the core: captures and models, which the rest of the core
# does not name (docs/hacking.md, "The one submission path").
GRAPH = re.compile(r"core/graph[a-z_]*\.h$")


def violations(files):
    """files: {path relative to src/: text}. Yields one message per bad include."""
    for path, text in sorted(files.items()):
        if path.split("/", 1)[0] == CLIENT:
            for target in INCLUDE.findall(text):
                if target != "config.h" and not target.startswith(("acl/", CLIENT + "/")):
                    yield (f"src/{path} includes \"{target}\": libhccl is a client of libascendcl "
                           "and includes public headers (acl/, hccl/), config.h and src/hccl only")
            continue
        mine = layer_of(path)
        if mine is None:
            yield f"src/{path}: not in a layer folder ({', '.join(LAYERS)})"
            continue
        for target in INCLUDE.findall(text):
            if target == "config.h" or target.startswith(PUBLIC):
                continue
            if "/" not in target:
                if (ROOT / "src" / path).parent.joinpath(target).exists():
                    continue  # a file beside the includer (the .def tables)
                yield f"src/{path}: includes \"{target}\", which is not a layered path"
                continue
            theirs = layer_of(target)
            if theirs is None:
                yield f"src/{path}: includes \"{target}\", which is in no layer"
            elif LAYERS.index(theirs) > LAYERS.index(mine):
                yield f"src/{path} ({mine}) includes \"{target}\" ({theirs}): an upward include"
            elif backend_of(path) and backend_of(target) and backend_of(path) != backend_of(target):
                yield f"src/{path} includes \"{target}\": one backend must not use the other"
            elif (mine == "core" and GRAPH.search(target)
                  and not path.split("/")[-1].startswith("graph")):
                yield (f"src/{path} includes \"{target}\": below captures and models, the core "
                       "reaches them only through a stream's sink (core/sink.h)")


def load():
    src = ROOT / "src"
    return {str(p.relative_to(src)): p.read_text() for p in src.rglob("*")
            if p.suffix in (".c", ".h", ".cc")}


def main():
    files = load()
    bad = list(violations(files))
    if "--self-test" in sys.argv:
        planted = dict(files)
        planted["util/log.c"] = planted["util/log.c"] + '\n#include "core/errors.h"\n'
        caught = list(violations(planted))
        if not any("util/log.c" in v and "upward" in v for v in caught):
            bad.append("self-test: a planted upward include (util/log.c -> core/errors.h) was not caught")
        planted = dict(files)
        planted["hccl/api.c"] = planted.get("hccl/api.c", "") + '\n#include "core/stream.h"\n'
        caught = list(violations(planted))
        if not any("hccl/api.c" in v and "client" in v for v in caught):
            bad.append("self-test: libhccl including libascendcl's internals (core/stream.h) was not caught")
        planted = dict(files)
        planted["core/stream.c"] = planted["core/stream.c"] + '\n#include "core/graph.h"\n'
        caught = list(violations(planted))
        if not any("core/stream.c" in v and "sink" in v for v in caught):
            bad.append("self-test: the core's stream.c including core/graph.h was not caught")
    for line in bad:
        print(line)
    print(f"layers: {len(files)} files, {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
