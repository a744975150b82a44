"""How late a sleeping thread wakes while another thread of its process copies without letting go
of the GIL, as a dask worker's receiver does when it deserialises a message (no dask involved).

dask 2022.12.1 deserialises a message over 10 MiB on the worker's `Dask-Offload` thread; its
`_deserialize_bytes` (distributed/protocol/serialize.py 748-752) is a `b"".join` over memoryview
frames, which CPython 3.11 runs holding the GIL (Objects/stringlib/join.h drops it only when
every item is an exact bytes object). A task thread whose `time.sleep` ends meanwhile must take
the lock back: CPython asks the holder to drop it only after the waiter has waited
`sys.getswitchinterval()` (5 ms), and the holder drops it at its next eval-breaker check — the
end of the C call it is in, one value's join.

Each round: `--sleepers` threads sleep S ms in a loop and record how late each sleep returned;
beside them (unless the round has 0 MiB) a copier joins `[memoryview(block)] * M` (M MiB, the
fidelity tasks' own 1 MiB block) back to back, Python between values, for `--seconds`. The
rule's prediction for a copy of C ms back to back: a sleeper waking at a uniform phase w of a
copy gets the lock at the end of the copy running at w + 5 ms, so its lateness is 5 ms plus
what is left of that copy (median ≈ 5 + C/2 for C < 5 ms). Printed per round: wakes, lateness
mean/median/p90/max, the copies' median length.

Run (only when `uptime`'s 1-minute load is < 1.5; ~25 s):
    PYTHONPATH=/work/shared/fidelity /usr/bin/python3 fidelity/tools/wake_gil.py \
        --out fidelity/quiet/tools/wake_gil.json
"""
import argparse
import json
import os
import statistics as st
import sys
import threading
import time

import fidelity_tasks as ft

ROUNDS = [(3, 0.05), (3, 0.05), (8, 0.05), (25, 0.05), (48, 0.05), (3, 0.005), (25, 0.005), (0, 0.05)]


def sleeper(stop, sleep_s, lates):
    while not stop.is_set():
        t = time.perf_counter()
        time.sleep(sleep_s)
        lates.append(time.perf_counter() - t - sleep_s)


def copier(stop, block, mib, busy):
    views = [memoryview(block)] * mib
    keep = []  # the joined values stay alive a while, as a message's values do
    while not stop.is_set():
        a = time.perf_counter()
        keep.append(b"".join(views))
        busy.append(time.perf_counter() - a)
        if len(keep) * mib > 400:
            keep.clear()


def one_round(block, mib, sleep_s, seconds, nsleepers):
    stop = threading.Event()
    lates = [[] for _ in range(nsleepers)]
    busy = []
    threads = [threading.Thread(target=sleeper, args=(stop, sleep_s, lates[i])) for i in range(nsleepers)]
    if mib > 0:
        threads.append(threading.Thread(target=copier, args=(stop, block, mib, busy)))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    wakes = sorted(x for lane in lates for x in lane)
    return {
        "mib": mib,
        "sleep_ms": sleep_s * 1e3,
        "copy": mib > 0,
        "wakes": len(wakes),
        "late_mean_ms": 1e3 * st.mean(wakes),
        "late_median_ms": 1e3 * st.median(wakes),
        "late_p90_ms": 1e3 * wakes[int(0.9 * len(wakes))],
        "late_max_ms": 1e3 * wakes[-1],
        "copy_ms_median": 1e3 * st.median(busy) if busy else None,
        "copies": len(busy),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each round")
    parser.add_argument("--sleepers", type=int, default=2, help="sleeping threads (a worker's task threads)")
    parser.add_argument("--out", help="write the JSON here too")
    args = parser.parse_args()
    block = ft._block()
    out = {
        "tool": "fidelity/tools/wake_gil.py",
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_before": os.getloadavg()[0],
        "python": sys.version.split()[0],
        "switchinterval": sys.getswitchinterval(),
        "rows": [],
    }
    for mib, sleep_s in ROUNDS:
        out["rows"].append(one_round(block, mib, sleep_s, args.seconds, args.sleepers))
    out["load_after"] = os.getloadavg()[0]
    out["ended"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
