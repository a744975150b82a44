"""How fast a dask 2022.12.1 wire moves while the sending (or the receiving) worker's
Dask-Offload thread deserialises — wire_probe.py's `hold` state, measured apart. Prints one
JSON object (and writes it with --json):

    python3 fidelity/tools/hold_probe.py [--rounds R] [--keys K] [--hog SECONDS] [--json PATH]

On a fresh LocalCluster (2 workers x 2 threads, processes, the fidelity set's settings) with
fetch_probe.py's timestamps, R rounds of fetches of K values of 3 MB from A to B, nothing else
running, each round five variants interleaved:
- none: the fetch alone;
- sender-gil: A's offload thread joins 3 MB memoryview values out of a buffer for SECONDS
  (what `_deserialize_bytes` does with a received message: a C call that holds the GIL), the
  fetch starting meanwhile;
- receiver-gil: the same on B;
- sender-cpu: A's offload thread hashes 3 MB buffers for SECONDS (hashlib lets go of the GIL
  over 2 kB): a core taken, the lock free;
- receiver-cpu: the same on B.
Per fetch: fetch_cost.py's parts, and how much of the wire (read-buffer .. read-bytes on B)
the busy thread covered. A wire inside the busy span moves bytes / wire seconds.
"""
import argparse
import os
import statistics
import time

import harness  # noqa: E402  (the dask harness on sys.path)
from common import start_cluster, worker_addresses  # noqa: E402
import fetch_probe  # noqa: E402
import fidelity_tasks as ft  # noqa: E402
from fetch_cost import parts  # noqa: E402
from distributed import wait  # noqa: E402
import hold_probe as me  # noqa: E402  (the workers import it by name)

MB3 = 3_000_000
SPANS = []


def _joins(seconds):
    buf = bytearray(16 * MB3)
    mv = memoryview(buf)
    frames = [mv[i * MB3:(i + 1) * MB3] for i in range(16)]
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        b"".join([frames[n % 16]])  # noqa: B018 — the copy is the point
        n += 1
    SPANS.append((t0, time.time(), "gil", n))


def _hashes(seconds):
    import hashlib

    buf = bytes(MB3)
    t0 = time.time()
    n = 0
    while time.time() - t0 < seconds:
        hashlib.sha256(buf).digest()
        n += 1
    SPANS.append((t0, time.time(), "cpu", n))


def start_busy(kind, seconds, dask_worker=None):
    """On the worker's loop: hands the busy work to its Dask-Offload thread and returns."""
    from distributed.utils import _offload_executor

    _offload_executor.submit(_joins if kind == "gil" else _hashes, seconds)
    return True


def read_spans():
    out = list(SPANS)
    SPANS.clear()
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--keys", type=int, default=16)
    p.add_argument("--hog", type=float, default=0.15)
    p.add_argument("--json")
    a = p.parse_args()
    out = {"utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "load_before": round(os.getloadavg()[0], 2),
           "rounds": a.rounds, "keys": a.keys, "hog": a.hog, "fetches": []}
    tag = fetch_probe.tagger()
    cluster, client = start_cluster(2, 2, None)
    try:
        wa, wb = worker_addresses(client)
        client.run(fetch_probe.install)

        for r in range(a.rounds):
            for variant in ("none", "sender-gil", "receiver-gil", "sender-cpu", "receiver-cpu"):
                s = [client.submit(ft.work, tag("src"), 0.0, MB3, workers=[wa], pure=False) for _ in range(a.keys)]
                wait(s)
                client.run(fetch_probe.read_events), client.run(me.read_spans)
                if variant != "none":
                    where = wa if variant.startswith("sender") else wb
                    client.run(me.start_busy, variant.split("-")[1], a.hog, workers=[where])
                    time.sleep(0.005)
                wait(client.submit(ft.work, tag("dst"), 0.0, 1, *s, workers=[wb], pure=False, priority=10))
                time.sleep(max(0.0, a.hog - 0.05))  # the busy span over before the next round
                events = client.run(fetch_probe.read_events)
                spans = client.run(me.read_spans)
                row = parts(events[wb], events[wa])
                b = next((t for t, lab, _ in events[wb] if lab == "read-buffer"), None)
                e = next((t for t, lab, _ in events[wb] if lab == "read-bytes"), None)
                busy = [(x[0], x[1]) for w in (wa, wb) for x in spans[w]]
                covered = None if b is None or e is None else sum(max(0.0, min(e, z) - max(b, y)) for y, z in busy)
                row.update({"scenario": variant, "round": r,
                            "wire_covered": None if covered is None or row["wire"] in (None, 0) else covered / row["wire"]})
                out["fetches"].append(row)
                del s
    finally:
        client.close()
        cluster.close()

    out["summary"] = {}
    for variant in ("none", "sender-gil", "receiver-gil", "sender-cpu", "receiver-cpu"):
        rows = [x for x in out["fetches"] if x["scenario"] == variant and x["wire"]]
        inside = [x for x in rows if variant == "none" or (x["wire_covered"] or 0) > 0.95]

        def med(key, xs):
            v = [x[key] for x in xs if x[key] is not None]
            return round(1e3 * statistics.median(v), 2) if v else None

        out["summary"][variant] = {
            "n": len(rows), "n_wire_inside_busy": len(inside),
            "wire_ms_median": med("wire", inside), "deserialise_ms_median": med("deserialise", inside),
            "duration_ms_median": med("duration", inside), "request_ms_median": med("request", inside),
            "wire_MB_per_s": round(sum(x["bytes"] for x in inside) / 1e6 / sum(x["wire"] for x in inside)) if inside else None,
        }
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.json)


if __name__ == "__main__":
    main()
