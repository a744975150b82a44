"""Does building a value hold the GIL? No dask: one thread builds values while a ticker thread
sleeps 1 ms at a time and records how late each wake-up was (a late wake-up waits for the GIL
or a core). Prints one JSON object:

    python3 fidelity/tools/join_gil.py [--values N] [--mb M] [--out FILE]

Two builds of M MB each, N times, every value kept (fresh memory, as a worker keeps its
outputs): `fidelity_tasks.make_bytes` (a `b"".join` of bytes objects) and the same join over
memoryviews (as `_deserialize_bytes` joins a message's frames). CPython's `bytes.join` lets go
of the GIL while it copies when every item is an exact bytes object and the result is at least
1 MiB (Objects/stringlib/join.h, GIL_THRESHOLD), and keeps it for any other buffer.
"""
import argparse
import os
import threading
import time

import harness
import fidelity_tasks as ft  # noqa: E402


def ticker(stop, lates):
    while not stop.is_set():
        t = time.perf_counter()
        time.sleep(0.001)
        lates.append(time.perf_counter() - t - 0.001)


def one(kind, values, nbytes):
    block = ft._block()
    views = [memoryview(block)] * (nbytes // len(block))
    stop, lates = threading.Event(), []
    th = threading.Thread(target=ticker, args=(stop, lates))
    th.start()
    time.sleep(0.05)
    lates.clear()
    keep, busy = [], 0.0
    for _ in range(values):
        a = time.perf_counter()
        keep.append(ft.make_bytes(nbytes) if kind == "bytes" else b"".join(views))
        busy += time.perf_counter() - a
        time.sleep(0.01)
    stop.set()
    th.join()
    return {"kind": kind, "values": values, "MB": nbytes / 1e6, "build_ms_per_MB": round(busy * 1e3 / (values * nbytes / 1e6), 3),
            "build_seconds": round(busy, 4), "ticker_late_seconds": round(sum(lates), 4),
            "late_share_of_build": round(sum(lates) / busy, 3), "max_late_ms": round(max(lates) * 1e3, 2)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--values", type=int, default=40)
    p.add_argument("--mb", type=int, default=20)
    p.add_argument("--out")
    a = p.parse_args()
    out = {"load_before": round(os.getloadavg()[0], 2), "rows": []}
    for kind in ("bytes", "memoryview", "bytes", "memoryview"):
        out["rows"].append(one(kind, a.values, a.mb * 2**20))
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
