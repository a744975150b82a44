"""What slows a transfer between two dask 2022.12.1 worker processes while other work runs on
the 2-core host: a share of a core, or the memory the copies go through. Prints one JSON object:

    python3 fidelity/tools/wire_contention.py [--bytes N] [--rounds R] [--out FILE]

On a fresh LocalCluster (2 workers x 2 threads, processes, the fidelity set's settings), each
round fetches one value of N bytes (the fidelity tasks' incompressible bytes) from worker A to
a task on worker B, once in each scenario, in turn:
- alone: nothing else running;
- spin: another process runs pure Python (one core's worth of CPU, no memory traffic);
- copy: another process copies 64 MB arrays back and forth (numpy, one core's worth of CPU
  that is all memory traffic);
- build-sender / build-receiver: a task on A (or B) builds 3 MiB values with make_bytes back to
  back (the fidelity tasks' output building: it lets go of the GIL while it copies) for the
  whole fetch.
Per scenario: each transfer's duration from B's transfer_incoming_log, and its rate
(bytes / (duration - the set's 1.14 ms latency)). If a copy slows the wire more than a spin,
the difference is memory bandwidth, not a core.
"""
import argparse
import multiprocessing as mp
import os
import statistics
import time

import harness
from common import start_cluster, transfer_logs, worker_addresses  # noqa: E402
import fidelity_tasks as ft  # noqa: E402
from distributed import wait  # noqa: E402

LATENCY = 0.00114


def spin(stop):
    x = 0
    while not stop.is_set():
        for _ in range(10000):
            x += 1


def copy(stop):
    import numpy as np

    a = np.ones(64 * 2**20, dtype=np.uint8)
    b = np.empty_like(a)
    while not stop.is_set():
        np.copyto(b, a)
        np.copyto(a, b)


def builder(key, seconds):
    """A task building 3 MiB values with make_bytes, none kept, for `seconds`."""
    import fidelity_tasks

    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        fidelity_tasks.make_bytes(3 * 2**20)
        n += 1
    return n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", type=int, default=32_000_000)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--out")
    a = p.parse_args()
    out = {"load_before": round(os.getloadavg()[0], 2), "bytes": a.bytes, "rounds": a.rounds}
    ctx = mp.get_context("spawn")
    cluster, client = start_cluster(2, 2, None)
    durations = {k: [] for k in ("alone", "spin", "copy", "build-sender", "build-receiver")}
    try:
        wa, wb = worker_addresses(client)

        def build(tag):
            f = client.submit(ft.work, tag, 0.0, a.bytes, key=tag, workers=[wa], pure=False)
            wait(f)
            return f

        def fetch(tag, src):
            n0 = len(transfer_logs(client)[wb])
            wait(client.submit(ft.work, tag, 0.0, 1, src, key=tag, workers=[wb], pure=False))
            return transfer_logs(client)[wb][n0]["duration"]

        for i in range(3):  # warm the connection pools and code paths
            fetch(f"warm-dst-{i}", build(f"warm-src-{i}"))
        for r in range(a.rounds):
            for scenario in durations:
                src = build(f"{scenario}-src-{r}")
                stop, proc, busy = None, None, None
                if scenario in ("spin", "copy"):
                    stop = ctx.Event()
                    proc = ctx.Process(target=spin if scenario == "spin" else copy, args=(stop,))
                    proc.start()
                    time.sleep(0.3)  # started and at full speed
                elif scenario.startswith("build"):
                    where = wa if scenario == "build-sender" else wb
                    busy = client.submit(builder, f"{scenario}-busy-{r}", 0.4, key=f"{scenario}-busy-{r}", workers=[where], pure=False)
                    time.sleep(0.05)
                durations[scenario].append(fetch(f"{scenario}-dst-{r}", src))
                if proc is not None:
                    stop.set()
                    proc.join()
                if busy is not None:
                    wait(busy)
                del src
    finally:
        client.close()
        cluster.close()

    def rate(d):
        return a.bytes / max(1e-6, d - LATENCY) / 1e6

    out["MBps"] = {}
    for scenario, ds in durations.items():
        rs = sorted(rate(d) for d in ds)
        out["MBps"][scenario] = {"median": round(statistics.median(rs), 1), "min": round(rs[0], 1), "max": round(rs[-1], 1)}
    alone = out["MBps"]["alone"]["median"]
    out["over_alone"] = {s: round(v["median"] / alone, 3) for s, v in out["MBps"].items()}
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
