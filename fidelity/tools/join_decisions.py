"""dask 2022.12.1's own placement decisions for one prefix, logged inside the scheduler.

Runs a compiled graph (from `sim.mjs dump`, e.g. ../shared/fidelity/graphs/shuffle-s1.json)
with the fidelity driver (../shared/fidelity/dask_driver.py: a fresh LocalCluster per run),
with `SchedulerState.decide_worker_non_rootish` wrapped (LocalCluster's scheduler runs in this
process): for every task of PREFIX placed (PREFIX may be a comma-separated list), each
candidate worker's occupancy, processing count, `_network_occ` (bytes still to fetch for its
tasks), `worker_objective` start time and stored bytes, every dependency's size and holders,
the prefix's duration estimate, the scheduler's bandwidth estimate and the worker chosen.
Steal confirmations are counted, and the replicas the active memory manager (ReduceReplicas,
every 2 s) asks workers to drop are logged.

    /usr/bin/python3 fidelity/tools/join_decisions.py ../shared/fidelity/graphs/shuffle-s1.json \\
        --prefix join --runs 3 --out decisions.json [--driver ../shared/fidelity] [--show]

Prints one line per decision (time since the run's first one) and one summary line per run.
"""
import argparse
import json
import os
import sys
import time

LOG = []


def install(prefix):
    from distributed import scheduler, stealing

    decide = scheduler.SchedulerState.decide_worker_non_rootish

    prefixes = tuple(p + "-" for p in prefix.split(","))

    def traced(self, ts):
        ws = decide(self, ts)
        if ts.key.startswith(prefixes):
            candidates = sorted({w for dts in ts.dependencies for w in dts.who_has}, key=lambda w: w.address)
            LOG.append({
                "t": time.time(), "key": ts.key, "bandwidth": self.bandwidth, "chosen": ws.address if ws else None,
                "duration_average": ts.prefix.duration_average,
                "deps": [{"key": d.key, "nbytes": d.get_nbytes(), "who_has": sorted(w.address for w in d.who_has)}
                         for d in ts.dependencies],
                "candidates": [{"worker": c.address, "occupancy": c.occupancy, "processing": len(c.processing),
                                "network_occ": c._network_occ, "objective": self.worker_objective(ts, c)[0],
                                "nthreads": c.nthreads,
                                "nbytes": c.nbytes} for c in candidates],
            })
        return ws

    scheduler.SchedulerState.decide_worker_non_rootish = traced
    confirm = stealing.WorkStealing.move_task_confirm

    async def traced_confirm(self, *args, **kwargs):
        LOG.append({"t": time.time(), "steal": kwargs.get("key"), "state": kwargs.get("state")})
        return await confirm(self, *args, **kwargs)

    stealing.WorkStealing.move_task_confirm = traced_confirm
    remove = scheduler.Scheduler.request_remove_replicas

    def traced_remove(self, addr, keys, *, stimulus_id):
        if stimulus_id.startswith("active_memory_manager"):
            LOG.append({"t": time.time(), "drop": list(keys), "worker": addr})
        return remove(self, addr, keys, stimulus_id=stimulus_id)

    scheduler.Scheduler.request_remove_replicas = traced_remove


def refetched(drops, placed, dependents):
    """Dropped copies a dependent placed on that worker later needed again."""
    return sum(1 for d in drops for key in d["drop"]
               if any(placed.get(x, (0, None))[0] > d["t"] and placed[x][1] == d["worker"] for x in dependents.get(key, ())))


def show(run, decisions, dependents):
    placed = [d for d in decisions if "key" in d]
    steals = [d for d in decisions if "steal" in d]
    drops = [d for d in decisions if "drop" in d]
    if not placed:
        print(f"run {run['run']}: no decision logged")
        return
    addresses = sorted({c["worker"] for d in placed for c in d["candidates"]} | {d["chosen"] for d in placed if d["chosen"]})
    t0 = placed[0]["t"]
    for d in placed:
        if not d["candidates"]:
            print(f"  +{d['t'] - t0:.3f} {d['key']:<8} no dependencies -> w{addresses.index(d['chosen']) if d['chosen'] in addresses else '?'}")
            continue
        cells = " | ".join(
            f"w{addresses.index(c['worker'])} occ={c['occupancy']:.3f} proc={c['processing']} "
            f"net={c['network_occ'] / 1e6:.0f}MB obj={c['objective']:.3f}" for c in d["candidates"])
        print(f"  +{d['t'] - t0:.3f} {d['key']:<8} bw={d['bandwidth'] / 1e6:5.1f} {cells} -> w{addresses.index(d['chosen'])}")
    per_worker = [sum(1 for d in placed if d["chosen"] == a) for a in addresses]
    print(f"run {run['run']}: makespan {run['makespan']:.3f} s, load {run['load_before']['1m']}, "
          f"placed per worker {per_worker}, steal answers {len(steals)}, "
          f"replicas the active memory manager dropped {sum(len(d['drop']) for d in drops)} in {len(drops)} requests "
          f"({refetched(drops, {d['key']: (d['t'], d['chosen']) for d in placed}, dependents)} needed again by a dependent "
          f"of PREFIX placed there later)", flush=True)


def arguments(doc, prefix):
    """The command line of a tool that runs a graph with the fidelity driver and logs inside the
    scheduler (this one, sends.py): its first docstring line, PREFIX's default."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("graph")
    p.add_argument("--prefix", default=prefix)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out", required=True)
    p.add_argument("--driver", default="../shared/fidelity", help="the folder of dask_driver.py")
    p.add_argument("--show", action="store_true", help="print the runs already in --out instead of running dask")
    p.add_argument("--untraced", action="store_true",
                   help="run the graph the same way with no hook installed (what do the hooks do to the runs?)")
    return p.parse_args()


def main():
    a = arguments(__doc__, "join")
    with open(a.graph) as f:
        graph = json.load(f)
    dependents = {}
    for t in graph["tasks"]:
        for d in t["deps"]:
            dependents.setdefault(d, []).append(t["key"])
    if a.show:
        with open(a.out) as f:
            for r in json.load(f):
                show(r["run"], r["decisions"], dependents)
        return
    sys.path.insert(0, os.path.abspath(a.driver))
    import dask_driver

    if not a.untraced:
        install(a.prefix)
    out = []
    for i in range(a.runs):
        LOG.clear()
        run = dask_driver.one_run(graph, i)
        out.append({"run": run, "decisions": list(LOG)})
        show(run, LOG, dependents)
        with open(a.out, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
