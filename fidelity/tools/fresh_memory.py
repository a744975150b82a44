"""Does a dask 2022.12.1 receiver that keeps what it fetched deserialise (and read) slower while
its memory grows? Prints one JSON object (and writes it with --json):

    python3 fidelity/tools/fresh_memory.py [--rounds R] [--clusters C] [--keys K] [--json PATH]

The shuffle's receivers keep every piece they fetch until the joins run (≈ 300 MB a worker),
so their `b"".join` copies out of the read buffer (protocol/serialize.py 748-752) land in
memory the process never had — and, on this VM, possibly memory the guest handed back to the
host (disk_rw.txt: ≈ 2.8 ms/MiB the first touch). fetch_cost.py's `retain` rounds ran after
other rounds had grown and freed the heap, so they could not show it. Here, on C fresh
LocalClusters (2 workers x 2 threads, processes, the fidelity set's settings), fetch_probe.py's
timestamps in both workers, fetches of K values of 3 MB one way (A to B), nothing else
running, R rounds of each, in this order:
- grow: B keeps every fetched value (fetch_probe.keep, held by the client): its memory grows
  by R x K x 3 MB from a fresh process;
- reuse: the kept values dropped, then again R rounds that keep theirs: the same growth into
  memory the process has just freed;
- release: R rounds whose values B frees once used (as fetch_cost.py's idle rounds).
Per fetch: fetch_cost.py's parts (wire, deserialise, ...) and the round's index.
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

MB3 = 3_000_000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--clusters", type=int, default=2)
    p.add_argument("--keys", type=int, default=16)
    p.add_argument("--json")
    p.add_argument("--idle", type=float, default=0, help="seconds to wait, nothing running, first")
    a = p.parse_args()
    time.sleep(a.idle)
    out = {"utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "load_before": round(os.getloadavg()[0], 2), "idle_before": a.idle,
           "rounds": a.rounds, "clusters": a.clusters, "keys": a.keys, "fetches": []}
    tag = fetch_probe.tagger()
    for c in range(a.clusters):
        cluster, client = start_cluster(2, 2, None)
        try:
            wa, wb = worker_addresses(client)
            client.run(fetch_probe.install)

            kept = []
            for variant in ("grow", "reuse", "release"):
                if variant == "reuse":
                    del kept[:]
                    time.sleep(0.5)
                for r in range(a.rounds):
                    s = [client.submit(ft.work, tag("src"), 0.0, MB3, workers=[wa], pure=False) for _ in range(a.keys)]
                    wait(s)
                    client.run(fetch_probe.read_events)
                    if variant == "release":
                        wait(client.submit(ft.work, tag("dst"), 0.0, 1, *s, workers=[wb], pure=False, priority=10))
                    else:
                        kept.append(client.submit(fetch_probe.keep, tag("keep"), *s, workers=[wb], pure=False, priority=10))
                        wait(kept[-1])
                    events = client.run(fetch_probe.read_events)
                    row = parts(events[wb], events[wa])
                    row.update({"scenario": variant, "round": r, "cluster": c})
                    out["fetches"].append(row)
                    del s
            del kept
        finally:
            client.close()
            cluster.close()

    def ms_per_mb(rows, key):
        xs = [r[key] / (r["bytes"] / 1e6) for r in rows if r[key] is not None and r["bytes"]]
        return round(1e3 * statistics.median(xs), 3) if xs else None

    out["summary"] = {}
    for variant in ("grow", "reuse", "release"):
        rows = [r for r in out["fetches"] if r["scenario"] == variant]
        out["summary"][variant] = {
            "n": len(rows),
            "wire_ms_per_MB_median": ms_per_mb(rows, "wire"),
            "deserialise_ms_per_MB_median": ms_per_mb(rows, "deserialise"),
            "duration_ms_per_MB_median": ms_per_mb(rows, "duration"),
            "deserialise_ms_per_MB_by_round": [ms_per_mb([x for x in rows if x["round"] == r], "deserialise") for r in range(a.rounds)],
            "wire_ms_per_MB_by_round": [ms_per_mb([x for x in rows if x["round"] == r], "wire") for r in range(a.rounds)],
        }
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.json)


if __name__ == "__main__":
    main()
