"""Measures what a host's disk gives to two dask worker processes that spill at once, against one
spilling alone: the figure behind `disk.hostBandwidth` in profiles/dask-localcluster-2x2.yaml.

    /usr/bin/python3 fidelity/tools/disk_shared.py [ROUNDS] [--paced] [--json PATH]
    /usr/bin/python3 fidelity/tools/disk_shared.py --remove-sweep    # os.remove by file size

Each process runs dask 2022.12.1's own SpillBuffer (distributed.spill, zict 2.2.0's File
underneath) with target 0, so every value set goes to disk at once (pickle + write) and every
get reads it back (read + unpickle), as a worker's spilling does, with the worker's metrics.
The load is the spill case's (fidelity/specs/spill.json): 21 values of 25 MB per process
(525 MB, half of the 1050 MB dask spilled), built like the fidelity tasks' outputs
(fidelity_tasks.make_bytes), all written, then each read back and deleted (a value read back is
moved to memory and its file removed: dask's SpillBuffer.__getitem__ does it). The removal,
zict's File.__delitem__, is timed in place on its own (`remove_ms_*`): dask's metrics leave it
out.

The page cache: zict 2.2.0's File.__setitem__ opens, writes and closes — no fsync, no
O_DIRECT — so dask's spill writes land in the page cache and reads of recent files come from
it, on this machine (24 GB, 20 GB free) always for the spill case's 1 GB. That is what dask's
workers saw, so it is what is measured: not the device. What the page cache does not make
repeatable is the writeback of earlier rounds' dirty pages (dirty_background_ratio 10 %,
expire 30 s) landing inside a later round: every round starts after os.sync(), and its files
are gone before the next one starts.

A round is either one process alone or both at once (started together on a barrier), the two
kinds interleaved (alone, both, alone, both, ...) so the machine's load hits both alike; the
1-minute load average is printed before and after. Rates are bytes / the SpillBuffer metrics'
seconds (write: pickle + write; read: read + unpickle), as dask_driver.py reports the real runs.
"""
import json
import multiprocessing as mp
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "fidelity"))
import fidelity_tasks as ft  # noqa: E402

VALUES = 21
NBYTES = 25_000_000


PERIOD = 0.0


def pace(t0, i):
    """--paced: the i-th value no earlier than i x PERIOD after the phase starts (a worker with
    two threads making a 25 MB output every 200 ms spills one every 100 ms)."""
    wait = t0 + i * PERIOD - time.perf_counter()
    if wait > 0:
        time.sleep(wait)


def timed_removals(removals):
    """zict 2.2.0's File.__delitem__ (os.remove of the value's file, then the key forgotten),
    timed in place: dask's SpillBuffer calls it from Buffer.slow_to_fast when a spilled value is
    read back (and from __delitem__ when a spilled key is freed), and its own metrics leave it
    out (Slow.__getitem__ times only the read and the unpickle)."""
    import zict

    original = zict.File.__delitem__

    def delitem(self, key):
        a = time.perf_counter()
        original(self, key)
        removals.append((a, time.perf_counter()))

    zict.File.__delitem__ = delitem


def spill_once(directory, barrier, out):
    from distributed.spill import SpillBuffer

    removals = []
    timed_removals(removals)
    buf = SpillBuffer(directory, target=0)
    values = [ft.make_bytes(NBYTES) for _ in range(VALUES)]
    ops = []
    barrier.wait()
    c0, t0 = time.process_time(), time.perf_counter()
    for i in range(VALUES):
        pace(t0, i)
        a = time.perf_counter()
        buf[f"produce-{i}"] = values[i]
        ops.append(("write", a, time.perf_counter()))
    values.clear()
    c1, t1 = time.process_time(), time.perf_counter()
    for i in range(VALUES):
        pace(t1, i)
        a = time.perf_counter()
        buf[f"produce-{i}"]
        ops.append(("read", a, time.perf_counter()))
        if removals:
            ops.append(("remove", *removals.pop()))
        del buf[f"produce-{i}"]
    c2, t2 = time.process_time(), time.perf_counter()
    m = getattr(buf.slow, "data", buf.slow).metrics
    out.put({"pid": os.getpid(), "t0": t0, "t1": t1, "t2": t2, "cpu_write_s": c1 - c0, "cpu_read_s": c2 - c1,
             "write_s": m.write_time_total + m.pickle_time_total, "read_s": m.read_time_total + m.unpickle_time_total,
             "bytes": m.write_bytes_total, "reads": m.read_count_total, "ops": ops})


def removal_sweep(root, sizes, repeats):
    """os.remove of a file zict.File just wrote (in the page cache, as the spill case's are), by
    size, one process alone: the per-file and per-byte terms of a removal."""
    import zict

    f = zict.File(os.path.join(root, "sweep"))
    out = {}
    for n in sizes:
        payload = b"x" * n
        times = []
        for r in range(repeats):
            f[f"k{r}"] = payload
        for r in range(repeats):
            a = time.perf_counter()
            del f[f"k{r}"]
            times.append(time.perf_counter() - a)
        out[n] = {"median_ms": statistics.median(times) * 1e3, "mean_ms": statistics.mean(times) * 1e3, "n": repeats}
    return out


def processes_at_once(n, root, target, args=()):
    """n processes running target(directory, *args, barrier, out), started together on a barrier
    after os.sync(); their rows, and their spill directories gone (disk_rw.py runs its own)."""
    os.sync()
    barrier = mp.Barrier(n)
    out = mp.Queue()
    procs = [mp.Process(target=target, args=(os.path.join(root, f"w{i}"), *args, barrier, out)) for i in range(n)]
    for p in procs:
        p.start()
    rows = [out.get() for _ in procs]
    for p in procs:
        p.join()
    for i in range(n):
        shutil.rmtree(os.path.join(root, f"w{i}"), ignore_errors=True)
    return rows


def round_of(n, root):
    rows = processes_at_once(n, root, spill_once)
    # Each value's own rate, split by whether it overlapped the other process's operations for
    # most of its length: the model's two figures (a disk alone, and what it gets while another
    # disk of the host is busy) from one run.
    alone, shared = [], []
    for j, r in enumerate(rows):
        others = [op for k, o in enumerate(rows) if k != j for op in o["ops"]]
        for kind, a, b in r["ops"]:
            overlap = sum(max(0.0, min(b, ob) - max(a, oa)) for _, oa, ob in others)
            if kind == "remove":
                (shared if overlap > 0.5 * (b - a) else alone).append((kind, (b - a) * 1e3))
                continue
            (shared if overlap > 0.5 * (b - a) else alone).append((kind, NBYTES / (b - a) / 1e6))
    total = sum(r["bytes"] for r in rows)
    write_wall = max(r["t1"] for r in rows) - min(r["t0"] for r in rows)
    read_wall = max(r["t2"] for r in rows) - min(r["t1"] for r in rows)
    return {
        "processes": n,
        "write_MBps_each": [r["bytes"] / r["write_s"] / 1e6 for r in rows],
        "read_MBps_each": [r["bytes"] / r["read_s"] / 1e6 for r in rows],
        "write_MBps_host": total / write_wall / 1e6,
        "read_MBps_host": total / read_wall / 1e6,
        # CPU seconds over wall seconds of each process: near 1, the copy into and out of the page
        # cache is CPU work that got a core; well below, it waited for one (or for a lock).
        "write_cpu_share": [r["cpu_write_s"] / (r["t1"] - r["t0"]) for r in rows],
        "read_cpu_share": [r["cpu_read_s"] / (r["t2"] - r["t1"]) for r in rows],
        "op_MBps_alone": {k: [v for kk, v in alone if kk == k] for k in ("write", "read")},
        "op_MBps_shared": {k: [v for kk, v in shared if kk == k] for k in ("write", "read")},
        # a removal's milliseconds, alone or while the other process's disk was busy
        "remove_ms_alone": [v for kk, v in alone if kk == "remove"],
        "remove_ms_shared": [v for kk, v in shared if kk == "remove"],
        "write_overlap": min(r["t1"] for r in rows) - max(r["t0"] for r in rows),
    }


def load1():
    return os.getloadavg()[0]


def summarise(rows, key):
    vals = [v for r in rows for v in (r[key] if isinstance(r[key], list) else [r[key]])]
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def main():
    args = [a for a in sys.argv[1:]]
    path = None
    if "--json" in args:
        i = args.index("--json")
        path = args[i + 1]
        del args[i:i + 2]
    global PERIOD
    if "--remove-sweep" in args:
        root = tempfile.mkdtemp(prefix="disk-remove-")
        try:
            before = load1()
            sweep = removal_sweep(root, [1_000_000, 5_000_000, 25_000_000, 64_000_000], 20)
            print(json.dumps({"load_before": before, "load_after": load1(), "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "remove": sweep}, indent=1))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return
    if "--paced" in args:
        args.remove("--paced")
        PERIOD = 0.1
    rounds = int(args[0]) if args else 5
    root = tempfile.mkdtemp(prefix="disk-shared-")
    result = {"load_before": load1(), "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "value_bytes": NBYTES, "rounds": []}
    try:
        for r in range(rounds):
            for n in (1, 2):
                row = round_of(n, root)
                row["load"] = load1()
                result["rounds"].append(row)
                print(f"round {r} x{n}: write each {', '.join(f'{v:.0f}' for v in row['write_MBps_each'])} MB/s, "
                      f"read each {', '.join(f'{v:.0f}' for v in row['read_MBps_each'])} MB/s; host write {row['write_MBps_host']:.0f}, "
                      f"read {row['read_MBps_host']:.0f} MB/s; cpu/wall write {', '.join(f'{v:.2f}' for v in row['write_cpu_share'])}, "
              f"read {', '.join(f'{v:.2f}' for v in row['read_cpu_share'])}; load {row['load']:.2f}", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["load_after"] = load1()
    alone = [r for r in result["rounds"] if r["processes"] == 1]
    both = [r for r in result["rounds"] if r["processes"] == 2]
    def ops(rows, which, kind):
        vals = [v for r in rows for v in r[which][kind]]
        return {"median": statistics.median(vals), "n": len(vals)} if vals else None

    result["per_value"] = {f"{w}_{k}": ops(result["rounds"], w, k) for w in ("op_MBps_alone", "op_MBps_shared") for k in ("write", "read")}
    for w in ("remove_ms_alone", "remove_ms_shared"):
        vals = [v for r in result["rounds"] for v in r[w]]
        result["per_value"][w] = {"median": statistics.median(vals), "mean": statistics.mean(vals), "n": len(vals)} if vals else None
    print("per value:", json.dumps(result["per_value"]))
    result["summary"] = {
        "alone": {k: summarise(alone, k) for k in ("write_MBps_each", "read_MBps_each", "write_cpu_share", "read_cpu_share")},
        "both": {k: summarise(both, k) for k in ("write_MBps_each", "read_MBps_each", "write_MBps_host", "read_MBps_host", "write_cpu_share", "read_cpu_share")},
    }
    print(json.dumps(result["summary"], indent=1))
    print(f"load {result['load_before']:.2f} -> {result['load_after']:.2f}")
    if path:
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
