"""Every task dask 2022.12.1's scheduler sends to a worker, and when, logged inside the scheduler.

join_decisions.py logs how a dependent was placed; this logs what the placement does to the
workers' slots: every `SchedulerState._add_to_processing` (a queued root-ish task popped for a
free slot, or a dependent placed) with each worker's processing count and occupancy right
after, and every `task-finished` the scheduler reads (to put the log on the run's clock: the
task records count from the first task's start). join_decisions.py's own log (the decisions of
PREFIX, steal confirmations, the active memory manager's drops) is kept beside it.

    PYTHONPATH=../shared/fidelity /usr/bin/python3 fidelity/tools/sends.py fidelity/quiet/graphs/heavy-tree-s1.json \\
        --prefix sum_a,sum_b,total --runs 3 --out fidelity/quiet/tools/sends-heavy-tree-s1.json [--driver ../shared/fidelity]

`--show` prints the runs already in --out: every send in order, each worker's processing count
and occupancy then, and where and when the task ran.
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import join_decisions  # noqa: E402
from join_decisions import arguments  # noqa: E402

SENDS = []


def install(prefix):
    from distributed import scheduler

    join_decisions.install(prefix)
    add = scheduler.SchedulerState._add_to_processing

    def traced_add(self, ts, ws):
        msgs = add(self, ts, ws)
        SENDS.append({
            "t": time.time(), "send": ts.key, "worker": ws.address,
            "processing": {w.address: len(w.processing) for w in self.workers.values()},
            "occupancy": {w.address: w.occupancy for w in self.workers.values()},
            "queued": len(self.queued),
        })
        return msgs

    scheduler.SchedulerState._add_to_processing = traced_add
    finished = scheduler.Scheduler.stimulus_task_finished

    def traced_finished(self, key=None, worker=None, stimulus_id=None, **kwargs):
        SENDS.append({"t": time.time(), "finished": key, "worker": worker})
        return finished(self, key=key, worker=worker, stimulus_id=stimulus_id, **kwargs)

    scheduler.Scheduler.stimulus_task_finished = traced_finished


def offset(run, sends):
    """Seconds to subtract from the log's clock to put it on the task records' clock: the
    median lag of a `task-finished` behind its task's recorded end, taken as zero."""
    ends = {t["key"]: t["end"] for t in run["task_records"]}
    lags = [s["t"] - ends[s["finished"]] for s in sends if "finished" in s and s["finished"] in ends]
    return statistics.median(lags) if lags else 0.0


def show(run, sends):
    t0 = offset(run, sends)
    addresses = sorted({s["worker"] for s in sends if "send" in s})
    w = {a: f"w{addresses.index(a)}" for a in addresses}
    recs = {t["key"]: t for t in run["task_records"]}
    # The task records number workers by sorted address too (dask_driver.py).
    print(f"run {run['run']}: makespan {run['makespan']:.3f} s, load {run['load_before']['1m']}, steals {run['steals']}")
    for s in sends:
        if "send" not in s:
            continue
        r = recs.get(s["send"])
        ran = f"ran w{r['worker']} {r['start']:.3f}-{r['end']:.3f}" if r else "not run"
        procs = " ".join(f"{w[a]}={n}" for a, n in sorted(s["processing"].items()))
        occ = " ".join(f"{w[a]}={o:.2f}" for a, o in sorted(s["occupancy"].items()))
        print(f"  {s['t'] - t0:7.3f} send {s['send']:<9} -> {w[s['worker']]}  processing {procs}  occupancy {occ}  queued {s['queued']:2d}  {ran}")


def main():
    a = arguments(__doc__, "sum_a,sum_b,total")
    if a.show:
        with open(a.out) as f:
            for r in json.load(f)["runs"]:
                show(r["run"], r["sends"])
        return
    with open(a.graph) as f:
        graph = json.load(f)
    sys.path.insert(0, os.path.abspath(a.driver))
    import dask_driver

    if not a.untraced:
        install(a.prefix)
    out = {"graph": a.graph, "load_before": os.getloadavg()[0], "runs": []}
    for i in range(a.runs):
        join_decisions.LOG.clear()
        SENDS.clear()
        run = dask_driver.one_run(graph, i)
        out["runs"].append({"run": run, "sends": list(SENDS), "decisions": list(join_decisions.LOG)})
        show(run, SENDS)
        out["load_after"] = os.getloadavg()[0]
        with open(a.out, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
