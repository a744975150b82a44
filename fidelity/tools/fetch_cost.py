"""Where the time of a multi-key fetch goes between two dask 2022.12.1 worker processes on this
machine, and what a fetch's first connection costs. Prints one JSON object:

    python3 fidelity/tools/fetch_cost.py [--rounds R] [--clusters C]

On C fresh LocalClusters (2 workers x 2 threads, processes, the fidelity set's settings), with
fetch_probe.py's timestamps installed in both workers:
- first: the very first fetch of each direction of the cluster (10 values of 3 MB: the
  shuffle's first gathers), then the same fetch again on the now pooled connection, then again
  after the fetching worker dropped its pooled connections (a new connection in a warm
  process);
- connect: 2R small fetches (one 1 kB value), alternately on a new connection (the fetching
  worker's pooled ones dropped first) and on the pooled one;
- keys: R warm fetches of k values of 3 MB for k = 1, 4, 10, 16, nothing else running;
- cpu: every thread's CPU seconds (/proc) over 4R fetches of 10 values of 3 MB one way, per
  MB moved, for the sender and the receiver (the loop is MainThread; Dask-Offload the
  (de)serialisation of messages over 10 MiB; the rest the task threads, which build the values);
- grow: R fetches of 10 values of 3 MB whose copies the receiver frees once used (release),
  then R whose copies it keeps (retain: its memory grows by each);
- busy: R rounds of fetches of 10 and 16 values of 3 MB, simplex (one direction) and duplex
  (both directions at once), each round three times: idle, with both workers' two threads
  running the shuffle's splits meanwhile (churn: 50 ms tasks each building 3 MB,
  fetch_probe.churn), and with them only sleeping (sleep: the same tasks' events, no bytes) —
  interleaved, so the machine's load weighs on the three alike.
For every fetch: its duration as gather_dep times it (get_data_from_worker) and its parts —
connect (from the pool, or a new connection), request (until the sender's get_data handler
runs), serialise (sender), first byte (until the receiver's read has the message's length),
allocate (the receiver's buffer), wire (every byte read), deserialise, and the rest (the OK
reply); the sender's write (serialise to the last byte handed to the kernel).
"""
import argparse
import json
import os
import statistics
import time

import harness  # noqa: E402,F401  (the dask harness on sys.path)
from common import start_cluster, worker_addresses  # noqa: E402
import fetch_probe  # noqa: E402
import fidelity_tasks as ft  # noqa: E402
from distributed import wait  # noqa: E402

MB3 = 3_000_000


def parts(recv, send):
    """The phases of one fetch from the receiver's and the sender's events (seconds)."""
    def at(events, label, last=False):
        hits = [t for t, name, _ in events if name == label]
        if not hits:
            return None
        return hits[-1] if last else hits[0]

    t0 = at(recv, "fetch-start")
    t_end = at(recv, "fetch-done", last=True)
    c0, c1 = at(recv, "connect-start"), at(recv, "connect-done")
    new = next((n for _, name, n in recv if name == "connect-start"), 0)
    s0 = at(send, "serve-start")
    w0, w1, wd = at(send, "write-start"), at(send, "write-serialised"), at(send, "write-done")
    h, b, r, d = (at(recv, x) for x in ("read-header", "read-buffer", "read-bytes", "read-deserialised"))
    nbytes = next((n for _, name, n in recv if name == "read-header"), 0)

    def span(a, z):
        return None if a is None or z is None else z - a

    return {
        "bytes": nbytes,
        "new_connection": bool(new),
        "duration": span(t0, t_end),
        "connect": span(c0, c1),
        "request": span(c1, s0),
        "serialise": span(w0, w1),
        "first_byte": span(w1, h),
        "allocate": span(h, b),
        "wire": span(b, r),
        "deserialise": span(r, d),
        "rest": span(d, t_end),
        "sender_write": span(w0, wd),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--clusters", type=int, default=3)
    a = p.parse_args()
    out = {"load_before": round(os.getloadavg()[0], 2), "rounds": a.rounds, "clusters": a.clusters, "fetches": []}
    tag = fetch_probe.tagger()

    for c in range(a.clusters):
        cluster, client = start_cluster(2, 2, None)
        try:
            wa, wb = worker_addresses(client)
            client.run(fetch_probe.install)

            def build(where, k):
                fs = [client.submit(ft.work, tag("src"), 0.0, MB3, workers=[where], pure=False) for _ in range(k)]
                wait(fs)
                return fs

            def fetch(srcs, where):
                return client.submit(ft.work, tag("dst"), 0.0, 1, *srcs, workers=[where], pure=False, priority=10)

            def record(scenario, k, pairs, extra=None):
                """pairs: (receiver, sender) of each fetch that just ran, one fetch per receiver."""
                events = client.run(fetch_probe.read_events)
                for recv, send in pairs:
                    row = parts(events[recv], events[send])
                    row.update({"scenario": scenario, "keys": k, "cluster": c, "direction": "ab" if recv == wb else "ba"})
                    if extra:
                        row.update(extra)
                    out["fetches"].append(row)

            # the cluster's first fetch of each direction, then pooled, then a new connection
            for recv, send in ((wb, wa), (wa, wb)):
                for scenario in ("first", "pooled", "reconnected"):
                    if scenario == "reconnected":
                        client.run(fetch_probe.drop_connections, send, workers=[recv])
                        time.sleep(0.2)
                    s = build(send, 10)
                    client.run(fetch_probe.read_events)
                    wait(fetch(s, recv))
                    record(scenario, 10, [(recv, send)])
                    del s

            # connect: a small fetch (one value of 1 kB) on a new connection, then on the pooled
            # one, alternating: what opening a connection adds to a fetch
            for r in range(2 * a.rounds):
                for scenario in ("connect-new", "connect-pooled"):
                    if scenario == "connect-new":
                        client.run(fetch_probe.drop_connections, wa, workers=[wb])
                        time.sleep(0.05)
                    s = [client.submit(ft.work, tag("src"), 0.0, 1000, workers=[wa], pure=False)]
                    wait(s)
                    client.run(fetch_probe.read_events)
                    wait(fetch(s, wb))
                    record(scenario, 1, [(wb, wa)])
                    del s

            for k in (1, 4, 10, 16):
                for _ in range(a.rounds):
                    s = build(wa, k)
                    client.run(fetch_probe.read_events)
                    wait(fetch(s, wb))
                    record("idle", k, [(wb, wa)])
                    del s

            # cpu: every thread's CPU over 4R fetches of 10 values of 3 MB, one direction:
            # which threads of the sender and of the receiver a transferred byte costs
            before = client.run(fetch_probe.thread_cpu)
            moved = 0
            for r in range(4 * a.rounds):
                s = build(wa, 10)
                wait(fetch(s, wb))
                moved += 10 * MB3
                del s
            after = client.run(fetch_probe.thread_cpu)
            client.run(fetch_probe.read_events)
            out.setdefault("cpu_ms_per_MB", []).append({
                role: {name: round(1e3 * (after[w].get(name, 0.0) - before[w].get(name, 0.0)) / (moved / 1e6), 3) for name in after[w]}
                for role, w in (("sender", wa), ("receiver", wb))
            })

            # grow: R fetches of 10 values of 3 MB whose copies the receiver frees once used,
            # then R whose copies it keeps (fetch_probe.keep, held by the client): does a copy
            # into memory the process never had cost more?
            kept = []
            for variant in ("release", "retain"):
                for r in range(a.rounds):
                    s = build(wa, 10)
                    client.run(fetch_probe.read_events)
                    if variant == "release":
                        wait(fetch(s, wb))
                    else:
                        kept.append(client.submit(fetch_probe.keep, tag("keep"), *s, workers=[wb], pure=False, priority=10))
                        wait(kept[-1])
                    record(variant, 10, [(wb, wa)])
                    del s
            del kept

            # busy: both workers' threads run the shuffle's splits meanwhile (churn: 3 MB built,
            # then asleep), or only sleep (sleep: the same tasks' events on the loops, no bytes
            # built); idle rounds interleaved, so the machine's load weighs on all three alike
            for r in range(a.rounds):
                for variant, nbytes in (("idle", None), ("churn", MB3), ("sleep", 0)):
                    churn = []
                    if nbytes is not None:
                        for w in (wa, wb):
                            churn += [client.submit(fetch_probe.churn, tag("churn"), 0.05, nbytes, workers=[w], pure=False, priority=-10)
                                      for _ in range(40)]
                        time.sleep(0.06)
                    for k in (10, 16):
                        s1, s2 = build(wa, k), build(wb, k)
                        client.run(fetch_probe.read_events)
                        wait(fetch(s1, wb))
                        record(f"{variant}-simplex", k, [(wb, wa)])
                        s3 = build(wa, k)
                        client.run(fetch_probe.read_events)
                        wait([fetch(s3, wb), fetch(s2, wa)])
                        record(f"{variant}-duplex", k, [(wb, wa), (wa, wb)])
                        del s1, s2, s3
                    wait(churn)
                    del churn
        finally:
            client.close()
            cluster.close()

    def summary(rows):
        keys = ("duration", "connect", "request", "serialise", "first_byte", "allocate", "wire", "deserialise", "rest", "sender_write")
        res = {"n": len(rows)}
        for k in keys:
            xs = [r[k] for r in rows if r[k] is not None]
            if xs:
                res[k + "_ms_median"] = round(1e3 * statistics.median(xs), 2)
        return res

    groups = {}
    for r in out["fetches"]:
        groups.setdefault(f"{r['scenario']} k={r['keys']}", []).append(r)
    out["summary"] = {g: summary(rows) for g, rows in groups.items()}
    out["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
