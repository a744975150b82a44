"""How the two threads of a worker drift apart in the first rounds of a queued tree: dask's raw
runs against spanwork reports. For heavy-tree (leaves of 0.4 s that build 32 MB first, two threads
a worker, three queued slots), per worker:

- round 0/1: the start spread of its first two roots (one batch), the end spread, the queued
  pickup (the third root's start less the first end: it was on the worker already), the refill
  (the fourth root's start less the first end: task-finished, the scheduler, compute-task back),
  the second thread's wait for it, and the end spread after (what round 2 inherits);
- per round, the spread of the threads' root ends (consecutive ends paired in order);
- the roots' overrun (end - start - duration) by what ran on the host at their nominal end: a
  root that started within 30 ms before (its build) on the same worker, only on the other, none;
  tasks that ended inside a transfer (+2 ms) are left out (a receive's join holds the GIL);
- the order in which the first four roots ended (A: the worker of the first), where the first
  dependent went and whether the run ended late (makespan over --late);
- when the third dependent's (`sum_a-2`) inputs were all done: a round early (< --early s) or not.

    python3 fidelity/tools/round_one.py DASK.json... [--sw REPORT.json...] [--duration 0.4] [--late 4.05]

DASK.json: dask_driver.py's output (fidelity/quiet/real/raw/heavy-tree-s1.json, and
fidelity/quiet/tools/{dask_driver-heavy-tree-s1{,-3},sends-untraced-heavy-tree-s1-3}.json: the 19
quiet untraced runs). REPORT.json: `node bin/spanwork.js run fidelity/quiet/specs/heavy-tree.json
--cluster profiles/dask-localcluster-2x2-quiet.yaml --seed N --json REPORT.json`.
"""
import argparse
import json
import statistics


def runs_of(path):
    """(task records, transfers as (start, end), makespan) per run of a dask or spanwork file."""
    with open(path) as f:
        d = json.load(f)
    if "taskRecords" in d:
        yield d["taskRecords"], [(x["start"], x["end"]) for x in d.get("transfers", [])], d["makespan"]
        return
    for run in d["runs"]:
        run = run["run"] if "sends" in run else run
        yield run["task_records"], [(x["start"], x["start"] + x["duration"]) for x in run.get("transfers", [])], run["makespan"]


def is_root(key):
    return key.startswith("leaf-")


def round_one(records):
    out = []
    for w in sorted({t["worker"] for t in records}, key=str):
        roots = sorted((t for t in records if t["worker"] == w and is_root(t["key"])), key=lambda t: t["start"])
        if len(roots) < 4:
            continue
        first, nxt = roots[:2], sorted(roots[2:4], key=lambda t: t["start"])
        starts = sorted(t["start"] for t in first)
        ends = sorted(t["end"] for t in first)
        ms = lambda s: s * 1e3
        out.append({
            "start spread": ms(starts[1] - starts[0]),
            "end spread": ms(ends[1] - ends[0]),
            "queued pickup": ms(nxt[0]["start"] - ends[0]),
            "refill from first end": ms(nxt[1]["start"] - ends[0]),
            "second thread waits": ms(nxt[1]["start"] - ends[1]),
            "end spread after": ms(abs(nxt[1]["end"] - nxt[0]["end"])),
        })
    return out


def round_spreads(records, rounds=6):
    out = []
    for w in {t["worker"] for t in records}:
        ends = sorted(t["end"] for t in records if t["worker"] == w and is_root(t["key"]))
        out.append([(ends[2 * i + 1] - ends[2 * i]) * 1e3 for i in range(min(rounds, len(ends) // 2))])
    return out


def overrun_classes(records, transfers, duration):
    out = {}
    for t in records:
        if not is_root(t["key"]):
            continue
        nominal = t["start"] + duration
        if any(s - 0.002 <= nominal <= e + 0.002 for s, e in transfers):
            continue

        def building(same):
            return any(u is not t and is_root(u["key"]) and (u["worker"] == t["worker"]) == same and nominal - 0.03 <= u["start"] <= nominal for u in records)

        kind = "a build on its worker" if building(True) else "a build on the other only" if building(False) else "no build"
        out.setdefault(kind, []).append((t["end"] - nominal) * 1e3)
    return out


def first_pattern(records, late, makespan):
    by = {t["key"]: t for t in records}
    first = sorted((by[f"leaf-{i}"] for i in range(4)), key=lambda t: t["end"])
    a = first[0]["worker"]
    pattern = "".join("A" if t["worker"] == a else "B" for t in first)
    dependent = "A" if by["sum_a-0"]["worker"] == a else "B"
    return pattern, dependent, makespan > late


def summary(values):
    v = sorted(values)
    if not v:
        return "-"
    return f"{statistics.median(v):5.1f} [{v[len(v) // 10]:4.1f}..{v[len(v) * 9 // 10]:5.1f}]"


def report(label, files, duration, late, early):
    r1, spreads, classes, patterns, early_runs, runs = [], [], {}, {}, 0, 0
    for path in files:
        for records, transfers, makespan in runs_of(path):
            runs += 1
            r1 += round_one(records)
            spreads += round_spreads(records)
            for kind, v in overrun_classes(records, transfers, duration).items():
                classes.setdefault(kind, []).extend(v)
            key = first_pattern(records, late, makespan)
            patterns.setdefault(key[:2], []).append(key[2])
            by = {t["key"]: t for t in records}
            if max(by[f"leaf-{i}"]["end"] for i in range(8, 12)) < early:
                early_runs += 1
    print(f"{label}: {runs} runs, {len(r1)} workers (median [p10..p90], ms)")
    for name in r1[0]:
        print(f"  round 1, {name:22s} {summary([x[name] for x in r1])}")
    for i in range(6):
        v = [s[i] for s in spreads if len(s) > i]
        print(f"  round {i} end spread            {summary(v)}  (p25 {sorted(v)[len(v) // 4]:.1f})")
    for kind, v in sorted(classes.items()):
        print(f"  root overrun, {kind:27s} n={len(v):3d} mean {statistics.mean(v):.2f}  {summary(v)}  > 1 ms {100 * sum(x > 1 for x in v) / len(v):.0f} %")
    for (pattern, dependent), lates in sorted(patterns.items()):
        print(f"  first four ends {pattern}, sum_a-0 on {dependent}: {len(lates)} runs, {sum(lates)} late")
    print(f"  sum_a-2's inputs all done before {early} s: {early_runs}/{runs}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dask", nargs="*")
    p.add_argument("--sw", nargs="*", default=[])
    p.add_argument("--duration", type=float, default=0.4)
    p.add_argument("--late", type=float, default=4.05)
    p.add_argument("--early", type=float, default=1.45)
    a = p.parse_args()
    if a.dask:
        report("dask", a.dask, a.duration, a.late, a.early)
    if a.sw:
        report("spanwork", a.sw, a.duration, a.late, a.early)


if __name__ == "__main__":
    main()
