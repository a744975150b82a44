"""Inside a real run of a fidelity graph: where each transfer's time goes, and how long each
worker's other Python threads wait for the interpreter (the GIL) meanwhile. Prints one JSON
object:

    python3 fidelity/tools/gil_probe.py GRAPH [--runs R]

GRAPH is a compiled graph (`sim.mjs dump`, e.g. fidelity/quiet/graphs/shuffle-s1.json). Each
run starts a fresh LocalCluster (the fidelity set's settings), installs fetch_probe.py's
timestamps and a ticker thread in both workers, and runs the graph as dask_driver.py does.
The ticker sleeps 1 ms at a time and records how late each wake-up was: a late wake-up is a
wait for the GIL (another thread of the process runs Python or a C call that holds it) or
for a core. Its lateness is split by what the process was doing: deserialising a received
message (fetch_probe's `read-bytes` to `read-deserialised`, on the Dask-Offload thread for
messages over 10 MiB), anything else. Per transfer (from the receiver's and the sender's
probe events): its duration and its parts — request (until the sender's get_data handler),
wire (until every byte is read), deserialise — as fetch_cost.py splits them.

The measure behind it (no dask): a thread that waits for the GIL while another runs a
`b"".join` of 30 MB (fresh memory, 2.9 ms) waits the whole join; while another runs pure
Python it waits up to the switch interval (5 ms), where a process of its own costs it nothing.
"""
import argparse
import json
import os
import statistics
import time

import harness  # noqa: E402,F401  (the dask harness on sys.path)
from common import start_cluster, worker_addresses  # noqa: E402
import dask_driver  # noqa: E402
import fetch_probe  # noqa: E402
from distributed import wait  # noqa: E402

windows = fetch_probe.windows


def inside(t, spans):
    return any(s <= t < e for s, e in spans)


def transfers(recv, send):
    """The receiver's fetches (fetch-start .. fetch-done) with their parts; with two workers each
    receiver has one fetch in flight at a time, and the sender serves it in order."""
    fetches = windows(recv, "fetch-start", "fetch-done")
    serves = [t for t, label, _ in send if label == "serve-start"]
    out = []
    for s, e in fetches:
        def first(label, after=s):
            return next((t for t, lab, _ in recv if lab == label and s <= t <= e and t >= after), None)

        b = first("read-buffer")
        r = first("read-bytes")
        d = first("read-deserialised")
        served = next((t for t in serves if s <= t <= e), None)
        nbytes = next((n for t, lab, n in recv if lab == "read-header" and s <= t <= e), 0)
        out.append({
            "start": s, "duration": e - s, "bytes": nbytes,
            "request": None if served is None else served - s,
            "wire": None if b is None or r is None else r - b,
            "deserialise": None if r is None or d is None else d - r,
        })
    return out


def probed_run(graph, install=None, read=None):
    """One run of `graph` on a fresh LocalCluster with fetch_probe's timestamps and ticker in both
    workers (and `install` run there too, `read` read back after): (workers, t0, t1, ticks,
    events, what `read` returned per worker or None)."""
    c = graph["cluster"]
    cluster, client = start_cluster(c.get("workers", 2), c.get("threads", 2), c.get("memoryLimit"))
    try:
        workers = worker_addresses(client)[:2]
        client.run(fetch_probe.install)
        if install is not None:
            client.run(install)
        client.run(fetch_probe.start_ticker)
        time.sleep(0.1)
        for f in (fetch_probe.read_ticks, fetch_probe.read_events) + ((read,) if read is not None else ()):
            client.run(f)
        dsk, outputs = dask_driver.build(graph)
        t0 = time.time()
        futures = client.get(dsk, outputs, sync=False)
        wait(futures)
        t1 = time.time()
        ticks = client.run(fetch_probe.read_ticks)
        events = client.run(fetch_probe.read_events)
        extra = client.run(read) if read is not None else None
        del futures
    finally:
        client.close()
        cluster.close()
    return workers, t0, t1, ticks, events, extra


def one_run(graph):
    (wa, wb), t0, t1, ticks, events, _ = probed_run(graph)
    out = {"wall": t1 - t0, "transfers": [], "ticks": {}}
    for recv, send in ((wa, wb), (wb, wa)):
        out["transfers"] += transfers(events[recv], events[send])
    for w in (wa, wb):
        deser = windows(events[w], "read-bytes", "read-deserialised")
        during = [late for t, late in ticks[w] if t0 <= t <= t1 and inside(t - late / 2, deser)]
        rest = [late for t, late in ticks[w] if t0 <= t <= t1 and not inside(t - late / 2, deser)]
        out["ticks"][w] = {
            "deserialise_seconds": sum(e - s for s, e in deser),
            "during_deserialise": summary(during),
            "otherwise": summary(rest),
        }
    return out


def summary(xs):
    if not xs:
        return {"n": 0}
    s = sorted(xs)
    return {
        "n": len(s), "mean_ms": round(statistics.mean(s) * 1e3, 3), "median_ms": round(s[len(s) // 2] * 1e3, 3),
        "p90_ms": round(s[int(len(s) * 0.9)] * 1e3, 3), "max_ms": round(s[-1] * 1e3, 3),
        "late_seconds": round(sum(s), 4),
    }


def runs_of(path, runs, run):
    """`runs` runs of the graph at `path` by `run`, with the load before: the tools' JSON object so far."""
    with open(path) as f:
        graph = json.load(f)
    out = {"graph": os.path.basename(path), "load_before": round(os.getloadavg()[0], 2), "runs": []}
    for _ in range(runs):
        out["runs"].append(run(graph))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("--runs", type=int, default=2)
    a = p.parse_args()
    out = runs_of(a.graph, a.runs, one_run)
    rows = [t for r in out["runs"] for t in r["transfers"] if t["bytes"] > 0 and t["wire"] is not None and t["deserialise"] is not None]
    mb = sum(t["bytes"] for t in rows) / 1e6 or 1
    out["per_MB_ms"] = {
        "transfers": len(rows),
        "duration": round(sum(t["duration"] for t in rows) * 1e3 / mb, 3),
        "request": round(sum(t["request"] or 0 for t in rows) * 1e3 / mb, 3),
        "wire": round(sum(t["wire"] for t in rows) * 1e3 / mb, 3),
        "deserialise": round(sum(t["deserialise"] for t in rows) * 1e3 / mb, 3),
    }
    out["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
