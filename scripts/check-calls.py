#!/usr/bin/env python3
"""Checks the file-level call graph of src/ for loops, from the built objects.

    check-calls.py [--self-test] [BUILDDIR]

Reads the libtool objects of BUILDDIR (default: $ACLCUDA_TEST_BUILDDIR, else
_build beside scripts/) with nm: for each source file, the global functions
its object defines and the symbols it leaves undefined. A file calls another
when it references a function the other defines in the same library. The
strongly connected components of more than one file are the loops. Rules:
no loop holds a file of src/backend (each backend's files call one way), and
no loop joins a core/graph* file and a core file outside them (captures and
models sit on top of the rest of the core, which reaches them only through a
stream's sink: docs/hacking.md, "The one submission path"). Each violating
loop is printed with one referenced symbol per edge, other loops (the core's
below captures, and the one among the capture and model files) as
information; exits 1 on a violation, or when no objects are found.
--self-test also checks that a planted backward call is caught in each
backend built and between the core and its captures.
"""
import collections
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# nm's letters for functions: text, weak, indirect (ifunc).
FUNCTION = frozenset("TWi")
UNDEFINED = frozenset("Uw")
OBJECT = re.compile(r"^(pic_object|non_pic_object)='([^']*)'", re.M)


def objects(builddir):
    """{source path relative to src/: (library, object path)} from the .lo files."""
    found = {}
    for lo in sorted(builddir.joinpath("src").rglob("*.lo")):
        names = dict(OBJECT.findall(lo.read_text()))
        obj = names.get("pic_object", "none")
        if obj == "none":
            obj = names.get("non_pic_object", "none")
        if obj == "none":
            continue
        library, _, stem = lo.stem.rpartition("-")  # libascendcl_la-device
        folder = lo.parent.relative_to(builddir / "src")
        sources = [p for p in (ROOT / "src" / folder).glob(stem + ".*") if p.suffix in (".c", ".cc", ".S")]
        if sources and (lo.parent / obj).exists():  # else left behind by a removed source
            found[str(folder / sources[0].name)] = (library, lo.parent / obj)
    return found


def symbols(found):
    """{source: (library, functions defined, symbols referenced)}, one nm for all."""
    by_object = {str(obj): src for src, (_, obj) in found.items()}
    defs = collections.defaultdict(set)
    refs = collections.defaultdict(set)
    out = subprocess.run(["nm", "-P", "-A"] + sorted(by_object), check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        obj, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2 or obj not in by_object:
            continue
        src = by_object[obj]
        if fields[1] in FUNCTION:
            defs[src].add(fields[0])
        elif fields[1] in UNDEFINED:
            refs[src].add(fields[0])
    return {src: (lib, defs[src], refs[src]) for src, (lib, _) in found.items()}


def edges(table):
    """{caller: {callee: one symbol}} between different files of one library.
    A function defined in several files (a weak inline copy) is nobody's."""
    definer = {}
    for src, (lib, defs, _) in table.items():
        for name in defs:
            definer[(lib, name)] = None if (lib, name) in definer else src
    graph = {src: {} for src in table}
    for src, (lib, _, refs) in table.items():
        for name in sorted(refs):
            callee = definer.get((lib, name))
            if callee and callee != src:
                graph[src].setdefault(callee, name)
    return graph


def components(graph):
    """Tarjan's strongly connected components, iteratively; those of 2+ files."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return sorted(found)


def is_graph(path):
    """A file of the core's captures and models."""
    return re.match(r"core/graph[a-z_]*\.c$", path) is not None


def rule_broken(members):
    """Why a loop of these files is not allowed, or None."""
    if any(m.startswith("backend/") for m in members):
        return "a loop in a backend: its files must call one way"
    if any(map(is_graph, members)) and not all(map(is_graph, members)):
        return "a loop through captures and models: the core below them reaches them through a sink"
    return None


def report(graph):
    """(violations, information): one text per loop, its edges with a symbol each."""
    bad, info = [], []
    for members in components(graph):
        inside = set(members)
        lines = [f"  src/{a} -> src/{b} ({graph[a][b]})"
                 for a in members for b in sorted(graph[a]) if b in inside]
        why = rule_broken(members)
        allowed = " (allowed: among captures and models)" if all(map(is_graph, members)) else " (allowed)"
        head = f"loop of {len(members)} files" + (f", {why}" if why else allowed)
        (bad if why else info).append("\n".join([head + ":"] + lines))
    return bad, info


def planted(table, caller, callee):
    """The table with caller referencing a function of callee."""
    lib, defs, refs = table[caller]
    copy = dict(table)
    copy[caller] = (lib, defs, refs | {sorted(table[callee][1])[0]})
    return copy


def self_test(table, graph):
    """Plants a call back along an existing edge of each checked part; all caught?"""
    failures = []
    host, cuda = (lambda p: p.startswith("backend/host/")), (lambda p: p.startswith("backend/cuda/"))
    parts = (("backend/host", host, host), ("backend/cuda", cuda, cuda),
             ("core", is_graph, lambda p: p.startswith("core/") and not is_graph(p)))
    for part, is_caller, is_callee in parts:
        pair = next(((a, b) for a in sorted(graph) if is_caller(a)
                     for b in sorted(graph[a]) if is_callee(b) and table[a][1]), None)
        if pair is None:
            if part != "backend/cuda":  # the CUDA backend is built only with the toolkit
                failures.append(f"self-test: no call in src/{part} to plant a loop on")
            continue
        a, b = pair
        bad, _ = report(edges(planted(table, b, a)))
        if not any(f"src/{b} -> src/{a}" in v for v in bad):
            failures.append(f"self-test: a planted call src/{b} -> src/{a} was not caught")
    return failures


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    builddir = pathlib.Path(args[0] if args else os.environ.get("ACLCUDA_TEST_BUILDDIR", ROOT / "_build"))
    found = objects(builddir)
    if not found:
        print(f"calls: no libtool objects under {builddir}/src: build the library first")
        return 1
    table = symbols(found)
    graph = edges(table)
    bad, info = report(graph)
    if "--self-test" in sys.argv:
        bad += self_test(table, graph)
    for text in info + bad:
        print(text)
    built = ", ".join(b for b in ("host", "cuda") if any(s.startswith(f"backend/{b}/") for s in table))
    print(f"calls: {len(table)} files (backends: {built}), "
          f"{len(info)} allowed loop(s), {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
