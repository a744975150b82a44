"""Does a build in another process make a sleeping thread wake late? A thread sleeps 20 ms again
and again (4 s per row) beside: nothing; one or two processes building 32 MB outputs back to back
as the fidelity tasks do (`b"".join` of 1 MiB bytes blocks; MALLOC_MMAP_THRESHOLD_ = 1 MiB, so
every output is fresh memory, as a worker's first builds are); two such builders idling 20 ms
between builds; two spinning processes. No dask. Prints one JSON row per scenario:

    python3 fidelity/tools/wake_build.py [--seconds 4] [--out FILE]

Lateness = the sleep's wall time less 20 ms (ms): mean, median, p90, max, share over 1 ms.
"""
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

MIB = 2**20
SLEEP = 0.02


def builder(stop, nbytes, idle):
    block = os.urandom(MIB)
    whole, rest = divmod(nbytes, MIB)
    parts = [block] * whole + [block[:rest]]
    while not stop.is_set():
        out = b"".join(parts)
        del out
        if idle:
            time.sleep(idle)


def spinner(stop):
    x = 0
    while not stop.is_set():
        for _ in range(10000):
            x += 1


def measure(seconds):
    late = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        time.sleep(SLEEP)
        late.append((time.perf_counter() - t0 - SLEEP) * 1e3)
    late.sort()
    return {"n": len(late), "mean_ms": round(statistics.mean(late), 3), "median_ms": round(statistics.median(late), 3),
            "p90_ms": round(late[len(late) * 9 // 10], 3), "max_ms": round(late[-1], 3),
            "over_1ms": round(sum(x > 1 for x in late) / len(late), 3)}


def scenario(name, procs, seconds):
    stop = mp.Event()
    ps = [mp.Process(target=f, args=(stop,) + a) for f, a in procs]
    for p in ps:
        p.start()
    time.sleep(0.3)
    row = measure(seconds)
    stop.set()
    for p in ps:
        p.join()
    row["scenario"] = name
    return row


def main():
    args = sys.argv[1:]
    seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else 4.0
    os.environ["MALLOC_MMAP_THRESHOLD_"] = str(MIB)  # the children inherit it
    out = {"utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "load_before": os.getloadavg()[0], "sleep_s": SLEEP, "rows": []}
    build = (builder, (32_000_000, 0))
    for name, procs in [
        ("nothing", []),
        ("2 builders 32 MB fresh, back to back", [build] * 2),
        ("1 builder 32 MB fresh, back to back", [build]),
        ("2 builders 32 MB fresh, 20 ms idle between", [(builder, (32_000_000, 0.02))] * 2),
        ("2 spinners", [(spinner, ())] * 2),
    ]:
        row = scenario(name, procs, seconds)
        print(json.dumps(row), flush=True)
        out["rows"].append(row)
    out["load_after"] = os.getloadavg()[0]
    if "--out" in args:
        with open(args[args.index("--out") + 1], "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
