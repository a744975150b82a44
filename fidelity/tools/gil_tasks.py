"""Measures how a dask 2022.12.1 worker's threads share its interpreter lock (the GIL), for
spanwork's `tasks[].gil` (docs/sim.md, "Tasks that hold the GIL"). Prints one JSON object:

    python3 fidelity/tools/gil_tasks.py [--tasks N] [--seconds S] [--runs R] [--out FILE]

On a fresh LocalCluster of 1 worker (processes, no dashboard, the fidelity set's settings)
with 2 and with 4 threads, N independent tasks of one kind, all submitted at once:
- python: a pure-Python loop of about S seconds of CPU (holds the GIL, bar the 5 ms switches);
- release: hashlib.sha256 over an 8 MiB buffer, repeated to about S seconds (hashlib drops
  the GIL for buffers over 2 KiB: C code on its own core);
- sleep: time.sleep(S) (no CPU at all).
Both CPU kinds are calibrated in the first cluster's worker process (median of 5). Per run:
the makespan (first task start to last task end, from the tasks' own clocks), the client's
wall time, and per task its wall seconds and thread_time seconds (the GIL wait shows as wall
without thread_time). The runs of the kinds and thread counts are interleaved (round-robin),
so a change of machine load touches every cell alike. Records the 1-minute load before/after.
"""
import argparse
import hashlib
import os
import statistics
import time

from distributed import Client, LocalCluster, wait
import harness  # noqa: E402  (emit; this folder is on sys.path when a tool runs)

BUFFER = 8 * 2**20


def load():
    return round(os.getloadavg()[0], 2)


def spin(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def hash_rounds(n):
    buf = b"\x01" * BUFFER
    for _ in range(n):
        hashlib.sha256(buf).digest()


def task(kind, amount, key):
    start = time.time()
    cpu0 = time.thread_time()
    if kind == "python":
        spin(amount)
    elif kind == "release":
        hash_rounds(amount)
    else:
        time.sleep(amount)
    return {"key": key, "start": start, "end": time.time(), "cpu": time.thread_time() - cpu0}


def calibrate(seconds):
    """Loop count and hash rounds that take `seconds` here, alone (medians of 5)."""
    n = 200_000
    while True:
        t0 = time.perf_counter()
        spin(n)
        if time.perf_counter() - t0 > 0.05:
            break
        n *= 2
    per = statistics.median([_timed(spin, n) for _ in range(5)]) / n
    loops = max(1, round(seconds / per))
    one_hash = statistics.median([_timed(hash_rounds, 1) for _ in range(5)])
    return {"python_loops": loops, "python_seconds": per * loops, "hash_rounds": max(1, round(seconds / one_hash)), "hash_seconds": one_hash}


def _timed(f, n):
    t0 = time.perf_counter()
    f(n)
    return time.perf_counter() - t0


def run(client, kind, amount, n):
    t0 = time.perf_counter()
    futures = [client.submit(task, kind, amount, f"{kind}-{i}", key=f"{kind}-{i}-{time.time_ns()}", pure=False) for i in range(n)]
    wait(futures)
    wall = time.perf_counter() - t0
    records = client.gather(futures)
    makespan = max(r["end"] for r in records) - min(r["start"] for r in records)
    durations = [r["end"] - r["start"] for r in records]
    cpus = [r["cpu"] for r in records]
    return {"makespan": makespan, "wall": wall, "task_wall_median": statistics.median(durations), "task_cpu_median": statistics.median(cpus),
            "task_wall_sum": sum(durations), "task_cpu_sum": sum(cpus)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--out")
    args = parser.parse_args()
    out = {"load_before": load(), "tasks": args.tasks, "seconds": args.seconds}
    clusters = {}
    try:
        for threads in args.threads:
            c = LocalCluster(n_workers=1, threads_per_worker=threads, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
            client = Client(c)
            client.wait_for_workers(1)
            clusters[threads] = (c, client)
        # In a worker process, where the tasks run (a client's loop ran up to 1.4x slower here).
        cal = next(iter(clusters[args.threads[0]][1].run(calibrate, args.seconds).values()))
        out["calibration"] = cal
        amounts = {"python": cal["python_loops"], "release": cal["hash_rounds"], "sleep": args.seconds}
        for _, client in clusters.values():
            for kind, amount in amounts.items():
                run(client, kind, amount, 2)  # warm: imports, the buffer's first touch
        cells = {f"{threads}x{kind}": [] for threads in args.threads for kind in amounts}
        for _ in range(args.runs):
            for threads, (_, client) in clusters.items():
                for kind, amount in amounts.items():
                    cells[f"{threads}x{kind}"].append(run(client, kind, amount, args.tasks))
        out["cells"] = {
            name: {"makespan_median": statistics.median(r["makespan"] for r in rs), "makespans": [r["makespan"] for r in rs],
                   "task_cpu_sum_median": statistics.median(r["task_cpu_sum"] for r in rs), "runs": rs} for name, rs in cells.items()
        }
    finally:
        for c, client in clusters.values():
            client.close()
            c.close()
    out["load_after"] = load()
    harness.emit(out, args.out)


if __name__ == "__main__":
    main()
