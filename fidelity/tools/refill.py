"""Refill round trips and thread gaps: dask's raw runs against a spanwork report.

With queuing, a worker of T threads holds ceil(1.1 T) tasks; once a graph is wider than the
cluster, the k-th task to start on a worker was sent when the (k - S)-th task to end there
finished (S those slots), so start(k) - end(k - S) is the refill round trip — task-finished to
the scheduler, its decision, compute-task back, the worker's loop — plus any wait in the
worker's queue. The gaps are the same per thread slot (a task's start less the end of the
task before it on the slot, slots assigned greedily). Prints one line per dask run and one
for the spanwork report:

    /usr/bin/python3 fidelity/tools/refill.py fidelity/real/raw/wide-map-s1.json \\
        [REPORT.json] [--slots 3] [--threads 2]

REPORT.json: `spanwork run fidelity/specs/wide-map.json --seed 1 --cluster
profiles/dask-localcluster-2x2.yaml --json REPORT.json` (its taskRecords; the default
maxTaskRecords keeps up to 100,000).
"""
import argparse
import json


def round_trips(records, slots):
    by = {}
    for t in records:
        by.setdefault(t["worker"], []).append(t)
    out = []
    for tasks in by.values():
        starts = sorted(t["start"] for t in tasks)
        ends = sorted(t["end"] for t in tasks)
        out += [starts[k] - ends[k - slots] for k in range(slots, len(starts))]
    return sorted(out)


def thread_gaps(records, threads):
    by = {}
    for t in records:
        by.setdefault(t["worker"], []).append(t)
    gaps = []
    for tasks in by.values():
        tasks.sort(key=lambda t: t["start"])
        free = [None] * threads
        for t in tasks:
            idle = [i for i in range(threads) if free[i] is None or free[i] <= t["start"] + 1e-4]
            i = max(idle, key=lambda j: -1 if free[j] is None else free[j]) if idle else min(range(threads), key=lambda j: free[j])
            if free[i] is not None:
                gaps.append(t["start"] - free[i])
            free[i] = t["end"]
    return sorted(gaps)


def line(label, records, slots, threads):
    def q(xs, f):
        return 1e3 * xs[min(len(xs) - 1, int(len(xs) * f))]

    rt, gaps = round_trips(records, slots), thread_gaps(records, threads)
    durations = [t["end"] - t["start"] for t in records]
    return (f"{label:10} round trip ms: mean {1e3 * sum(rt) / len(rt):.2f} p10 {q(rt, .1):.2f} median {q(rt, .5):.2f} p90 {q(rt, .9):.2f}"
            f" | gap ms: mean {1e3 * sum(gaps) / len(gaps):.2f} median {q(gaps, .5):.2f} p90 {q(gaps, .9):.2f}"
            f" | task ms: mean {1e3 * sum(durations) / len(durations):.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("raw")
    p.add_argument("report", nargs="?")
    p.add_argument("--slots", type=int, default=3, help="tasks a worker holds (dask: ceil(1.1 x threads))")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    with open(a.raw) as f:
        raw = json.load(f)
    for run in raw["runs"]:
        print(line(f"dask {run['run']}", run["task_records"], a.slots, a.threads), f"| load {run['load_before']['1m']}")
    if a.report:
        with open(a.report) as f:
            report = json.load(f)
        print(line("spanwork", report["taskRecords"], a.slots, a.threads))


if __name__ == "__main__":
    main()
