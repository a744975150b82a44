"""Where CPython's full garbage collections stopped dask's processes in recorded runs: a
collection holds the GIL, so its process's event loop and task threads wait it out, and a
worker with no task making progress for longer than a task's own length shows it. Reads the
shared driver's raw runs (dask_driver.py's real/raw/*.json: per run, each task's worker, start
and end) and prints one JSON object (--json OUT also writes it there):

    python3 fidelity/tools/gc_gaps.py RAW.json [...] [--json OUT] [--min-gap S] [--min-tasks N]
        [--band F] [--with-transfers]

A stop, per run and worker: a span longer than --min-gap (20 ms) in which none of its tasks was
making progress — no task running, or only tasks past their prefix's median length (+2 ms): a
sleeping task's end needs the GIL too, so a stop also shows as tasks that end late. With it, the
worker's count of tasks finished by then (counted from the run's start: every run is a fresh
cluster) and the stop's length (from the last progress to the next task start or late end).

Which process stopped:
- `worker`: one worker alone (the others kept running): its own collection;
- all workers at once: the scheduler's (its loop stopped, so the workers drained their queues and
  waited) — unless every worker's count is within --band (10 %) of a fresh worker's first
  collection (the median count of each run's first stop per worker; every fresh worker of
  a case allocates alike, so their first full collections come at the same count and often
  coincide), when it is `workers`: each worker's own, at once.
Per file: the stops of each run; pooled over the files, per process kind, how many, their
length and counts. Runs with fewer than --min-tasks (200) tasks per worker, or with transfers
(a wait for data is a gap too), are skipped unless --with-transfers. Bad input: one line, exit 2.
"""
import argparse
import bisect
import json
import statistics
import sys

from tool_args import Parser, checked, failer, read_json


fail = failer("gc_gaps.py")


def positive(kind, what):
    return checked(kind, what, lambda v: v > 0, f"{what} > 0")


# Its defaults, which make_profile.py's --gc takes too (pool()).
MIN_GAP = 0.02
MIN_TASKS = 200
BAND = 0.1


def prefix(key):
    return str(key).rsplit("-", 1)[0]


def worker_stops(records, min_gap, slack=0.002):
    """Per worker: [(start, end, finished)] of the spans with none of its tasks progressing."""
    lengths = {}
    for t in records:
        lengths.setdefault(prefix(t["key"]), []).append(t["end"] - t["start"])
    median = {p: statistics.median(v) for p, v in lengths.items()}
    out = {}
    for w in sorted({t["worker"] for t in records}):
        mine = [t for t in records if t["worker"] == w]
        ends = sorted(t["end"] for t in mine)
        # Each task progresses from its start until its end, or its prefix's median length (+ slack) if it ends later.
        spans = sorted((t["start"], min(t["end"], t["start"] + median[prefix(t["key"])] + slack), t["end"]) for t in mine)
        stops, last = [], None
        for start, progress, _ in spans:
            if last is not None and start - last > min_gap:
                stops.append((last, start, bisect.bisect_right(ends, last + 1e-9)))
            last = progress if last is None else max(last, progress)
        # A task that ended late and after which nothing started: its lateness is a stop too.
        tail = max(t["end"] for t in mine)
        if last is not None and tail - last > min_gap:
            stops.append((last, tail, bisect.bisect_right(ends, last + 1e-9)))
        out[w] = stops
    return out


def overlaps(a, b):
    return a[0] < b[1] and b[0] < a[1]


def run_stops(run, min_gap):
    """The run's stops: each worker's alone, and those of all workers at once grouped."""
    per = worker_stops(run["task_records"], min_gap)
    workers = sorted(per)
    alone, together = [], []
    for w in workers:
        for s in per[w]:
            others = [next((o for o in per[v] if overlaps(s, o)), None) for v in workers if v != w]
            if len(workers) > 1 and all(o is not None for o in others):
                if w == workers[0]:
                    together.append([(w, s)] + [(v, o) for v, o in zip([v for v in workers if v != w], others)])
            else:
                alone.append((w, s))
    return per, alone, together


def stop_row(w, s, t0=0.0):
    return {"worker": w, "at": round(s[0] - t0, 4), "tasks": s[2], "ms": round((s[1] - s[0]) * 1e3, 1)}


def analyse(path, opts):
    data = read_json(path, fail)
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list):
        fail(f"{path}: expected the driver's raw runs (an object with runs[])")
    out = {"file": path, "case": data.get("name"), "runs": [], "skipped": []}
    for i, run in enumerate(runs):
        records = run.get("task_records") if isinstance(run, dict) else None
        if not isinstance(records, list) or any(not isinstance(t, dict) or not {"key", "worker", "start", "end"} <= t.keys() for t in records):
            fail(f"{path}: runs[{i}].task_records: expected a list of {{key, worker, start, end}}")
        per_worker = run.get("tasks_per_worker") or []
        transfers = (run.get("transfer") or {}).get("count", 0)
        if not records or min(per_worker or [0]) < opts.min_tasks:
            out["skipped"].append({"run": run.get("run", i), "why": f"fewer than {opts.min_tasks} tasks per worker"})
            continue
        if transfers and not opts.with_transfers:
            out["skipped"].append({"run": run.get("run", i), "why": f"{transfers} transfers (a wait for data is a gap too; --with-transfers)"})
            continue
        per, alone, together = run_stops(run, opts.min_gap)
        out["runs"].append({"run": run.get("run", i), "makespan": run.get("makespan"), "load": (run.get("load_before") or {}).get("1m"),
                            "tasks_per_worker": per_worker, "alone": [stop_row(w, s) for w, s in alone],
                            "together": [[stop_row(w, s) for w, s in group] for group in together],
                            "first_stop": {str(w): (per[w][0][2] if per[w] else None) for w in per}})
    return out


def classify(files, band):
    """Each run's together stops as the scheduler's or as the workers' own (module docstring)."""
    firsts = [n for f in files for r in f["runs"] for n in r["first_stop"].values() if n is not None]
    first = statistics.median(firsts) if firsts else None
    for f in files:
        for r in f["runs"]:
            for group in r["together"]:
                own = first is not None and all(abs(s["tasks"] - first) <= band * first for s in group)
                for s in group:
                    s["kind"] = "workers" if own else "scheduler"
            for s in r["alone"]:
                s["kind"] = "worker"
    return first


def pooled(rows):
    if not rows:
        return {"stops": 0}
    ms = [r["ms"] for r in rows]
    tasks = [r["tasks"] for r in rows]
    at = [r["at"] for r in rows]
    return {"stops": len(rows), "ms_median": round(statistics.median(ms), 1), "ms_min": min(ms), "ms_max": max(ms),
            "tasks_median": statistics.median(tasks), "tasks_min": min(tasks), "tasks_max": max(tasks),
            "at_median": round(statistics.median(at), 3)}


def summarise(files, first, band):
    """Per process kind: a worker's own collections (alone or coinciding), one row per worker's
    stop (its own count); the scheduler's, one row per event (its longest worker stop, and the
    tasks all workers had finished: what the scheduler had heard of)."""
    worker, scheduler = [], []
    for f in files:
        for r in f["runs"]:
            worker += r["alone"]
            for group in r["together"]:
                if group[0]["kind"] == "workers":
                    worker += group
                else:
                    longest = max(group, key=lambda s: s["ms"])
                    # The scheduler counts every worker's tasks: the stop's count for its own term is their sum.
                    scheduler.append({**longest, "tasks": sum(s["tasks"] for s in group)})
    runs = sum(len(f["runs"]) for f in files)
    near = [s for s in worker if first is not None and abs(s["tasks"] - first) <= band * first]
    return {"runs": runs, "first_collection_tasks": first,
            "worker": {**pooled(worker), "first": pooled(near), "workers_without_first": sum(len(r["tasks_per_worker"]) for f in files for r in f["runs"]) - len(near)},
            "scheduler": {**pooled(scheduler), "runs_with_one": sum(1 for f in files for r in f["runs"] if any(g[0]["kind"] == "scheduler" for g in r["together"]))}}


def analyse_all(paths, opts):
    """Each file's stops and, pooled over them, per process kind (what main prints)."""
    files = [analyse(path, opts) for path in paths]
    return files, summarise(files, classify(files, opts.band), opts.band)


def pool(paths):
    """The pooled figures over `paths` with this tool's defaults (make_profile.py's --gc)."""
    return analyse_all(paths, argparse.Namespace(min_gap=MIN_GAP, min_tasks=MIN_TASKS, band=BAND, with_transfers=False))[1]


def main(argv):
    p = Parser(prog="gc_gaps.py", description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("raw", nargs="+")
    p.add_argument("--json")
    p.add_argument("--min-gap", type=positive(float, "seconds"), default=MIN_GAP)
    p.add_argument("--min-tasks", type=positive(int, "a number of tasks"), default=MIN_TASKS)
    p.add_argument("--band", type=positive(float, "a fraction"), default=BAND)
    p.add_argument("--with-transfers", action="store_true")
    opts = p.parse_args(argv)
    files, pooled_figures = analyse_all(opts.raw, opts)
    result = {"min_gap": opts.min_gap, "files": files, "pooled": pooled_figures}
    text = json.dumps(result, indent=1)
    if opts.json:
        try:
            with open(opts.json, "w") as f:
                f.write(text + "\n")
        except OSError as e:
            fail(f"cannot write {opts.json}: {e.strerror}")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
