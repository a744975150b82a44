"""Spill writes and reads measured apart, with dask 2022.12.1's own SpillBuffer: the figures
behind `disk.writeBandwidth` / `disk.readBandwidth` (or the reason there are none).

    PYTHONPATH=/work/shared/fidelity /usr/bin/python3 fidelity/tools/disk_rw.py [--rounds N] \
        [--sizes 1,4,25] [--json PATH]
    PYTHONPATH=/work/shared/fidelity /usr/bin/python3 fidelity/tools/disk_rw.py --touch [--json PATH]

Each process runs distributed.spill.SpillBuffer with target 0 (every set pickles and writes the
value to its file at once, every get reads and unpickles it and removes the file), as
disk_shared.py does. What this adds: every operation's own seconds from the SpillBuffer's
metrics (the delta of write+pickle / read+unpickle time around the one call: what dask's worker
reports, without the removal), kept per value, so that a round's "per round" rate (bytes / the
summed seconds, disk_shared.py's `write_MBps_each`) and its "per value" rate (the median of the
values' rates, disk_shared.py's `op_MBps_alone`) come from the same operations, and the first
value of each process and the first round of each kind are reported apart.

Kinds: values of 1, 4 and 25 MB (21 of each per process and round: the spill case's count);
paced (a value every 0.1 s, as a memory monitor spilling a two-thread worker's outputs) and back
to back; one process alone and two at once (started on a barrier). Rounds are interleaved
(alone, both) so the load hits both alike; every round starts after os.sync(). The 1-minute
load is recorded before and after.
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "fidelity"))
import fidelity_tasks as ft  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import disk_shared  # noqa: E402

VALUES = 21


def run(directory, nbytes, period, barrier, out):
    from distributed.spill import SpillBuffer

    buf = SpillBuffer(directory, target=0)
    m = getattr(buf.slow, "data", buf.slow).metrics
    values = [ft.make_bytes(nbytes) for _ in range(VALUES)]
    barrier.wait()
    t0 = time.perf_counter()

    def write(i):
        buf[f"v-{i}"] = values[i]

    def read(i):
        buf[f"v-{i}"]

    writes, write_walls = phase(period, write, lambda: m.write_time_total + m.pickle_time_total)
    values.clear()
    t1 = time.perf_counter()
    reads, read_walls = phase(period, read, lambda: m.read_time_total + m.unpickle_time_total,
                              lambda i: buf.__delitem__(f"v-{i}"))
    t2 = time.perf_counter()
    out.put({"t0": t0, "t1": t1, "t2": t2, "writes": writes, "reads": reads,
             "write_walls": write_walls, "read_walls": read_walls})


def phase(period, op, metric, after=None):
    """Every value's op, the i-th no earlier than i x period after the phase starts: the seconds
    the SpillBuffer's metrics gave it (their delta around the one call) and its wall."""
    secs, walls = [], []
    start = time.perf_counter()
    for i in range(VALUES):
        wait = start + i * period - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        s0, a = metric(), time.perf_counter()
        op(i)
        walls.append(time.perf_counter() - a)
        secs.append(metric() - s0)
        if after:
            after(i)
    return secs, walls


def round_of(n, nbytes, period, root):
    rows = disk_shared.processes_at_once(n, root, run, (nbytes, period))
    mb = nbytes / 1e6
    res = {"processes": n, "MB": mb, "period": period, "load": os.getloadavg()[0]}
    for kind in ("writes", "reads"):
        secs = [s for r in rows for s in r[kind]]
        rest = [s for r in rows for s in r[kind][1:]]
        res[kind] = {
            "per_round_MBps": len(secs) * mb / sum(secs),
            "per_value_median_MBps": statistics.median(mb / s for s in secs),
            "first_value_MBps": [mb / r[kind][0] for r in rows],
            "per_round_without_first_MBps": len(rest) * mb / sum(rest),
            "slowest_ms": max(secs) * 1e3,
            "ms": [[round(s * 1e3, 3) for s in r[kind]] for r in rows],
        }
    # the phases' wall: bytes over the span the host was writing (reading), gaps included
    res["write_wall_host_MBps"] = n * VALUES * mb / (max(r["t1"] for r in rows) - min(r["t0"] for r in rows))
    res["read_wall_host_MBps"] = n * VALUES * mb / (max(r["t2"] for r in rows) - min(r["t1"] for r in rows))
    return res


def touch_check(passes=3, nbytes=25_000_000):
    """--touch: is a slow write the VM's first touch of a page-cache page? One process writes the
    spill case's 21 x 25 MB through a SpillBuffer, deletes them, and writes them again at once
    (`passes` times, no sleep: pages the kernel just freed are reused before free page reporting
    hands them back to the host); plus the first touch of fresh anonymous memory (bytearray of
    the value's size, written once, then again) as build_sizes.py measured it."""
    from distributed.spill import SpillBuffer

    root = tempfile.mkdtemp(prefix="disk-rw-touch-")
    try:
        buf = SpillBuffer(root, target=0)
        m = getattr(buf.slow, "data", buf.slow).metrics
        values = [ft.make_bytes(nbytes) for _ in range(VALUES)]
        out = {"load_before": os.getloadavg()[0], "measured_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "passes": []}
        for p in range(passes):
            ms = []
            for i in range(VALUES):
                s0 = m.write_time_total + m.pickle_time_total
                buf[f"v-{i}"] = values[i]
                ms.append(round((m.write_time_total + m.pickle_time_total - s0) * 1e3, 3))
            for i in range(VALUES):
                del buf[f"v-{i}"]  # a spilled key freed: its file removed, no read
            out["passes"].append({"write_ms": ms, "MBps": VALUES * nbytes / 1e6 / (sum(ms) / 1e3)})
            print(f"pass {p}: write {out['passes'][-1]['MBps']:.0f} MB/s; ms {ms}", flush=True)
        touch = []
        for _ in range(5):
            a = time.perf_counter()
            b = bytearray(nbytes)
            b[::4096] = b"x" * len(range(0, nbytes, 4096))
            t1 = time.perf_counter()
            b[::4096] = b"y" * len(range(0, nbytes, 4096))
            t2 = time.perf_counter()
            touch.append({"first_ms_per_MiB": (t1 - a) * 1e3 / (nbytes / 2**20), "again_ms_per_MiB": (t2 - t1) * 1e3 / (nbytes / 2**20)})
            del b
        out["anon_touch"] = touch
        out["load_after"] = os.getloadavg()[0]
        print("anonymous first touch:", touch)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    args = sys.argv[1:]
    if "--touch" in args:
        out = touch_check()
        if "--json" in args:
            with open(args[args.index("--json") + 1], "w") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
        return
    opts = {"--rounds": "3", "--sizes": "1,4,25", "--json": None}
    for k in list(opts):
        if k in args:
            i = args.index(k)
            opts[k] = args[i + 1]
    rounds = int(opts["--rounds"])
    sizes = [int(float(s) * 1_000_000) for s in opts["--sizes"].split(",")]
    root = tempfile.mkdtemp(prefix="disk-rw-")
    result = {"load_before": os.getloadavg()[0], "measured_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "values_per_process": VALUES, "rounds": []}
    try:
        for r in range(rounds):
            for period in (0.1, 0.0):
                for nbytes in sizes:
                    for n in (1, 2):
                        row = round_of(n, nbytes, period, root)
                        row["round"] = r
                        result["rounds"].append(row)
                        w, rd = row["writes"], row["reads"]
                        print(f"r{r} {'paced' if period else 'b2b  '} {row['MB']:>4.0f} MB x{n}: "
                              f"write round {w['per_round_MBps']:.0f} value {w['per_value_median_MBps']:.0f} "
                              f"first {'/'.join(f'{v:.0f}' for v in w['first_value_MBps'])} rest {w['per_round_without_first_MBps']:.0f} | "
                              f"read round {rd['per_round_MBps']:.0f} value {rd['per_value_median_MBps']:.0f} "
                              f"first {'/'.join(f'{v:.0f}' for v in rd['first_value_MBps'])} rest {rd['per_round_without_first_MBps']:.0f} "
                              f"| load {row['load']:.2f}", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["load_after"] = os.getloadavg()[0]
    summary = {}
    for row in result["rounds"]:
        key = f"{'paced' if row['period'] else 'b2b'} {row['MB']:.0f}MB x{row['processes']} {'first' if row['round'] == 0 else 'later'}"
        s = summary.setdefault(key, {})
        for kind in ("writes", "reads"):
            for f in ("per_round_MBps", "per_value_median_MBps", "per_round_without_first_MBps"):
                s.setdefault(f"{kind}_{f}", []).append(row[kind][f])
    result["summary"] = {k: {f: statistics.median(v) for f, v in s.items()} for k, s in summary.items()}
    print(json.dumps(result["summary"], indent=1))
    print(f"load {result['load_before']:.2f} -> {result['load_after']:.2f}")
    if opts["--json"]:
        with open(opts["--json"], "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
