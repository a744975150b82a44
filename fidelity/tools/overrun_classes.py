"""How late each task of a run ended, by what its worker's process was doing when it ended.

A task's overrun is its measured length (end - start) less its graph duration. A dask worker's
task thread that ends (its sleep returns) must take the process's GIL back; while the process
holds it in a copy that does not let go — a received message's deserialisation (`from_frames`,
`_deserialize_bytes`: `b"".join` over memoryview frames), or a spilled value's read
(`SpillBuffer` → `deserialize_bytes`, the same join) — the thread waits for CPython's switch
interval and the end of the copy. This tool classifies every task by where its end falls on its
worker, first match wins:

  recv-deser   the last bytes × DESER s of a transfer into the worker (its deserialisation)
  spill-deser  the last bytes × DESER s of a spilled value's read before a task's start
  recv-wire    the rest of a transfer into the worker (the wire, read by the loop)
  spill-file   the rest of such a read (the file read: the GIL is let go)
  send         a transfer out of the worker
  none         anything else

Spilled reads are not in dask's raw runs; they are inferred: a task whose dependency of ≥ 10 MB
was computed on the same worker ≥ OLD s before it started (in the spill case: the consumes, which
read the produces back after the barrier; a summary right after its produce finds it in memory)
read it, if it was spilled, in [start - bytes / READ, start]
(dask 2022.12.1 reads the arguments in `_prepare_args_for_execution`, on the loop, just before
the task starts). Only runs that read spilled data get such windows; values that were not spilled
make windows too, so the spill-* classes are an upper bound on the tasks they name. DESER = 0.731 ns per byte (deserializeBandwidth, 1.37 GB/s,
docs/sim.md "Network"), READ = 740 MB/s (the disk's read rate alone, docs/sim.md "Disk").

Inputs: a dask raw file (fidelity/*/real/raw/CASE.json, every run) or a spanwork report
(`spanwork run SPEC --cluster P --json FILE`; its taskRecords and transfers), and the graph dask
ran (fidelity/*/graphs/CASE.json) for the durations and dependencies.

    python3 fidelity/tools/overrun_classes.py RAW_OR_REPORT GRAPH [--label L] [--json OUT] [--rule [SECONDS]]

--rule (dask raw runs): for every task whose own end (start + duration) falls in a receive's
deserialisation window on its worker, its measured lateness beside what spanwork's rule gives
(docs/sim.md, "Task threads wait for the lock"): min(window end, the end of the value being
joined once it has waited SECONDS, default 0.005), the message's values taken as equal.
"""
import argparse
import bisect
import json
import statistics as st

DESER = 0.731e-9
READ = 740e6
BIG = 10e6
OLD = 1.0
CLASSES = ["recv-deser", "spill-deser", "recv-wire", "spill-file", "send", "none"]


class Windows:
    """Closed intervals per worker, found by point in O(log n)."""

    def __init__(self):
        self.by = {}

    def add(self, worker, a, b):
        if b >= a:
            self.by.setdefault(worker, []).append((a, b))

    def done(self):
        for w, xs in self.by.items():
            xs.sort()
            self.by[w] = (xs, [a for a, _ in xs], max((b - a for a, b in xs), default=0))

    def contains(self, worker, t, slack=0.0):
        entry = self.by.get(worker)
        if entry is None:
            return False
        xs, starts, longest = entry
        i = bisect.bisect_right(starts, t)
        j = i - 1
        while j >= 0 and starts[j] >= t - longest - slack:
            a, b = xs[j]
            if a <= t <= b + slack:
                return True
            j -= 1
        return False


def runs_of(data):
    """(label, task records, transfers, whether it is a dask raw run, whether it read spilled data) per run."""
    if "runs" in data:  # dask raw: workers are 0/1 in the records, addresses in the transfers
        for r in data["runs"]:
            yield f"dask run {r['run']} {r['makespan']:.3f}s", r["task_records"], r["transfers"], True, r["spill"]["count_read"] > 0
    else:
        yield f"spanwork {data['makespan']:.3f}s", data["taskRecords"], data["transfers"], False, data["spill"]["countRead"] > 0


def address_map(recs, xs):
    """dask raw: which address is worker 0 — the mapping under which most tasks start on a
    transfer's receiver within 0.3 s of its end (tasks wait for their fetched inputs)."""
    addrs = sorted({x["to"] for x in xs} | {x["from"] for x in xs})
    if len(addrs) != 2:
        return {a: i for i, a in enumerate(addrs)}
    starts = {0: sorted(t["start"] for t in recs if t["worker"] == 0), 1: sorted(t["start"] for t in recs if t["worker"] == 1)}
    best = None
    for m in ((0, 1), (1, 0)):
        amap = {addrs[0]: m[0], addrs[1]: m[1]}
        score = 0
        for x in xs:
            e = x["start"] + x["duration"]
            s = starts[amap[x["to"]]]
            score += bisect.bisect_right(s, e + 0.3) - bisect.bisect_left(s, e)
        if best is None or score > best[0]:
            best = (score, amap)
    return best[1]


def classify(recs, xs, graph, raw, spilled):
    tasks = {t["key"]: t for t in graph["tasks"]}
    if raw:
        amap = address_map(recs, xs)
        worker = lambda t: t["worker"]  # noqa: E731
        transfers = [(amap[x["from"]], amap[x["to"]], x["start"], x["start"] + x["duration"], x["bytes"]) for x in xs]
    else:
        ids = {}
        worker = lambda t: ids.setdefault(t["worker"], len(ids))  # noqa: E731
        transfers = [(ids.setdefault(x["from"], len(ids)), ids.setdefault(x["to"], len(ids)), x["start"], x["end"], x["bytes"]) for x in xs if x["outcome"] == "ok"]
    recv_deser, recv_wire, send, spill_deser, spill_file = Windows(), Windows(), Windows(), Windows(), Windows()
    for frm, to, a, b, nbytes in transfers:
        d = min(b - a, nbytes * DESER)
        recv_deser.add(to, b - d, b)
        recv_wire.add(to, a, b - d)
        send.add(frm, a, b)
    where = {t["key"]: worker(t) for t in recs}
    ended = {t["key"]: t["end"] for t in recs}
    for t in recs if spilled else ():
        w = where[t["key"]]
        for dep in tasks[t["key"]]["deps"]:
            nbytes = tasks[dep]["nbytes"]
            if nbytes >= BIG and where.get(dep) == w and t["start"] - ended[dep] >= OLD:
                s = t["start"]
                read, d = nbytes / READ, nbytes * DESER
                spill_deser.add(w, s - d, s)
                spill_file.add(w, s - read, s - d)
    for ws in (recv_deser, recv_wire, send, spill_deser, spill_file):
        ws.done()
    out = {c: [] for c in CLASSES}
    for t in recs:
        over = (t["end"] - t["start"]) - tasks[t["key"]]["duration"]
        w, e = where[t["key"]], t["end"]
        if recv_deser.contains(w, e, 0.0005):
            c = "recv-deser"
        elif spill_deser.contains(w, e, 0.0005):
            c = "spill-deser"
        elif recv_wire.contains(w, e):
            c = "recv-wire"
        elif spill_file.contains(w, e):
            c = "spill-file"
        elif send.contains(w, e):
            c = "send"
        else:
            c = "none"
        out[c].append(over)
    return out


def rule(recs, xs, graph, interval):
    """(measured, predicted) lateness of the tasks whose nominal end falls in a deserialisation window."""
    dur = {t["key"]: t["duration"] for t in graph["tasks"]}
    amap = address_map(recs, xs)
    rows = []
    for x in xs:
        b = x["start"] + x["duration"]
        d = x["bytes"] * DESER
        a, to, per = b - d, amap[x["to"]], d / max(1, x["keys"])
        for t in recs:
            if t["worker"] != to:
                continue
            w = t["start"] + dur[t["key"]]
            if not a <= w < b:
                continue
            asked = w + interval
            if asked >= b:
                predicted = b - w
            else:
                values = -(-(asked - a) // per) if per > 0 else 0
                predicted = min(b, a + values * per) - w
            rows.append((t["end"] - w, predicted))
    return rows


def summary(values):
    if not values:
        return {"n": 0}
    v = sorted(values)
    return {"n": len(v), "mean_ms": 1e3 * st.mean(v), "median_ms": 1e3 * st.median(v), "p90_ms": 1e3 * v[int(0.9 * len(v))], "max_ms": 1e3 * v[-1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", help="a dask raw file or a spanwork JSON report")
    parser.add_argument("graph", help="the graph dask ran")
    parser.add_argument("--label", default=None)
    parser.add_argument("--json", help="append {label, runs: [{run, classes}]} as a JSON line here")
    parser.add_argument("--rule", nargs="?", const=0.005, type=float, help="measured against the rule's lateness (dask raw runs)")
    args = parser.parse_args()
    data = json.load(open(args.runs))
    graph = json.load(open(args.graph))
    rows = []
    for label, recs, xs, raw, spilled in runs_of(data):
        classes = {c: summary(v) for c, v in classify(recs, xs, graph, raw, spilled).items()}
        rows.append({"run": label, "classes": classes})
        print(f"{args.label or args.runs}: {label}  " + "  ".join(
            f"{c} n={s['n']} mean={s['mean_ms']:.2f} med={s['median_ms']:.2f} max={s['max_ms']:.1f}" for c, s in classes.items() if s["n"]))
        if args.rule is not None and raw:
            pairs = rule(recs, xs, graph, args.rule)
            if pairs:
                print(f"    rule: n={len(pairs)} measured mean {1e3 * st.mean(m for m, _ in pairs):.2f} ms, predicted mean {1e3 * st.mean(p for _, p in pairs):.2f} ms")
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps({"label": args.label or args.runs, "graph": args.graph, "runs": rows}) + "\n")


if __name__ == "__main__":
    main()
