"""Measures dask 2022.12.1's per-task overheads on this machine, for spanwork's overhead
parameters (docs/sim.md, "Overheads"). Each part runs on a fresh LocalCluster (processes, no
dashboard, the fidelity set's settings) and prints one JSON object:

    python3 fidelity/tools/overheads.py [--tasks N] [--out FILE]

- local_gap: 1 worker x 1 thread, N independent tasks of 20 ms (root-ish, queued: the next
  task is already on the worker when one ends): the wait between one task's end and the next
  one's start on the thread, from the tasks' own timestamps.
- chain_hop: 1 worker x 1 thread, a chain of N tasks of 20 ms: the wait from one link's end
  to the next one's start (a done event, a round trip to the scheduler, a compute-task).
- worker_loop_cpu_per_task / scheduler_loop_cpu_per_task: the CPU seconds of the worker's
  and the scheduler's event-loop threads (time.thread_time on the loop, via client.run and
  run_on_scheduler) per task, over a map of N tasks on 2 workers x 2 threads.
- scheduler_throughput: 4 workers x 1 thread, N tasks that take no time, all sent at once
  (worker-saturation inf): the wall time per task from the first start to the last end, which
  the scheduler's serial loop bounds from below (the four worker loops share the rest).
- graph (with --graph FILE, a compiled graph from `sim.mjs dump`, as the fidelity driver runs
  it on its cluster): the CPU of the scheduler's and the workers' loop threads per task while
  it runs, and its makespan.
- ping: the round trip of N `identity` calls from a worker to the scheduler over a pooled
  connection (an upper bound of twice the one-way message latency).
Every part records the 1-minute load average before and after.
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import time

from distributed import Client, LocalCluster, wait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from overhead_tasks import build, loop_cpu, read_log, work  # noqa: E402
import harness  # noqa: E402  (emit; this folder is on sys.path when a tool runs)


def load():
    return round(os.getloadavg()[0], 2)


def cluster(workers, threads):
    c = LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
    client = Client(c)
    client.wait_for_workers(workers)
    client.run(read_log)
    return c, client


def stats(xs):
    xs = sorted(xs)
    n = len(xs)
    return {"n": n, "median": statistics.median(xs), "mean": statistics.mean(xs), "trimmed_mean_95": statistics.mean(xs[: max(1, int(n * 0.95))]),
            "p10": xs[n // 10], "p90": xs[(9 * n) // 10]}


def gaps(records):
    records = sorted(records, key=lambda r: r[1])
    return [b[1] - a[2] for a, b in zip(records, records[1:])]


def local_gap(n):
    c, client = cluster(1, 1)
    try:
        before = load()
        dsk = {f"map-{i}": (work, f"map-{i}", 0.02) for i in range(n)}
        wait(client.get(dsk, list(dsk), sync=False))
        records = [r for rs in client.run(read_log).values() for r in rs]
        return {"local_gap": stats(gaps(records)), "load": [before, load()]}
    finally:
        client.close()
        c.close()


def chain_hop(n):
    c, client = cluster(1, 1)
    try:
        before = load()
        dsk = {"link-0": (work, "link-0", 0.02)}
        for i in range(1, n):
            dsk[f"link-{i}"] = (work, f"link-{i}", 0.02, f"link-{i - 1}")
        wait(client.get(dsk, [f"link-{n - 1}"], sync=False))
        records = [r for rs in client.run(read_log).values() for r in rs]
        return {"chain_hop": stats(gaps(records)), "load": [before, load()]}
    finally:
        client.close()
        c.close()


def loop_cpu_per_task(n):
    c, client = cluster(2, 2)
    try:
        before = load()
        w0 = client.run(loop_cpu)
        s0 = client.run_on_scheduler(loop_cpu)
        t0 = time.time()
        dsk = {f"map-{i}": (work, f"map-{i}", 0.005) for i in range(n)}
        wait(client.get(dsk, list(dsk), sync=False))
        wall = time.time() - t0
        w1 = client.run(loop_cpu)
        s1 = client.run_on_scheduler(loop_cpu)
        worker = sum(w1[a] - w0[a] for a in w0) / n
        return {"worker_loop_cpu_per_task": worker, "scheduler_loop_cpu_per_task": (s1 - s0) / n, "wall": wall, "tasks": n, "load": [before, load()]}
    finally:
        client.close()
        c.close()


def scheduler_throughput(n):
    import dask

    with dask.config.set({"distributed.scheduler.worker-saturation": float("inf")}):
        c, client = cluster(4, 1)
        try:
            before = load()
            s0 = client.run_on_scheduler(loop_cpu)
            dsk = {f"noop-{i}": (work, f"noop-{i}", 0.0) for i in range(n)}
            wait(client.get(dsk, list(dsk), sync=False))
            s1 = client.run_on_scheduler(loop_cpu)
            records = [r for rs in client.run(read_log).values() for r in rs]
            span = max(r[2] for r in records) - min(r[1] for r in records)
            return {"wall_per_task": span / n, "scheduler_loop_cpu_per_task": (s1 - s0) / n, "tasks": n, "load": [before, load()]}
        finally:
            client.close()
            c.close()


def graph_cpu(path):
    with open(path) as f:
        graph = json.load(f)
    c = graph.get("cluster", {})
    cl, client = cluster(c.get("workers", 2), c.get("threads", 2))
    try:
        before = load()
        dsk = {t["key"]: (build, t["key"], float(t["duration"]), int(t["nbytes"]), *t["deps"]) for t in graph["tasks"]}
        outputs = [t["key"] for t in graph["tasks"] if t["output"]]
        w0 = client.run(loop_cpu)
        s0 = client.run_on_scheduler(loop_cpu)
        wait(client.get(dsk, outputs, sync=False))
        w1 = client.run(loop_cpu)
        s1 = client.run_on_scheduler(loop_cpu)
        records = [r for rs in client.run(read_log).values() for r in rs]
        n = len(graph["tasks"])
        return {"graph": graph["name"], "tasks": n, "makespan": max(r[2] for r in records) - min(r[1] for r in records),
                "scheduler_loop_cpu_per_task": (s1 - s0) / n, "worker_loop_cpu_per_task": sum(w1[a] - w0[a] for a in w0) / n, "load": [before, load()]}
    finally:
        client.close()
        cl.close()


async def _ping(n, dask_worker=None):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        await dask_worker.scheduler.identity()
        times.append(time.perf_counter() - t)
    return times


def ping(n):
    c, client = cluster(1, 1)
    try:
        before = load()
        times = next(iter(client.run(_ping, n).values()))
        return {"ping": stats(times[5:]), "load": [before, load()]}
    finally:
        client.close()
        c.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--out")
    p.add_argument("--parts", help="comma-separated parts to run (default: all; none with --graph)")
    p.add_argument("--graph", action="append", help="a compiled graph (sim.mjs dump) to measure the loops' CPU on; repeatable")
    a = p.parse_args()
    out = {"measured_at": time.strftime("%Y-%m-%d %H:%M"), "tasks": a.tasks}
    parts = {p.__name__: p for p in (local_gap, chain_hop, loop_cpu_per_task, scheduler_throughput, ping)}
    chosen = a.parts.split(",") if a.parts else ([] if a.graph else list(parts))
    for part in (parts[name] for name in chosen):
        out[part.__name__] = part(a.tasks)
        print(part.__name__, json.dumps(out[part.__name__]), file=sys.stderr, flush=True)
    for path in a.graph or []:
        out.setdefault("graphs", []).append(graph_cpu(path))
        print("graph", json.dumps(out["graphs"][-1]), file=sys.stderr, flush=True)
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
