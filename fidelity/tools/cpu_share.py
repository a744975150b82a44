"""How a thread's CPU work is slowed by other runnable threads on this machine: the two regimes
behind `host` in the cluster profiles (docs/sim.md, "Host CPU").

    /usr/bin/python3 fidelity/tools/cpu_share.py [--dask] [--json FILE]
    /usr/bin/python3 fidelity/tools/cpu_share.py --probe   # (a) alone, no spinners: one line
    /usr/bin/python3 fidelity/tools/cpu_share.py --duty [--rounds R] [--json FILE]   # (e) only

With K spinning processes (K = 0, 2, 4) started by the tool as controlled background load, each
in the tool's session (one autogroup with the measured thread: they compete thread by thread) or
each in a session of its own (`setsid`: on a kernel with sched_autogroup every session is a group
that gets its fair share first, as other users' jobs would), it measures:
  (a) busy: a thread that spins for 1 s of wall time; its CPU share = thread CPU / wall.
  (b) bursts: a thread that sleeps 20 ms, then does W ms of CPU work (W = 0.5-24); how long each burst takes in wall time against W (median and mean over 30 bursts). A burst
      that runs at once takes W; one beyond the kernel's credit for a thread that slept runs at
      the fair share.
  (c) duty: bursts of 1 ms separated by sleeps chosen for a duty cycle u (0.25, 0.5): whether
      a thread that asks for less than its share is slowed.
  (d) with --dask: a stream of 500 no-op tasks submitted at once to a LocalCluster of 1 worker
      process x 1 thread: tasks per second (dask's loops under the load).
  (e) with --duty: the duty curve behind the `lag` rule: bursts of W ms (0.5, 1, 2, 3) separated
      by sleeps for a duty u (0.1-0.7), 200 bursts per point; mean, median, p90 and the fraction
      of bursts that waited (wall > 1.2 W). K = 0 and K = 2 spinners (the tool's session)
      interleaved point by point, R rounds (default 2), so other jobs' load hits both alike.
The 1-minute load average is printed before and after each K (other jobs add to the spinners).
"""
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

BURSTS_MS = (0.5, 1, 2, 3, 4, 5, 6, 8, 12, 24)
SPINNERS = (0, 2, 4)


def load1():
    return round(os.getloadavg()[0], 2)


def spin(new_session):
    if new_session:
        os.setsid()
    while True:
        pass


def work(seconds_cpu):
    """Spins until this thread has used `seconds_cpu` of CPU time."""
    end = time.thread_time() + seconds_cpu
    while time.thread_time() < end:
        pass


def busy_share():
    w0, c0 = time.perf_counter(), time.thread_time()
    while time.perf_counter() - w0 < 1.0:
        pass
    return (time.thread_time() - c0) / (time.perf_counter() - w0)


def slowdowns(w_ms, sleep_s, n):
    """n bursts of w_ms of CPU, each after a sleep of sleep_s: wall / work of each."""
    ratios = []
    for _ in range(n):
        time.sleep(sleep_s)
        a = time.perf_counter()
        work(w_ms / 1000)
        ratios.append((time.perf_counter() - a) / (w_ms / 1000))
    return ratios


def bursts(w_ms, sleep_s=0.02, n=30):
    ratios = slowdowns(w_ms, sleep_s, n)
    return statistics.median(ratios), statistics.mean(ratios)


def duty(u, n=400):
    """1 ms bursts with sleeps for a duty cycle u (of the thread's own full-speed time): wall per burst / 1 ms."""
    ratios = slowdowns(1, 0.001 * (1 - u) / u, n)
    return statistics.median(ratios), statistics.mean(ratios)


DUTY_BURSTS_MS = (0.5, 1, 2, 3)
DUTIES = (0.1, 0.25, 0.4, 0.5, 0.6, 0.7)


def duty_curve(u, w_ms, n=200):
    """Bursts of w_ms of CPU with sleeps for a duty u: the distribution of wall / work."""
    ratios = sorted(slowdowns(w_ms, w_ms / 1000 * (1 - u) / u, n))
    return {
        "mean": round(statistics.mean(ratios), 3),
        "median": round(statistics.median(ratios), 3),
        "p90": round(ratios[int(0.9 * (n - 1))], 3),
        "waited": round(sum(r > 1.2 for r in ratios) / n, 3),
    }


def duty_main(out_path, rounds):
    """(e): K = 0 and K = 2 interleaved at every point, `rounds` times."""
    points = []
    for r in range(rounds):
        for w in DUTY_BURSTS_MS:
            for u in DUTIES:
                for k in (0, 2):
                    procs = [mp.Process(target=spin, args=(False,), daemon=True) for _ in range(k)]
                    for p in procs:
                        p.start()
                    time.sleep(0.2)
                    row = {"round": r, "spinners": k, "burst_ms": w, "duty": u, "load_before": load1()}
                    row.update(duty_curve(u, w))
                    for p in procs:
                        p.terminate()
                    for p in procs:
                        p.join()
                    print(json.dumps(row), flush=True)
                    points.append(row)
    if out_path is not None:
        with open(out_path, "w") as f:
            json.dump({"measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(), "kernel": os.uname().release, "points": points}, f, indent=1)


def noop(x):
    return x


def dask_throughput():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        client.gather(client.map(noop, range(50), key=[f"warm-{i}" for i in range(50)]))
        a = time.perf_counter()
        client.gather(client.map(noop, range(500), key=[f"t-{i}" for i in range(500)]))
        return 500 / (time.perf_counter() - a)


def main():
    if "--probe" in sys.argv:
        before = load1()
        print(json.dumps({"at": time.strftime("%H:%M:%S", time.gmtime()), "load_before": before, "busy_share": round(busy_share(), 3), "load_after": load1()}), flush=True)
        return
    with_dask = "--dask" in sys.argv
    out_path = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    if "--duty" in sys.argv:
        duty_main(out_path, int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2)
        return
    rows = []
    for new_session in (False, True):
        for k in SPINNERS:
            if new_session and k == 0:
                continue
            before = load1()
            procs = [mp.Process(target=spin, args=(new_session,), daemon=True) for _ in range(k)]
            for p in procs:
                p.start()
            time.sleep(0.5)
            row = {"spinners": k, "own_sessions": new_session, "load_before": before}
            row["busy_share"] = round(busy_share(), 3)
            row["burst_wall_over_work"] = {str(w): [round(x, 3) for x in bursts(w)] for w in BURSTS_MS}
            row["duty_wall_over_work"] = {str(u): [round(x, 3) for x in duty(u)] for u in (0.25, 0.5)}
            if with_dask:
                row["dask_noop_tasks_per_s"] = round(dask_throughput(), 1)
            for p in procs:
                p.terminate()
            for p in procs:
                p.join()
            row["load_after"] = load1()
            print(json.dumps(row), flush=True)
            rows.append(row)
            time.sleep(1)
    if out_path is not None:
        with open(out_path, "w") as f:
            json.dump({"measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(), "kernel": os.uname().release, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
