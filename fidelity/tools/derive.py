"""Derives spanwork's overhead, memory and network figures from real dask runs: the raw files
of a fidelity set (dask_driver.py's output: every task's start, end and worker, every
transfer) and its compiled graphs. Prints each figure with the runs and the quantity it comes
from; profiles/dask-localcluster-2x2.yaml and docs/sim.md quote its output.

    python3 fidelity/tools/derive.py [SET] [--cases NAME,...]   # SET: a fidelity folder (default ../shared/fidelity);
                                                                 # --cases: only these cases' runs (e.g. chain-s1,map-s1,shuffle-s1,tree-s1)

- local gap: on one thread slot, from a task's end to the next task's start, when every
  dependency of the next task was on the same worker and finished at least 20 ms before the
  slot freed (so the next task was already there: no transfer, no scheduler round trip); for
  tasks without dependencies (root-ish, queued with ceil(1.1 x threads) slots) every gap of
  map-s1. Gaps over 20 ms are left out (a wait for data or for the scheduler's queue, which the
  simulator models on its own). Its mean is workerHandling: a done event handled and the next
  task started. Its spread is fitted as a lognormal: sigma = sqrt(2 ln(mean / median)), the
  lognormal with the measured mean and median (the profile's { dist: lognormal, mean, sigma });
  the measured and fitted coefficient of variation (a queue's wait behind the loop grows with
  E[S^2] = mean^2 (1 + CV^2)), p90 and p99, and the standard deviation of the gaps'
  logarithms (the maximum-likelihood sigma of the truncated sample), say how well it fits.
- chain hop: chain-s1, from one link's end to the next link's start (a done event, a round trip
  to the scheduler, a free-keys and a compute-task handled); gaps over 20 ms left out.
- transfers: the effective bandwidth of each transfer, bytes / (duration - latency), weighted
  by bytes, for transfers with no transfer in the opposite direction at the same time
  (isolated) and with one (concurrent: both workers of the host send and receive).
- memory: each worker's RSS before the run (unmanaged memory of a fresh worker), and its growth
  beyond the data it kept, per task it executed.
"""
import json
import math
import os
import statistics
import sys

LATENCY = 0.00114  # the shared set's small-transfer latency (its calibration.json): for a set without one


def set_latency(set_dir):
    """The set's own calibrated latency (calibration.json's median 1 kB transfer), else LATENCY."""
    try:
        with open(os.path.join(set_dir, "calibration.json")) as f:
            return json.load(f)["network"]["small_transfer_seconds_median"], "its calibration.json"
    except (OSError, ValueError, KeyError, TypeError):
        return LATENCY, "the shared set's, no calibration.json"
CUTOFF = 0.02


def load(set_dir, name, kind):
    with open(os.path.join(set_dir, "real" if kind == "raw" else "graphs", *(["raw"] if kind == "raw" else []), name + ".json")) as f:
        return json.load(f)


def slot_gaps(run):
    """(previous record, next record, gap) for consecutive tasks on one thread slot of a worker,
    reconstructed from starts and ends (each start takes the slot freed latest before it)."""
    by_worker = {}
    for t in run["task_records"]:
        by_worker.setdefault(t["worker"], []).append(t)
    nthreads = 2
    out = []
    for tasks in by_worker.values():
        tasks.sort(key=lambda t: t["start"])
        slots = []
        for t in tasks:
            if len(slots) < nthreads:
                slots.append(t)
                continue
            free = [s for s in slots if s["end"] <= t["start"] + 1e-9]
            prev = max(free, key=lambda s: s["end"]) if free else min(slots, key=lambda s: s["end"])
            slots.remove(prev)
            slots.append(t)
            out.append((prev, t, t["start"] - prev["end"]))
    return out


def summary(xs):
    xs = sorted(xs)
    return {"n": len(xs), "mean": statistics.mean(xs), "median": statistics.median(xs)} if xs else {"n": 0}


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def lognormal_fit(xs):
    """The lognormal with the sample's mean and median, and what to check it against."""
    mean, median = statistics.mean(xs), statistics.median(xs)
    sigma = math.sqrt(2 * math.log(mean / median)) if mean > median else 0.0
    logs = [math.log(x) for x in xs if x > 0]
    mu = math.log(mean) - sigma * sigma / 2
    return {
        "mean": mean, "median": median, "sigma": sigma, "sigma_logs": statistics.pstdev(logs),
        "cv": statistics.pstdev(xs) / mean, "p90": quantile(xs, 0.9), "p99": quantile(xs, 0.99),
        "fit_cv": math.sqrt(math.exp(sigma * sigma) - 1), "fit_p90": math.exp(mu + 1.2816 * sigma), "fit_p99": math.exp(mu + 2.3263 * sigma),
    }


def print_fit(label, xs):
    f = lognormal_fit(xs)
    print(f"  {label} as a lognormal: {{ dist: lognormal, mean: {f['mean']:.6f}, sigma: {f['sigma']:.2f} }} (median {f['median'] * 1e3:.2f} ms;"
          f" CV {f['cv']:.2f}, fitted {f['fit_cv']:.2f}; sigma of the logs {f['sigma_logs']:.2f}; p90 {f['p90'] * 1e3:.2f} ms, fitted {f['fit_p90'] * 1e3:.2f};"
          f" p99 {f['p99'] * 1e3:.2f} ms, fitted {f['fit_p99'] * 1e3:.2f}; n {len(xs)}, gaps under {CUTOFF * 1e3:.0f} ms)")


def case_names(set_dir, only=None):
    """The set's cases with raw runs, or only those named; exits 2 naming any it lacks."""
    names = sorted(f[:-5] for f in os.listdir(os.path.join(set_dir, "real", "raw")) if f.endswith(".json"))
    if only is not None:
        missing = only - set(names)
        if missing or not only:
            print(f"--cases: no raw runs of {', '.join(sorted(missing)) or 'any case'} in {set_dir}", file=sys.stderr)
            sys.exit(2)
        names = [n for n in names if n in only]
    return names


def derive(set_dir, only=None, latency=LATENCY):
    """Every sample the figures come from: local gaps, chain hops, isolated and concurrent
    transfer bytes and seconds, fresh workers' RSS, growth per task, the loads before the runs
    and each map/chain run's mean task overrun (a task's length less its graph duration); and the
    cluster's shape: workers (with an RSS reading), threads, workers per host (transfers' addresses).
    latency: the seconds a transfer's duration holds besides its bytes (the calibration's)."""
    names = case_names(set_dir, only)
    local, hops, isolated, concurrent, rss, growth, loads, overruns = [], [], [0, 0], [0, 0], [], [], [], []
    workers, threads, per_host = 0, None, {}
    for name in names:
        raw = load(set_dir, name, "raw")
        threads = threads or raw.get("cluster", {}).get("threads")
        graph = load(set_dir, name, "graph")
        deps = {t["key"]: t["deps"] for t in graph["tasks"]}
        nbytes = {t["key"]: t["nbytes"] for t in graph["tasks"]}
        duration = {t["key"]: t.get("duration") for t in graph["tasks"]}
        outputs = {t["key"] for t in graph["tasks"] if t["output"]}
        for run in raw["runs"]:
            loads.append(run["load_before"]["1m"])
            end = {t["key"]: t["end"] for t in run["task_records"]}
            worker = {t["key"]: t["worker"] for t in run["task_records"]}
            if name.startswith(("map", "chain")):
                late = [t["end"] - t["start"] - duration[t["key"]] for t in run["task_records"] if duration.get(t["key"])]
                if late:
                    overruns.append(statistics.mean(late))
            for prev, nxt, gap in slot_gaps(run):
                d = deps[nxt["key"]]
                if name.startswith("chain"):
                    continue
                ready_here = bool(d) and all(worker[k] == nxt["worker"] for k in d) and max(end[k] for k in d) < prev["end"] - CUTOFF
                if (ready_here or (not d and name.startswith("map"))) and gap < CUTOFF:
                    local.append(gap)
            if name.startswith("chain"):
                recs = sorted(run["task_records"], key=lambda t: t["start"])
                hops += [b["start"] - a["end"] for a, b in zip(recs, recs[1:]) if b["start"] - a["end"] < CUTOFF]
            transfers = run["transfers"]
            workers = max(workers, len(run["rss_before"]))
            seen = {}
            for t in transfers:
                for address in (t["from"], t["to"]):
                    seen.setdefault(address.split("://")[-1].rsplit(":", 1)[0], set()).add(address)
            for host, addresses in seen.items():
                per_host[host] = max(per_host.get(host, 0), len(addresses))
            for t in transfers:
                s, e = t["start"], t["start"] + t["duration"]
                opposite = any(o is not t and o["from"] != t["from"] and o["start"] < e and o["start"] + o["duration"] > s for o in transfers)
                bucket = concurrent if opposite else isolated
                bucket[0] += t["bytes"]
                bucket[1] += max(1e-6, t["duration"] - latency)
            rss += run["rss_before"]
            kept = [0.0] * len(run["rss_before"])
            for k in outputs:
                if k in worker:
                    kept[worker[k]] += nbytes[k]
            for w, (before, after) in enumerate(zip(run["rss_before"], run["rss_after"])):
                executed = run["tasks_per_worker"][w]
                if executed > 0:
                    growth.append((after - before - kept[w]) / executed)
    return {"set": os.path.abspath(set_dir), "cases": names, "local": local, "hops": hops, "isolated": isolated,
            "concurrent": concurrent, "rss": rss, "growth": growth, "loads": loads, "overruns": overruns,
            "workers": workers or None, "threads": threads, "workers_per_host": max(per_host.values()) if per_host else None}


def main():
    args = sys.argv[1:]
    only = None
    if "--cases" in args:
        i = args.index("--cases")
        only = set(args[i + 1].split(",")) if i + 1 < len(args) else set()
        del args[i : i + 2]
    set_dir = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fidelity")
    latency, source = set_latency(set_dir)
    d = derive(set_dir, only, latency)
    local, hops, isolated, concurrent, rss, growth, loads = (d[k] for k in ("local", "hops", "isolated", "concurrent", "rss", "growth", "loads"))
    print(f"fidelity set {d['set']}: cases {', '.join(d['cases'])}; load (1 min) before the runs {min(loads)}-{max(loads)}")
    gap = summary(local)
    print(f"local gap (workerHandling): mean {gap['mean'] * 1e3:.2f} ms, median {gap['median'] * 1e3:.2f} ms, n {gap['n']}")
    if local:
        print_fit("local gap", local)
    if hops:
        hop = summary(hops)
        print(f"chain hop: mean {hop['mean'] * 1e3:.2f} ms, median {hop['median'] * 1e3:.2f} ms, n {hop['n']}")
        print_fit("chain hop", hops)
    if isolated[1] > 0:
        print(f"isolated transfers: {isolated[0] / isolated[1] / 1e6:.0f} MB/s ({isolated[0] / 1e6:.0f} MB; latency {latency * 1e3:.2f} ms, {source})")
    if concurrent[1] > 0:
        print(f"concurrent transfers: {concurrent[0] / concurrent[1] / 1e6:.0f} MB/s each ({concurrent[0] / 1e6:.0f} MB): a host's shared capacity {2 * concurrent[0] / concurrent[1] / 1e6:.0f} MB/s")
    print(f"unmanaged memory of a fresh worker (RSS before the run): median {statistics.median(rss) / 1e6:.1f} MB, n {len(rss)}")
    print(f"unmanaged growth per task executed (RSS after - before - outputs kept) / tasks: median {statistics.median(growth) / 1e3:.1f} kB, n {len(growth)}")


if __name__ == "__main__":
    main()
