"""Where a worker's first refill of heavy-tree spends its time, with the leaves' 32 MB builds and
without them. Each run is a fresh 2 x 2 LocalCluster (common.start_cluster) running the graph,
with three timestamps logged inside each worker process for every task: the compute-task's
arrival (`Worker.handle_stimulus` of a ComputeTaskEvent), the loop entering `Worker.execute`,
and the task function's own start (fidelity_tasks.LOG); and when the worker handed each
task-finished to its batched stream; and every build (`make_bytes`, wrapped as build_probe.py
does). Prints one JSON object:

    python3 fidelity/tools/round_probe.py GRAPH [--runs 2] [--small BYTES] [--out FILE]

Each run is done twice: the graph as it is, and with the roots' outputs set to --small bytes
(default 100 kB, map's size: no build to speak of). Per variant and run, per task: worker,
arrive, execute, start, end, finished (seconds from the run's first start).
"""
import argparse
import json
import os
import time

import harness  # noqa: F401  (the dask harness on sys.path)
from common import load_average, start_cluster  # noqa: E402
import fidelity_tasks as ft  # noqa: E402
from distributed import wait  # noqa: E402


def install(dask_worker=None):
    """Run in each worker: wrap its stimulus handler, execute and batched stream to log times."""
    import time as _time

    from distributed.worker_state_machine import ComputeTaskEvent

    w = dask_worker
    w._probe = []
    handle = w.handle_stimulus

    def handle_stimulus(*stims):
        now = _time.time()
        for s in stims:
            if isinstance(s, ComputeTaskEvent):
                w._probe.append(("arrive", s.key, now))
        return handle(*stims)

    w.handle_stimulus = handle_stimulus
    execute = w.execute

    async def execute_probe(key, *, stimulus_id):
        w._probe.append(("execute", key, _time.time()))
        return await execute(key, stimulus_id=stimulus_id)

    w.execute = execute_probe
    stream = w.batched_stream
    send = stream.send

    def send_probe(*msgs):
        now = _time.time()
        for m in msgs:
            if isinstance(m, dict) and m.get("op") == "task-finished":
                w._probe.append(("finished", m.get("key"), now))
        return send(*msgs)

    stream.send = send_probe
    # The builds' intervals, as build_probe.py logs them.
    import fidelity_tasks

    if not hasattr(fidelity_tasks, "_probe_real"):
        fidelity_tasks._probe_real = fidelity_tasks.make_bytes

        def make_bytes(nbytes):
            t0 = _time.time()
            out = fidelity_tasks._probe_real(nbytes)
            w._probe.append(("build", (t0, int(nbytes)), _time.time()))
            return out

        fidelity_tasks.make_bytes = make_bytes
    return True


def read(dask_worker=None):
    return list(dask_worker._probe)


def one_run(graph, small):
    tasks = [dict(t) for t in graph["tasks"]]
    if small is not None:
        for t in tasks:
            if not t["deps"]:
                t["nbytes"] = small
    dsk = {t["key"]: (ft.work, t["key"], float(t["duration"]), int(t["nbytes"]), *t["deps"]) for t in tasks}
    outputs = [t["key"] for t in tasks if t["output"]]
    load_before = load_average()
    cluster, client = start_cluster(2, 2, None)
    try:
        client.run(install)
        addresses = sorted(client.scheduler_info()["workers"])
        futures = client.get(dsk, outputs, sync=False)
        wait(futures)
        log = client.run(ft.read_log)
        probe = client.run(read)
        del futures
    finally:
        client.close()
        cluster.close()
    rows = {}
    for w, entries in log.items():
        for key, start, end in entries:
            rows[key] = {"key": key, "worker": addresses.index(w), "start": start, "end": end}
    builds = []
    for w, entries in probe.items():
        for kind, key, t in entries:
            if kind == "build":
                builds.append({"worker": addresses.index(w), "start": key[0], "end": t, "nbytes": key[1]})
            elif key in rows:
                rows[key].setdefault(kind, t)
    t0 = min(r["start"] for r in rows.values())
    shift = lambda r: {k: (round(v - t0, 6) if isinstance(v, float) else v) for k, v in r.items()}
    out = [shift(r) for r in sorted(rows.values(), key=lambda r: r["start"])]
    return {"load_before": load_before, "leaf_bytes": small if small is not None else "graph", "tasks": out,
            "builds": sorted((shift(b) for b in builds), key=lambda b: b["start"])}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--small", type=int, default=100_000)
    p.add_argument("--out")
    a = p.parse_args()
    with open(a.graph) as f:
        graph = json.load(f)
    runs = []
    for i in range(a.runs):
        for small in (None, a.small):
            runs.append(one_run(graph, small))
    out = {"graph": os.path.basename(a.graph), "utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "runs": runs, "load_after": load_average()}
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
