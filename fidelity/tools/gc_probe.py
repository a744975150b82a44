"""How long CPython's garbage collector stops each dask 2022.12.1 process while a graph runs: a
collection holds the GIL, so the event loop (and every thread) of that process waits it out,
whichever thread triggered it. A candidate for the few-ms tail of dask's refill round trips at
high task rates (docs/sim.md, *wide-map*) that the model has no term for. Prints one JSON object:

    PYTHONPATH=../shared/fidelity /usr/bin/python3 fidelity/tools/gc_probe.py GRAPH... [--runs N] [--out FILE]

GRAPH: a compiled graph (the fidelity driver's graphs/*.json). Each run is a fresh LocalCluster
(the driver's common.start_cluster: 2 workers x 2 threads, processes, dask's default memory limit) with a gc callback installed in
the scheduler and in both workers before the graph is submitted; the tasks are overheads.py's
`build` (the fidelity tasks: the output built, the rest asleep). Per process and run: the
collections by generation, their summed and longest pause, how many lasted 1 ms or more, and
the run's makespan, counting only collections that started between the run's first task start
and last task end (the graph's submission is outside), and those of 1 ms or more with their
offset into the run; per graph the same pooled.
"""
import argparse
import json
import os
import statistics
import sys
import time

from distributed import wait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from overhead_tasks import build, read_log  # noqa: E402
import harness  # noqa: E402


def install(dask_worker=None, dask_scheduler=None):
    """A gc callback that keeps (generation, start, seconds) of every collection of this process
    (start: time.time(), as the tasks' own records)."""
    import builtins
    import gc
    import time as t

    log = []
    state = {"t": None, "wall": None}

    def callback(phase, info):
        if phase == "start":
            state["t"], state["wall"] = t.perf_counter(), t.time()
        elif state["t"] is not None:
            log.append((info["generation"], state["wall"], t.perf_counter() - state["t"]))
            state["t"] = None

    gc.callbacks.append(callback)
    builtins._gc_probe = (log, callback)
    return True


def collect(dask_worker=None, dask_scheduler=None):
    import builtins
    import gc

    log, callback = builtins._gc_probe
    gc.callbacks.remove(callback)
    return list(log)


def summary(pauses, first=None, last=None):
    """The collections' counts and pauses; with the run's first task start and last task end,
    only those inside it, and the pauses of 1 ms or more with their offset into the run."""
    if first is not None:
        pauses = [p for p in pauses if first <= p[1] <= last]
    ms = [p[2] * 1e3 for p in pauses]
    by_gen = {g: sum(1 for p in pauses if p[0] == g) for g in (0, 1, 2)}
    return {"collections": len(ms), "by_generation": by_gen, "pause_ms_total": round(sum(ms), 2),
            "pause_ms_max": round(max(ms), 3) if ms else 0, "pause_ms_median": round(statistics.median(ms), 3) if ms else 0,
            "pauses_1ms_or_more": sum(1 for x in ms if x >= 1), "pause_ms_total_1ms_or_more": round(sum(x for x in ms if x >= 1), 2),
            **({} if first is None else {"long": [[p[0], round(p[1] - first, 3), round(p[2] * 1e3, 2)] for p in pauses if p[2] >= 0.001]})}


def run_once(graph):
    # The driver's own cluster (no dashboard, quiet logs), with dask's default memory limit;
    # imported here, not at the top: the summary needs no dask harness (its test runs without it).
    from common import start_cluster

    c = graph.get("cluster", {})
    cl, client = start_cluster(c.get("workers", 2), c.get("threads", 2), "auto")
    try:
        client.run(read_log)
        before = round(os.getloadavg()[0], 2)
        dsk = {t["key"]: (build, t["key"], float(t["duration"]), int(t["nbytes"]), *t["deps"]) for t in graph["tasks"]}
        outputs = [t["key"] for t in graph["tasks"] if t["output"]]
        client.run_on_scheduler(install)
        client.run(install)
        wait(client.get(dsk, outputs, sync=False))
        sched = client.run_on_scheduler(collect)
        workers = client.run(collect)
        records = [r for rs in client.run(read_log).values() for r in rs]
        first, last = min(r[1] for r in records), max(r[2] for r in records)
        inside = lambda ps: [p for p in ps if first <= p[1] <= last]  # noqa: E731
        return {"makespan": last - first, "load": [before, round(os.getloadavg()[0], 2)], "scheduler": summary(sched, first, last),
                "workers": [summary(p, first, last) for p in workers.values()], "outside_run": summary([p for p in sched if not first <= p[1] <= last]),
                "_pauses": {"scheduler": inside(sched), "workers": [inside(p) for p in workers.values()]}}
    finally:
        client.close()
        cl.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graphs", nargs="+")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--out")
    a = p.parse_args()
    out = {"measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "graphs": []}
    for path in a.graphs:
        with open(path) as f:
            graph = json.load(f)
        runs = [run_once(graph) for _ in range(a.runs)]
        pooled_s = [x for r in runs for x in r["_pauses"]["scheduler"]]
        pooled_w = [x for r in runs for w in r["_pauses"]["workers"] for x in w]
        for r in runs:
            del r["_pauses"]
        out["graphs"].append({"graph": graph.get("name", path), "file": path, "tasks": len(graph["tasks"]), "runs": runs,
                              "scheduler_pooled": summary(pooled_s), "workers_pooled": summary(pooled_w)})
        print(graph.get("name"), json.dumps({"scheduler": out["graphs"][-1]["scheduler_pooled"], "workers": out["graphs"][-1]["workers_pooled"]}), file=sys.stderr, flush=True)
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
