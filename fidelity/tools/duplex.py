"""Measures what limits a transfer between two dask 2022.12.1 worker processes on this machine:
the wire, or each worker's event loop (which runs every comm of its worker: the get_data
handler, the tornado stream's reads and writes). Prints one JSON object:

    python3 fidelity/tools/duplex.py [--bytes N] [--rounds R]

On a fresh LocalCluster (2 workers x 2 threads, processes, the fidelity set's settings),
alternating, R rounds of
- simplex: one value of N bytes (the fidelity tasks' incompressible bytes) built on worker A
  and fetched by a task on worker B, nothing else moving;
- duplex: one value built on each worker, then two tasks submitted together, each on the other
  worker: the two transfers run at once in opposite directions, so each worker's loop sends
  one and receives the other.
For each transfer: its duration from the fetching worker's transfer_incoming_log and its rate
(bytes / (duration - the set's 1.14 ms latency)); for each duplex pair, both values over the
span from the first start to the last stop (each log's times less its worker's
scheduler_delay): a capacity the two transfers share moves both at about the simplex rate,
independent directions at twice it. And the CPU seconds of both workers' loop
threads (time.thread_time, read on the loop with client.run) over the simplex rounds, per
byte moved: if sending and receiving a byte costs a loop about what the byte's transfer time
is, the loops are what bound the transfer, and two transfers through one loop share it.
"""
import argparse
import json
import os
import statistics
import time

import harness  # noqa: E402,F401  (the dask harness on sys.path)
from common import start_cluster, transfer_logs, worker_addresses  # noqa: E402
import fidelity_tasks as ft  # noqa: E402
from distributed import wait  # noqa: E402
from overhead_tasks import loop_cpu  # noqa: E402

LATENCY = 0.00114


def scheduler_delay(dask_worker):
    return dask_worker.scheduler_delay


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", type=int, default=32_000_000)
    p.add_argument("--rounds", type=int, default=12)
    a = p.parse_args()
    out = {"load_before": round(os.getloadavg()[0], 2), "bytes": a.bytes, "rounds": a.rounds}
    cluster, client = start_cluster(2, 2, None)
    try:
        wa, wb = worker_addresses(client)

        def build(tag, where):
            f = client.submit(ft.work, tag, 0.0, a.bytes, key=tag, workers=[where], pure=False)
            wait(f)
            return f

        def fetch(tag, src, where):
            return client.submit(ft.work, tag, 0.0, 1, src, key=tag, workers=[where], pure=False)

        for i in range(3):  # warm the connection pools and code paths
            s = build(f"warm-src-{i}", wa)
            wait(fetch(f"warm-dst-{i}", s, wb))
            s = build(f"warm-src2-{i}", wb)
            wait(fetch(f"warm-dst2-{i}", s, wa))
        simplex, duplex, cpu_simplex, bytes_simplex = [], [], 0.0, 0
        for r in range(a.rounds):
            s = build(f"sx-src-{r}", wa)
            before = client.run(loop_cpu)
            n0 = len(transfer_logs(client)[wb])
            wait(fetch(f"sx-dst-{r}", s, wb))
            after = client.run(loop_cpu)
            cpu_simplex += sum(after[w] - before[w] for w in (wa, wb))
            bytes_simplex += a.bytes
            e = transfer_logs(client)[wb][n0]
            simplex.append(e["duration"])
            s1, s2 = build(f"dx-src-a-{r}", wa), build(f"dx-src-b-{r}", wb)
            logs = transfer_logs(client)
            n = {w: len(v) for w, v in logs.items()}
            d1, d2 = fetch(f"dx-dst-b-{r}", s1, wb), fetch(f"dx-dst-a-{r}", s2, wa)
            wait([d1, d2])
            logs = transfer_logs(client)
            # the logs' times are shifted by each worker's scheduler_delay; on one host the
            # workers' own clocks agree, so take it off again
            delay = client.run(scheduler_delay)
            pair = [dict(logs[w][n[w]], start=logs[w][n[w]]["start"] - delay[w], stop=logs[w][n[w]]["stop"] - delay[w]) for w in (wa, wb)]
            overlap = min(x["stop"] for x in pair) - max(x["start"] for x in pair)
            span = max(x["stop"] for x in pair) - min(x["start"] for x in pair)
            duplex.append({"durations": [x["duration"] for x in pair], "overlap": overlap, "span": span})
            del s, s1, s2, d1, d2
    finally:
        client.close()
        cluster.close()

    def rate(d):
        return a.bytes / max(1e-6, d - LATENCY) / 1e6

    sx = sorted(rate(d) for d in simplex)
    dx = sorted(rate(d) for x in duplex for d in x["durations"])
    out["simplex_MBps"] = {"median": statistics.median(sx), "min": sx[0], "max": sx[-1]}
    out["duplex_MBps_each"] = {"median": statistics.median(dx), "min": dx[0], "max": dx[-1]}
    out["duplex_overlap_fraction_median"] = statistics.median(x["overlap"] / max(x["durations"]) for x in duplex)
    # both values moved in the span from the first start to the last stop: a capacity the two
    # transfers share moves them at about the simplex rate; independent directions at twice it
    pair = sorted(2 * a.bytes / max(1e-6, x["span"] - LATENCY) / 1e6 for x in duplex)
    out["duplex_pair_MBps"] = {"median": statistics.median(pair), "min": pair[0], "max": pair[-1]}
    out["duplex_pair_over_simplex"] = out["duplex_pair_MBps"]["median"] / out["simplex_MBps"]["median"]
    out["duplex_over_simplex"] = out["duplex_MBps_each"]["median"] / out["simplex_MBps"]["median"]
    out["simplex_loop_cpu_seconds_per_MB_both_loops"] = cpu_simplex / (bytes_simplex / 1e6)
    out["simplex_transfer_seconds_per_MB"] = 1 / out["simplex_MBps"]["median"]
    out["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
