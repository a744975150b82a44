"""Measures how late a task's sleep ends on this machine: the figure behind `overheads.taskOverrun`
in profiles/dask-localcluster-2x2.yaml.

    /usr/bin/python3 fidelity/tools/wake.py [ROUNDS]

The fidelity tasks sleep (fidelity_tasks.py: build the output, then time.sleep). A sleep returns
after its duration plus the time the kernel takes to wake the thread and give it a core: timer
slack (50 us by default) and, on a loaded machine, the wait behind other runnable threads. Like
the fidelity cluster (2 worker processes x 2 threads), two processes each run two threads that
sleep back to back; each sleep's overrun is its measured length less the asked one, for sleeps
of 5, 20, 100 and 200 ms (interleaved, so the load hits them alike). No dask is involved: the
overrun is the operating system's, which a dask worker's executor threads inherit. The 1-minute
load average is printed before and after.
"""
import multiprocessing as mp
import os
import statistics
import sys
import threading
import time

DURATIONS = (0.005, 0.02, 0.1, 0.2)
SECONDS_PER_ROUND = 4.0


def thread_loop(out, stop_at):
    i = 0
    while time.perf_counter() < stop_at:
        d = DURATIONS[i % len(DURATIONS)]
        a = time.perf_counter()
        time.sleep(d)
        out.append((d, time.perf_counter() - a - d))
        i += 1


def process(q, barrier):
    barrier.wait()
    stop_at = time.perf_counter() + SECONDS_PER_ROUND
    outs = [[], []]
    threads = [threading.Thread(target=thread_loop, args=(o, stop_at)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    q.put(outs[0] + outs[1])


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"load before {os.getloadavg()[0]:.2f}")
    by = {d: [] for d in DURATIONS}
    for r in range(rounds):
        q = mp.Queue()
        barrier = mp.Barrier(2)
        procs = [mp.Process(target=process, args=(q, barrier)) for _ in range(2)]
        for p in procs:
            p.start()
        rows = q.get() + q.get()
        for p in procs:
            p.join()
        for d, over in rows:
            by[d].append(over)
        print(f"round {r}: " + ", ".join(f"{d * 1e3:.0f} ms +{statistics.mean(o for dd, o in rows if dd == d) * 1e3:.3f} ms" for d in DURATIONS)
              + f"; load {os.getloadavg()[0]:.2f}", flush=True)
    for d in DURATIONS:
        v = by[d]
        print(f"{d * 1e3:.0f} ms sleeps: n {len(v)}, overrun mean {statistics.mean(v) * 1e3:.3f} ms, median {statistics.median(v) * 1e3:.3f} ms, "
              f"p90 {statistics.quantiles(v, n=10)[-1] * 1e3:.3f} ms")
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
