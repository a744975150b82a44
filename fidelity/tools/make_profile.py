"""Writes a spanwork cluster profile (YAML, for `--cluster FILE`) for the dask cluster that a
fidelity set was measured on, every field commented with the figure it comes from:

    python3 fidelity/tools/make_profile.py SET [--cases NAME,...] [--calibration FILE]
        [--fetch-cost FILE] [--disk-shared FILE] [--scheduler-decision S] [--worker-message S]
        [--gc FILE [--gc-scheduler]] [--cores N [--load L]] [--name NAME] > profile.yaml

SET: a folder with real/raw (the shared driver's runs, dask_driver.py) and graphs (as measure.sh
writes them); --cases: derive from these cases' runs only (hold the others out to test the
profile on them); --calibration: the shared calibrate.py's output measured on the same machine
(default SET/calibration.json); --fetch-cost: fetch_cost.py's output (the connection cost and
the receiver's deserialisation per byte); --disk-shared: disk_shared.py --paced's output (the
host's disk shared by its workers); --scheduler-decision, --worker-message: seconds
measured with overheads.py (otherwise spanwork's defaults, dask's measured ones, apply);
--cores, --load: the host's cores and the other jobs' runnable threads while the runs ran (a
`host` section; load 0 unless given); --gc: gc_gaps.py's output (the stops in raw runs) or
gc_probe.py's (the collections timed in place): a worker's first full collection
(`overheads.workerGc`: its task count from gc_gaps — for gc_probe's file, gc_gaps over SET's raw
runs — and its stop); the scheduler's (`schedulerGc`) is written as a comment unless
--gc-scheduler (its count depends on how many runs the driver's process ran before).

What comes from where (docs/calibrate.md has the whole procedure):
- the runs (derive.py): the worker's
  handling cost (the mean local gap), the message latency (the chain hop less the costs around
  it), the tasks' overrun (map and chain tasks' length less their duration: the mean of each
  run's mean), unmanaged memory (a fresh worker's RSS) and its growth per task;
- the calibration: the latency (a 1 kB transfer), one transfer alone (the bandwidth and the
  loops' capacity; the runs' in-run rates are printed beside it as a check), the
  spread of transfers (transfer_spread.py's sigma from its 7-per-size min and max), the disk;
- dask itself: the BatchedSend intervals, the memory fractions and the monitor's interval, as
  distributed 2022.12.1 sets them by default (a cluster configured otherwise: edit them).
Fields it cannot derive are left out and named in a comment, so spanwork's defaults apply.
Bad input: one line on stderr naming the problem, exit 2.
"""
import json
import os
import statistics
import sys

import derive
import deserialise
import tool_args
import transfer_spread
from tool_args import Parser, checked, failer

# distributed 2022.12.1's defaults (the Scheduler's and Worker's BatchedSend intervals,
# distributed.worker.memory.*); overheads.py measured none of them.
SCHEDULER_BATCH = 0.005
WORKER_BATCH = 0.002
MEMORY_FRACTIONS = (("target", 0.6), ("spill", 0.7), ("pause", 0.8), ("terminate", 0.95))
MONITOR_INTERVAL = 0.1
# disk_shared.py's value size (its NBYTES), for its outputs from before it recorded it as value_bytes
DISK_SHARED_VALUE_BYTES = 25_000_000
# spanwork's defaults for the figures no run of a set separates (docs/sim.md, "Overheads").
SCHEDULER_DECISION = 0.00062
WORKER_MESSAGE = 0.0001


fail = failer("make_profile.py")


def rate(bytes_per_second):
    return f"{bytes_per_second / 1e9:.3g} GB" if bytes_per_second >= 1e9 else f"{bytes_per_second / 1e6:.3g} MB"


def seconds(value):
    return f"{value:.3g}" if value != 0 else "0"


def size(nbytes):
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 1e6 else f"{nbytes / 1e3:.1f} kB"


def read_json(path, what):
    return tool_args.read_json(path, fail, what)


seconds_arg = checked(float, "seconds", lambda v: v >= 0, "seconds ≥ 0")
cores_arg = checked(int, "a whole number of cores", lambda v: v >= 1, "at least 1 core")
load_arg = checked(float, "a number of other runnable threads", lambda v: v >= 0, "a number ≥ 0")


def parse(argv):
    p = Parser(prog="make_profile.py", description=__doc__.splitlines()[0], add_help=False, allow_abbrev=False)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("set", nargs="?")
    p.add_argument("--cases", type=lambda text: set(c for c in text.split(",") if c))
    p.add_argument("--calibration")
    p.add_argument("--fetch-cost")
    p.add_argument("--disk-shared")
    p.add_argument("--cores", type=cores_arg)
    p.add_argument("--load", type=load_arg)
    p.add_argument("--scheduler-decision", type=seconds_arg)
    p.add_argument("--worker-message", type=seconds_arg)
    p.add_argument("--gc")
    p.add_argument("--gc-scheduler", action="store_true")
    p.add_argument("--name")
    a, unknown = p.parse_known_args(argv)
    if a.help:
        print(__doc__.strip())
        sys.exit(0)
    for arg in unknown:
        fail(f"unknown option {arg}" if arg.startswith("-") else "expected one fidelity set (a folder with real/raw and graphs)")
    if a.set is None:
        fail("expected one fidelity set (a folder with real/raw and graphs)")
    if a.gc_scheduler and a.gc is None:
        fail("--gc-scheduler needs --gc: the scheduler's stops are in gc_gaps.py's or gc_probe.py's output")
    if a.load is not None and a.cores is None:
        fail("--load needs --cores: the competition is a share of the host's cores")
    return vars(a)


def fetch_figures(path):
    """connectLatency (a fetch on a new connection less one on a pooled one) and the idle fetches'
    deserialisation per byte, as fetch_cost.py measured them."""
    data = read_json(path, "--fetch-cost")
    summary = data.get("summary", {})
    loads = [data.get("load_before"), data.get("load_after")]
    out = {"load": [x.get("1m") if isinstance(x, dict) else x for x in loads]}
    new, pooled = summary.get("connect-new k=1"), summary.get("connect-pooled k=1")
    if new and pooled:
        out["connect"] = (new["duration_ms_median"] - pooled["duration_ms_median"]) / 1e3
    pairs = [(x["bytes"] / 1e6, x["deserialise"] * 1e3) for x in data.get("fetches", []) if x.get("scenario") == "idle" and x.get("deserialise") is not None]
    # deserialise.py's own line through the idle fetches, so the figure is the one it prints
    slope = deserialise.fit(pairs).get("fit_ms_per_MB", 0) if pairs else 0
    if slope > 0:
        out["deserialize"] = 1e9 / slope  # ms per MB -> bytes per second
        out["fetches"] = len(pairs)
    return out


def disk_shared_figures(path):
    """What disk_shared.py --paced's output gives, from one read of it: `shared`, the per-value rate
    of one process's spill writes and reads while the other process's disk was busy, pooled (what a
    second worker adds to the host's disk), with its count and load span, or None without such
    rounds; `removal`, a spilled
    value's file removal from its timed removals (zict's File.__delitem__ in place, one process's
    disk alone): the value size over their median, as a bandwidth with no per-file term
    (--remove-sweep: a removal grows with the file, 0.06-0.09 ms at 1 MB), or None when the output
    has no timed removals (disk_shared.py before it timed them)."""
    data = read_json(path, "--disk-shared")
    runs = data.get("runs") or [data]  # one run, or several pooled (the loaded machine's file)
    rounds = [r for run in runs for r in run.get("rounds", [])]
    values = [v for r in rounds for op in ("write", "read") for v in r.get("op_MBps_shared", {}).get(op, [])]
    loads = [run["load_before"] for run in runs if isinstance(run.get("load_before"), (int, float))]
    span = "?" if not loads else f"{loads[0]:.2g}" if min(loads) == max(loads) else f"{min(loads):.2g}-{max(loads):.2g}"
    removals = [v for r in rounds for v in r.get("remove_ms_alone", [])]
    removal = None
    if removals:
        value_bytes = data.get("value_bytes", DISK_SHARED_VALUE_BYTES)
        ms = statistics.median(removals)
        removal = (value_bytes / (ms / 1e3), ms, len(removals), value_bytes)
    return {"shared": (statistics.median(values) * 1e6, len(values), span) if values else None, "removal": removal}


def gc_gaps_of_set(set_dir):
    """gc_gaps.py's pooled figures over SET's raw runs (its defaults: runs of 200 tasks per worker or more, without transfers)."""
    import gc_gaps

    raw = os.path.join(set_dir, "real", "raw")
    return gc_gaps.pool([os.path.join(raw, f) for f in sorted(os.listdir(raw)) if f.endswith(".json")])


def gc_figures(path, set_dir):
    """(worker, scheduler): each None or (first, stop seconds, where from) for the overheads' workerGc and schedulerGc."""
    data = read_json(path, "--gc")
    if not isinstance(data, dict):
        fail(f"--gc {path}: expected gc_gaps.py's or gc_probe.py's output (a JSON object)")
    rel = os.path.relpath(path)
    if "pooled" in data:  # gc_gaps.py
        pooled = data["pooled"]
        first, sched = pooled.get("worker", {}).get("first", {}), pooled.get("scheduler", {})
        worker = None
        if first.get("stops"):
            worker = (round(first["tasks_median"]), first["ms_median"] / 1e3,
                      f"gc_gaps.py {rel}: medians of {first['stops']} fresh workers' first stops in {pooled['runs']} runs (after {first['tasks_min']}-{first['tasks_max']} of their tasks, {first['ms_min']:g}-{first['ms_max']:g} ms)")
        scheduler = None
        if sched.get("stops"):
            scheduler = (round(sched["tasks_median"]), sched["ms_median"] / 1e3,
                         f"gc_gaps.py {rel}: medians of {sched['stops']} stops of all workers at once in {sched['runs_with_one']} of {pooled['runs']} runs (after {sched['tasks_min']}-{sched['tasks_max']} tasks in all, {sched['ms_min']:g}-{sched['ms_max']:g} ms)")
        return worker, scheduler
    if "graphs" in data:  # gc_probe.py: the pauses timed; the counts from the set's runs
        pauses = {"workers": [], "scheduler": []}
        for g in data["graphs"]:
            for run in g.get("runs", []):
                for kind, procs in (("scheduler", [run.get("scheduler", {})]), ("workers", run.get("workers", []))):
                    pauses[kind] += [p[2] for proc in procs for p in proc.get("long", []) if p[0] == 2]
        gaps = gc_gaps_of_set(set_dir)
        first, sched = gaps["worker"].get("first", {}), gaps["scheduler"]
        out = []
        for kind, counts, what in (("workers", first, "fresh workers' first stops"), ("scheduler", sched, "stops of all workers at once")):
            if not pauses[kind] or not counts.get("stops"):
                out.append(None)
                continue
            ms = pauses[kind]
            out.append((round(counts["tasks_median"]), statistics.median(ms) / 1e3,
                        f"gc_probe.py {rel} (measured {data.get('measured_at', '?')}): the median of {len(ms)} gen-2 collection{'s' if len(ms) != 1 else ''} ({min(ms):g}-{max(ms):g} ms); the count: gc_gaps.py over {os.path.relpath(set_dir)}/real/raw, the median of {counts['stops']} {what}"))
        return out[0], out[1]
    fail(f"--gc {path}: expected gc_gaps.py's output (pooled) or gc_probe.py's (graphs)")


def main(argv):
    opts = parse(argv)
    set_dir = opts["set"]
    if not os.path.isdir(os.path.join(set_dir, "real", "raw")):
        fail(f"{set_dir}: no real/raw folder (the driver's raw runs)")
    cal_path = opts["calibration"] or os.path.join(set_dir, "calibration.json")
    cal = read_json(cal_path, "calibration")
    if not isinstance(cal, dict):
        fail(f"calibration {cal_path}: expected a JSON object (calibrate.py's output)")
    net, disk = cal.get("network", {}), cal.get("disk", {}).get("fit")
    fit = net.get("bandwidth_fit")
    if "small_transfer_seconds_median" not in net or not fit:
        fail(f"calibration {cal_path}: no network.small_transfer_seconds_median or network.bandwidth_fit (calibrate.py's output)")
    latency = net["small_transfer_seconds_median"]
    for case in derive.case_names(set_dir, opts["cases"]):
        if not os.path.isfile(os.path.join(set_dir, "graphs", case + ".json")):
            fail(f"{set_dir}: no graphs/{case}.json (the compiled graph of its raw runs)")
    d = derive.derive(set_dir, opts["cases"], latency)
    if not d["loads"]:
        fail(f"{set_dir}: no runs in real/raw of {', '.join(d['cases']) or 'any case'}")
    workers, threads, per_host = d["workers"], d["threads"], d["workers_per_host"]
    fetch = fetch_figures(opts["fetch_cost"]) if opts["fetch_cost"] else {}
    deser = fetch.get("deserialize", transfer_spread.DESERIALIZE_BANDWIDTH)
    spread = transfer_spread.wire_sigma_from_range(cal_path, deserialize_bandwidth=deser)["wire_sigma"]
    decision = opts["scheduler_decision"] if opts["scheduler_decision"] is not None else SCHEDULER_DECISION
    message = opts["worker_message"] if opts["worker_message"] is not None else WORKER_MESSAGE
    loads = d["loads"]
    name = opts["name"] or os.path.basename(os.path.abspath(set_dir))
    cases = ", ".join(d["cases"])
    rel_cal = os.path.relpath(cal_path)

    out = [
        f"# Derived by fidelity/tools/make_profile.py from {os.path.relpath(set_dir)} (cases {cases}; load before the runs",
        f"# {min(loads)}-{max(loads)}) and {rel_cal} (measured {cal.get('measured_at', '?')}).",
        f"# Compare: node scripts/fidelity.mjs --cluster PROFILE {os.path.relpath(set_dir)}",
        # JSON strings are YAML strings: a name with ": " or "#" in it stays a name.
        f"name: {json.dumps(name)}",
        f"description: {json.dumps(f'the dask cluster measured in {os.path.relpath(set_dir)}, {workers} workers x {threads} threads')}",
        "",
        f"workers: {workers}                  # the runs: workers with an RSS reading",
        f"threads: {threads}                  # the runs' cluster",
    ]
    if per_host and per_host > 1:
        out += [f"workersPerHost: {per_host}           # the runs: worker addresses per host in their transfers",
                "network: shared-host           # workers of a host draw on one capacity"]
    else:
        out += ["network: max-min"]
    out.append(f"latency: {seconds(latency)}               # calibration: median of {net.get('small_transfers', '?')} single-key transfers of {net.get('small_transfer_bytes', '?')} bytes")
    # A lone transfer's rate, not the runs' in-run one: inside a run the model's own spread,
    # deserialisation and host cores slow the transfers as dask's were (docs/sim.md, "The lone
    # bandwidth and the host's cores"); the in-run figures are printed as the check.
    lone = fit["bytes_per_s"]
    iso_bytes, iso_seconds = d["isolated"]
    con_bytes, con_seconds = d["concurrent"]
    out.append(f"bandwidth: {rate(lone)}            # calibration: single-key transfers of 1-64 MB one at a time, latency + bytes / bandwidth")
    if iso_seconds > 0:
        out.append(f"# in the runs (derive; check with fidelity/tools/in_run_rates.mjs): transfers with none in the other direction {iso_bytes / iso_seconds / 1e6:.0f} MB/s ({iso_bytes / 1e6:.0f} MB)"
                   + (f", overlapping one the other way {con_bytes / con_seconds / 1e6:.0f} MB/s each ({con_bytes / 1e6:.0f} MB)" if con_seconds > 0 else ""))
    out.append("# No hostBandwidth: the host's capacity is then its workers' loops, so two transfers at once share them")
    out.append(f"loopBandwidth: {rate(fit['bytes_per_s'])}        # calibration: single-key transfers of 1-64 MB one at a time, latency + bytes / bandwidth")
    if "deserialize" in fetch:
        out.append(f"deserializeBandwidth: {rate(fetch['deserialize'])} # fetch_cost.py: {fetch['fetches']} idle fetches, the receiver's deserialisation per MB (load {fetch['load'][0]}-{fetch['load'][1]})")
    else:
        out.append("# deserializeBandwidth: not measured (fetch_cost.py, then --fetch-cost); spanwork's default, dask's measured 1.37 GB/s, applies")
    out.append(f"transferSpread: {spread:.2f}          # transfer_spread.py: the lognormal wire factor's sigma matching the calibration's 7-per-size min/max")

    out += ["", "disk:"]
    if disk:
        out += [f"  bandwidth: {rate(disk['bytes_per_s'])}          # calibration: SpillBuffer set and get of 64 KiB-64 MB values",
                f"  latency: {seconds(disk['latency_s'])}            # calibration: the same fit's seconds per value"]
    else:
        out.append("  # no disk fit in the calibration: spanwork's default disk applies")
    disk_shared = disk_shared_figures(opts["disk_shared"]) if disk and opts["disk_shared"] else None
    if disk_shared and per_host and per_host > 1:
        if disk_shared["shared"] is None:
            fail(f"--disk-shared {opts['disk_shared']}: no rounds with both processes' disks busy (op_MBps_shared)")
        shared, n, load = disk_shared["shared"]
        out.append(f"  hostBandwidth: {rate(disk['bytes_per_s'] + shared)}      # disk_shared --paced: one process beside the other's busy disk {shared / 1e6:.0f} MB/s"
                   f" (median of {n} values, load {load}), added to the bandwidth above")
    else:
        out.append("  # hostBandwidth: not derived (disk_shared.py --paced, then --disk-shared); spanwork's default applies")
    removal = disk_shared["removal"] if disk_shared else None
    if removal:
        bandwidth, ms, n, value_bytes = removal
        out += ["  removeLatency: 0           # disk_shared --remove-sweep: a removal grows with the file (0.06-0.09 ms at 1 MB), no per-file term",
                f"  removeBandwidth: {rate(bandwidth)}    # disk_shared --paced: zict's File.__delitem__ timed in place, median {ms:.2f} ms per {value_bytes / 1e6:g} MB value ({n} values, one disk alone)"]
    else:
        out.append("  # removeLatency, removeBandwidth: not derived (disk_shared.py --paced's timed removals, then --disk-shared); spanwork's defaults apply")

    out += ["", "overheads:"]
    hops = d["hops"]
    handling = statistics.fmean(d["local"]) if d["local"] else None
    if hops and handling is not None:
        hop = statistics.fmean(hops)
        value = max(0.0, (hop - handling - decision - 2 * message) / 2)
        out.append(f"  messageLatency: {seconds(value)}    # derive: the chain hop (mean {hop * 1e3:.2f} ms, {len(hops)} hops) less workerHandling, schedulerDecision and 2 x workerMessage, halved")
    else:
        out.append("  # messageLatency: no chain case among the runs; spanwork's default applies")
    out += [f"  schedulerBatch: {SCHEDULER_BATCH}    # dask: the Scheduler's BatchedSend interval",
            f"  workerBatch: {WORKER_BATCH}       # dask: the Worker's BatchedSend interval"]
    if handling is not None:
        out.append(f"  workerHandling: {seconds(handling)}   # derive: mean local gap ({len(d['local'])} gaps); median {statistics.median(d['local']) * 1e3:.2f} ms")
    else:
        out.append("  # workerHandling: no local gap among the runs; spanwork's default applies")
    out += [f"  workerMessage: {seconds(message)}     # {'given (--worker-message)' if opts['worker_message'] is not None else 'spanwork default'}",
            f"  schedulerDecision: {seconds(decision)} # {'given (--scheduler-decision)' if opts['scheduler_decision'] is not None else 'spanwork default (overheads.py measures it)'}",
            "  schedulerMessage: 0"]
    if d["overruns"]:
        o = d["overruns"]
        out.append(f"  taskOverrun: {seconds(statistics.fmean(o))}      # derive: map and chain tasks ran {min(o) * 1e3:.2f}-{max(o) * 1e3:.2f} ms late (mean of each of the {len(o)} runs)")
    else:
        out.append("  # taskOverrun: no map or chain case among the runs; spanwork's default (0) applies")
    if "connect" in fetch:
        out.append(f"  connectLatency: {seconds(fetch['connect'])}   # fetch_cost.py: a fetch on a new connection against a pooled one, medians apart")
    else:
        out.append("  # connectLatency: not measured (fetch_cost.py, then --fetch-cost); spanwork's default applies")
    out += gc_lines(opts, set_dir)

    out += ["", "memory:"]
    out += [f"  {key}: {value}" + ("                 # dask's distributed.worker.memory.* defaults" if key == "target" else "") for key, value in MEMORY_FRACTIONS]
    if d["rss"]:
        out.append(f"  unmanaged: {size(statistics.median(d['rss']))}         # derive: RSS of each fresh worker before a run, median of {len(d['rss'])}")
    if d["growth"]:
        out.append(f"  unmanagedPerTask: {size(max(0.0, statistics.median(d['growth'])))}   # derive: (RSS after - before - outputs kept) / tasks executed, median of {len(d['growth'])} workers")
    out.append(f"  monitorInterval: {MONITOR_INTERVAL}      # dask: distributed.worker.memory.monitor-interval")
    out.append("")
    if opts["cores"] is not None:
        load = opts["load"] if opts["load"] is not None else 0
        out += ["host:                        # the host's cores, shared by the loops and the tasks' CPU parts (docs/sim.md, \"Host CPU\")",
                f"  cores: {opts['cores']}                   # given (--cores)",
                f"  load: {load:g}                    # " + ("given (--load; fidelity/tools/overrun_load.py reads it from the runs)" if opts["load"] is not None else "no other job ran (measure quiet, or give --load)")]
    else:
        out.append("# host: not given (--cores N [--load L]); without it builds and loops take no core and slow no wire")
    print("\n".join(out))


def gc_lines(opts, set_dir):
    """The overheads' workerGc and schedulerGc lines (or the comments that say why not)."""
    if not opts["gc"]:
        return ["  # workerGc, schedulerGc: not measured (gc_gaps.py or gc_probe.py, then --gc); none is modelled"]
    worker, scheduler = gc_figures(opts["gc"], set_dir)
    out = []
    if worker:
        out.append(f"  workerGc: {{ first: {worker[0]}, stop: {seconds(worker[1])} }}   # {worker[2]}")
    else:
        out.append(f"  # workerGc: no worker's full collection in {os.path.relpath(opts['gc'])}; none is modelled")
    if scheduler and opts["gc_scheduler"]:
        out.append(f"  schedulerGc: {{ first: {scheduler[0]}, stop: {seconds(scheduler[1])} }}   # {scheduler[2]}")
    elif scheduler:
        out.append(f"  # schedulerGc: {{ first: {scheduler[0]}, stop: {seconds(scheduler[1])} }} -- {scheduler[2]}; not written: it depends on the runs the driver's process ran before (--gc-scheduler writes it)")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
