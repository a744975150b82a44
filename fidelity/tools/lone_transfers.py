"""Every duration of one-at-a-time transfers between two dask 2022.12.1 worker processes, as
calibrate.py measures them (a value built on worker a, a dependent placed on worker b, so b
fetches it alone; the fetching worker's transfer_incoming_log), but R of each size and every
duration kept, not only min / median / max. Prints one JSON object:

    PYTHONPATH=/work/shared/fidelity:fidelity/tools python3 fidelity/tools/lone_transfers.py [--repeats R] [--sizes MB,MB,...]

Defaults: 30 repeats of 1, 4, 16 and 32 MB, sizes interleaved (a busy spell of the machine hits
every size alike), 5 small warm-up transfers first. Per size: the durations, their median and
the log's standard deviation and interquartile sigma; `load_before` / `load_after` (1-minute
load average). fidelity/tools/transfer_spread.py reads the output if it is at
fidelity/quiet/tools/lone_transfers.json.
"""
import argparse
import json
import math
import os
import statistics
import time

import harness  # noqa: F401  (the dask harness on sys.path)
from common import start_cluster, transfer_logs, worker_addresses
import fidelity_tasks as ft
from distributed import wait


def load1():
    return round(os.getloadavg()[0], 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--sizes", default="1,4,16,32")
    args = parser.parse_args()
    sizes = [int(float(s) * 1_000_000) for s in args.sizes.split(",")]
    out = {"load_before": load1(), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "repeats": args.repeats}
    cluster, client = start_cluster(2, 2, None)
    try:
        a, b = worker_addresses(client)

        def pair(tag, nbytes):
            src = client.submit(ft.work, f"lt-src-{tag}", 0.0, nbytes, key=f"lt-src-{tag}", workers=[a], pure=False)
            wait(src)
            dst = client.submit(ft.work, f"lt-dst-{tag}", 0.0, 1, src, key=f"lt-dst-{tag}", workers=[b], pure=False)
            wait(dst)
            del src, dst

        for i in range(5):
            pair(f"warm-{i}", 1000)
        warm = len(transfer_logs(client)[b])
        for r in range(args.repeats):
            for size in sizes:
                pair(f"{size}-{r}", size)
        log = transfer_logs(client)[b][warm:]
    finally:
        client.close()
        cluster.close()
    out["load_after"] = load1()
    by_size = {}
    for e in log:
        if e["total"] >= 1_000_000:
            by_size.setdefault(e["total"], []).append(e["duration"])
    rows = {}
    for size in sorted(by_size):
        d = by_size[size]
        med = statistics.median(d)
        logs = sorted(math.log(x / med) for x in d)
        q = lambda p: logs[round(p * (len(logs) - 1))]
        rows[str(size)] = {"n": len(d), "median": med, "min": min(d), "max": max(d), "log_sigma_std": statistics.pstdev(logs),
                           "log_sigma_iqr": (q(0.75) - q(0.25)) / 1.3489795, "durations": d}
    out["by_bytes"] = rows
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
