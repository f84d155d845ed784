#!/usr/bin/env python3
"""Renders a `make bench` results file (bench/results-<backend>.json) as the
Markdown tables of docs/performance.md, so that the page quotes a run
exactly: per-call rows, callback hops, bandwidth, scaling with live handles,
memory, runtime, compute, HCCL, Python and acl.cuda.

    python3 bench/tables.py RESULTS.json [SECTION ...]

SECTION names keys of the file (per_call, bandwidth, python, ...); all that
are present by default. Times are ns (median, p10-p90 in parentheses)."""
import json
import sys


def ns(stats):
    return "%.0f" % stats["median_ns"]


def spread(stats):
    return "%.0f (%.0f–%.0f)" % (stats["median_ns"], stats["p10_ns"], stats["p90_ns"])


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def versus(rows, first="name"):
    """Rows timed on both sides: acl-cuda, raw, ratio, diff."""
    out = []
    for r in rows:
        raw = r.get("cuda")
        diff = r.get("diff")
        out.append([r[first], spread(r["acl"]), spread(raw) if raw else "—",
                    "%.2f" % r["ratio"] if "ratio" in r else "—",
                    "%+.0f" % diff["median_ns"] if diff else "—"])
    return out


def per_call(data):
    return table(["operation", "acl-cuda", "raw CUDA", "ratio", "diff"], versus(data))


def callback_hops(data):
    return table(["hop", "acl-cuda", "raw CUDA", "ratio", "diff"], versus(data))


def bandwidth(data):
    rows = []
    for r in data:
        if r["bytes"] < 1 << 20:
            continue
        raw = "%.1f" % r["cuda_gbps"] if "cuda_gbps" in r else "—"
        ratio = "%.3f" % r["rate_ratio"] if "rate_ratio" in r else "—"
        rows.append(["%s %s" % (r["name"], r["mode"]), "%d MiB" % (r["bytes"] >> 20),
                     "%.1f" % r["acl_gbps"], raw, ratio])
    return table(["copy", "size", "acl-cuda GB/s", "raw GB/s", "rate ratio"], rows)


def scaling(data):
    rows = [[r["name"], r["live"], ns(r["acl"]), ns(r["cuda"]) if "cuda" in r else "—"]
            for r in data]
    return table(["operation", "live handles", "acl-cuda", "raw CUDA"], rows)


def pairs(section):
    """Rows of a section whose entries hold an acl side and maybe a raw one."""
    rows = []
    for name, value in section.items():
        if not isinstance(value, dict):
            continue
        sides = {k: v for k, v in value.items() if isinstance(v, dict) and "median_ns" in v}
        nested = {k: v for k, v in value.items() if isinstance(v, dict) and "median_ns" not in v}
        if sides:
            rows.append([name] + ["%s %s" % (k, spread(v)) for k, v in sides.items()])
        for sub, inner in nested.items():
            inner_sides = {k: v for k, v in inner.items() if isinstance(v, dict)}
            rows.append(["%s, %s" % (name, sub)] +
                        ["%s %s" % (k, spread(v)) for k, v in inner_sides.items()])
    width = max(len(r) for r in rows) if rows else 1
    return table(["row"] + ["side"] * (width - 1), [r + [""] * (width - len(r)) for r in rows])


def hccl(data):
    rows = []
    engine = data.get("engine", "raw")
    for group in ("latency", "bandwidth"):
        for r in data.get(group, []):
            raw = r.get(engine)
            rows.append([group, r["name"], r["mode"], r["bytes"], spread(r["acl"]),
                         spread(raw) if raw else "—", "%.2f" % r["ratio"]])
    return table(["kind", "collective", "mode", "bytes", "acl-cuda", engine, "ratio"], rows)


def python(data):
    per = data["per_call"]
    columns = [c for c in ("acl", "ctypes", "torch", "cuda-python") if c in per[0]["columns"]]
    ratios = [c for c in ("ctypes", "torch", "cuda-python") if c in per[0].get("acl_ratio", {})]
    rows = [[r["name"]] + [ns(r["columns"][c]) for c in columns] +
            ["%.2f" % r["acl_ratio"][c] for c in ratios] for r in per]
    return table(["operation"] + columns + ["acl / %s" % c for c in ratios], rows)


def python_interop(data):
    rows = []
    for r in data["rows"]:
        if "stats" in r:
            rows.append([r["name"], spread(r["stats"]), "< %d" % r["limit_ns"]])
        else:
            rows.append([r["name"], "%s / %s" % (ns(r["acl_memory"]), ns(r["torch_memory"])),
                         "%.2f (≤ %.2f)" % (r["ratio"], r["limit"])])
    return table(["conversion or copy", "ns (from ACL / torch memory)", "target"], rows)


RENDER = {"per_call": per_call, "callback_hops": callback_hops, "bandwidth": bandwidth,
          "scaling": scaling, "memory": pairs, "runtime": pairs, "compute": pairs,
          "hccl": hccl, "python": python, "python_interop": python_interop}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        results = json.load(f)
    for key in argv[2:] or [k for k in RENDER if k in results]:
        if key in results and results[key]:
            print("### %s\n\n%s\n" % (key, RENDER[key](results[key])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
