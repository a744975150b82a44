"""Does a dask worker's RSS fall when its memory monitor evicts a value? The spill case's worker
without a cluster: dask 2022.12.1's own SpillBuffer (distributed.spill, zict 2.2.0 underneath)
holding values built like the fidelity tasks' outputs (fidelity_tasks.make_bytes, 25 MB) in a
2-thread pool (a worker's executor: each thread's allocations in its own arena), stored from
the main thread (the event loop), and, every 0.1 s, WorkerMemoryManager._maybe_spill's loop:
above the spill threshold, evict one value at a time and read RSS after each, until RSS is
below the target. The thresholds are the spill case's (limit 400 MB: spill 280, target 240)
less a worker's unmanaged 95 MB, over this process's own RSS at the start. Per trigger: RSS,
values in fast memory, and per eviction its milliseconds and how far RSS fell.

A worker process is spawned by its Nanny with `distributed.nanny.pre-spawn-environ` in its
environment (dask 2022.12.1: MALLOC_TRIM_THRESHOLD_=65536, which the fidelity cluster's workers
have: `client.run(os.environ.get, ...)`). glibc reads it once, at start, and setting it turns off
malloc's dynamic mmap threshold, so a freed 25 MB value goes back to the system at once; without
it the threshold rises to the first freed value's size, later values come from the heap, and RSS
hardly falls as they are evicted. So the tool runs itself again with that environment unless it
has it; `--bare` keeps the environment it was started with (the first version's figures).

    PYTHONPATH=../shared/fidelity /usr/bin/python3 fidelity/tools/rss_evict.py [--values N] [--json PATH] [--bare]
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import psutil

from distributed.spill import SpillBuffer
from tool_args import Parser, checked, failer

NBYTES = 25_000_000
SPILL, TARGET = 280e6 - 95e6, 240e6 - 95e6  # over the process's starting RSS


def task(make_bytes):
    out = make_bytes(NBYTES)  # built first, then the rest of the 200 ms asleep, as work() does
    time.sleep(0.2)
    return out


def nanny_environ(argv):
    """Runs this tool again with the Nanny's pre-spawn environment when it lacks any of it (glibc
    reads the MALLOC_* variables at start only); returns when it has all of it."""
    import dask

    want = {k: str(v) for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()}
    if all(os.environ.get(k) == v for k, v in want.items()):
        return
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *argv], {**os.environ, **want})


def main(argv):
    p = Parser(prog="rss_evict.py", description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--values", type=checked(int, "a number of values", lambda v: v >= 1, "at least 1 value"), default=48)
    p.add_argument("--json")
    p.add_argument("--bare", action="store_true", help="keep this environment: no Nanny pre-spawn-environ")
    a = p.parse_args(argv)
    try:
        import fidelity_tasks as ft  # the shared driver's task module: PYTHONPATH=../shared/fidelity
    except ImportError:
        failer("rss_evict.py")("cannot import fidelity_tasks, the shared driver's task module (PYTHONPATH=../shared/fidelity)")
    if not a.bare:
        nanny_environ(argv)
    values, path = a.values, a.json
    proc = psutil.Process()
    rss = lambda: proc.memory_info().rss  # noqa: E731 (dask's get_process_memory)
    root = tempfile.mkdtemp(prefix="rss-evict-")
    buf = SpillBuffer(root, target=int(240e6))
    pool = ThreadPoolExecutor(2)
    ft.make_bytes(10)
    base = rss()
    environ = {k: os.environ[k] for k in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_") if k in os.environ}
    out = {"load_before": os.getloadavg()[0], "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "environ": environ, "rss_base": base, "triggers": []}
    running, made = [], 0
    t0 = time.perf_counter()
    tick = t0 + 0.1
    try:
        while made < values or running:
            while len(running) < 2 and made < values:
                running.append((f"produce-{made}", pool.submit(task, ft.make_bytes)))
                made += 1
            for item in [r for r in running if r[1].done()]:
                buf[item[0]] = item[1].result()
                running.remove(item)
            now = time.perf_counter()
            if now >= tick:
                tick += 0.1
                memory = rss()
                if memory > base + SPILL:
                    trig = {"t": now - t0, "rss_MB": (memory - base) / 1e6, "fast": len(buf.fast), "evictions": []}
                    while memory > base + TARGET and len(buf.fast):
                        a = time.perf_counter()
                        buf.evict()
                        ms = (time.perf_counter() - a) * 1e3
                        after = rss()
                        trig["evictions"].append({"ms": ms, "fell_MB": (memory - after) / 1e6})
                        memory = after
                    out["triggers"].append(trig)
            time.sleep(0.001)
    finally:
        pool.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    ev = [e for t in out["triggers"] for e in t["evictions"]]
    out["summary"] = {
        "triggers": len(out["triggers"]),
        "evictions": len(ev),
        "per_trigger_median": statistics.median(len(t["evictions"]) for t in out["triggers"]) if out["triggers"] else 0,
        "fell_MB_median": statistics.median(e["fell_MB"] for e in ev) if ev else None,
        "fell_below_20MB": sum(e["fell_MB"] < 20 for e in ev),
        "evict_ms_median": statistics.median(e["ms"] for e in ev) if ev else None,
    }
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out["summary"]))
    if path:
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
