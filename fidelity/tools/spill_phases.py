#!/usr/bin/env python3
"""The spill case's phases, for dask's raw runs and spanwork's reports side by side.

    python3 fidelity/tools/spill_phases.py RAW.json [REPORT.json ...] [--json OUT]

RAW.json: a fidelity set's real/raw/spill-s1.json (every run's task records and spill totals);
REPORT.json: `spanwork run ... --json` reports of the same case. Per run, one row: where the
produce phase ends (last produce), the barrier, the consume phase (first start, last end),
each task class's mean time on a thread (end - start) and sum, the spill totals (bytes and
seconds written and read: dask's SpillBuffer metrics, each value timed on its own; spanwork's
disks' service, `spill.writeSeconds`/`readSeconds`, with the spans' seconds, queue included,
beside them), pauses, and the produce phase's stalls: seconds in which a worker ran no task at
all before the last produce ended (`idle_s`, summed over the workers: its loop busy — spilling —
or the worker paused) and how many such gaps of 30 ms or more (`stalls`). Medians over the runs
of each source follow. Why: to find which phase of the spill case a host model stretches more
than dask's competition did (lane cspill, 2 December 2026), and whether the loops' spilling
stalls the threads as dask's did (lane disk, 3 December 2026).
"""
import json
import statistics
import sys

CLASSES = ("produce", "summary", "barrier", "consume")


def gather_seconds(transfers):
    """The barrier's gather: the transfer of the most keys (the other worker's summaries)."""
    return max(transfers, key=lambda t: t["keys"])["seconds"] if transfers else 0.0


def idle(records, until, gap=0.03):
    """Seconds before `until` in which a worker ran no task (summed over workers; from its first
    task's start), and how many such gaps lasted `gap` seconds or more."""
    seconds, stalls = 0.0, 0
    for w in {t["worker"] for t in records}:
        edges = sorted(e for t in records if t["worker"] == w for e in ((t["start"], 1), (t["end"], -1)))
        running, last = 0, None
        for x, d in edges:
            if x > until:
                break
            if running == 0 and last is not None:
                seconds += x - last
                stalls += x - last >= gap
            running += d
            last = x
    return seconds, stalls


def row_from(records, spill, pauses, makespan):
    by = {c: [] for c in CLASSES}
    for t in records:
        p = t["key"].rsplit("-", 1)[0]
        if p in by:
            by[p].append(t)
    row = {"makespan": makespan, "pauses": pauses}
    row["produce_end"] = max(t["end"] for t in by["produce"])
    row["barrier_start"] = min(t["start"] for t in by["barrier"])
    row["barrier_end"] = max(t["end"] for t in by["barrier"])
    row["consume_start"] = min(t["start"] for t in by["consume"])
    row["consume_end"] = max(t["end"] for t in by["consume"])
    for c in CLASSES:
        d = [t["end"] - t["start"] for t in by[c]]
        row[f"{c}_mean"] = sum(d) / len(d)
        row[f"{c}_sum"] = sum(d)
    row["idle_s"], row["stalls"] = idle(records, row["produce_end"])
    row.update(spill)
    # MB/s of the SpillBuffer's own timings (dask: pickle + write, read + unpickle, each value on
    # its own; spanwork: the disks' service of each request, the wait behind earlier ones left out
    # as dask's metrics leave it — not the loop's wall, which the host stretches)
    row["write_MBps"] = spill["written_mb"] / spill["write_s"] if spill["write_s"] else 0.0
    row["read_MBps"] = spill["read_mb"] / spill["read_s"] if spill["read_s"] else 0.0
    return row


def dask_rows(path):
    raw = json.load(open(path))
    out = []
    for r in raw["runs"]:
        t0 = min(t["start"] for t in r["task_records"])
        recs = [{**t, "start": t["start"] - t0, "end": t["end"] - t0} for t in r["task_records"]]
        s = r["spill"]
        spill = {"written_mb": s["bytes_written"] / 1e6, "write_s": s["write_seconds"],
                 "read_mb": s["bytes_read"] / 1e6, "read_s": s["read_seconds"]}
        row = row_from(recs, spill, r["pauses"], r["makespan"])
        row["gather_s"] = gather_seconds([{"keys": t["keys"], "seconds": t["duration"]} for t in r["transfers"]])
        out.append(row)
    return out


def sim_row(path):
    rep = json.load(open(path))
    m = {tuple(x["name"]): x["value"] for x in rep["metrics"]}
    s = rep["spill"]
    # The disks' service, as dask's metrics time each value (a report before 3 December 2026 has
    # only the spans, whose seconds also hold the queue a burst of evictions builds: a burst of k
    # values issued at once counts the first value's service k times)
    spill = {"written_mb": s["bytesWritten"] / 1e6, "write_s": s.get("writeSeconds", m.get(("disk-write", "seconds"), 0)),
             "read_mb": s["bytesRead"] / 1e6, "read_s": s.get("readSeconds", m.get(("disk-read", "seconds"), 0))}
    spill["write_span_s"] = m.get(("disk-write", "seconds"), 0)
    spill["read_span_s"] = m.get(("disk-read", "seconds"), 0)
    pauses = sum(f["count"] for f in rep["faultCounts"] if f["kind"] == "pause")
    row = row_from(rep["taskRecords"], spill, pauses, rep["makespan"])
    row["gather_s"] = gather_seconds([{"keys": t["keys"], "seconds": t["end"] - t["start"]} for t in rep["transfers"] if t["outcome"] == "ok"])
    host = rep["cluster"].get("host")
    if host:
        w = host["coreWaitSeconds"]
        row["wait_loops"] = sum(w["eventLoops"])
        row["wait_tasks"] = w["tasks"]
    row["loop_s"] = sum(p["eventLoopSeconds"] for p in rep["perWorker"])
    return row


def show(label, rows):
    keys = [k for k in rows[0] if all(k in r for r in rows)]
    med = {k: statistics.median(r[k] for r in rows) for k in keys}
    print(f"{label} (median of {len(rows)}): " + " ".join(f"{k}={med[k]:.3f}" for k in keys))
    return med


def main(argv):
    out = None
    if "--json" in argv:
        i = argv.index("--json")
        out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    real = dask_rows(argv[0])
    for r in real:
        print("dask " + " ".join(f"{k}={v:.3f}" for k, v in r.items()))
    result = {"raw": argv[0], "dask": {"runs": real, "median": show("dask", real)}}
    if len(argv) > 1:
        sims = [sim_row(p) for p in argv[1:]]
        result["spanwork"] = {"reports": len(sims), "runs": sims, "median": show("spanwork", sims)}
    if out:
        json.dump(result, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
