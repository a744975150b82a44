"""Inside a real run of a fidelity graph: what each worker's event loop does while a transfer's
bytes are on the wire. Prints one JSON object (and writes it with --json):

    python3 fidelity/tools/wire_probe.py GRAPH [--runs R] [--json PATH]

Each run starts a fresh LocalCluster (the fidelity set's settings) with fetch_probe.py's
timestamps in both workers (no ticker) and, on top, in both workers:
- every `socket.recv_into` / `socket.send` tornado makes (`IOStream.read_from_fd`,
  `write_to_fd`) of 64 kB or more, or that would block: (start, seconds in the call, bytes,
  fd); the syscall itself lets go of the GIL, so its seconds are the kernel's copy (and page
  faults), and the time until the loop's next call is the loop's;
- every asyncio callback of the loop (`Handle._run`) that took 1 ms or more, with what it was
  (a comm read or write, a task's done event, ...): a loop that runs something else, or waits
  for the GIL in a callback, does not pump the sockets meanwhile;
- every output build of a task (`fidelity_tasks.make_bytes`: its b"".join; which thread).
Per transfer (receiver's `read-buffer` .. `read-bytes`, as gil_probe.py's wire): on the
receiver and the sender, the time in recv / send calls, the gaps between calls (the longest),
the sends that would block (the receiver's buffer full: the receiver is behind), long
callbacks inside the window (seconds, by kind), the window's overlap with that worker's own
deserialisation (its Dask-Offload thread holding the GIL) and with its task threads' builds;
while the receiver deserialises, its joins' wall and thread CPU and what ran beside them; and
`wire_states`: the wire's bytes and seconds split by what was going on meanwhile (`states`),
whose bytes / seconds are the wire's rates inside the run, alone, beside the other direction's
wire, held by the sender's own deserialisation, beside a build. Per run a `summary`: messages,
keys per message, bytes / summed durations, wire and deserialisation per MB, the joins' CPU.
--idle S waits S seconds, nothing running, before the first run.

    python3 fidelity/tools/wire_probe.py --pool OUT.json...   (no dask: the states' rates pooled)
"""
import argparse
import asyncio
import json
import os
import sys
import time

import harness  # noqa: E402,F401  (the dask harness on sys.path)
from common import start_cluster, worker_addresses  # noqa: E402
import dask_driver  # noqa: E402
import fetch_probe  # noqa: E402
import wire_probe as me  # noqa: E402  (the workers import it by name)
from distributed import wait  # noqa: E402

IO = []     # (t0, seconds, kind, bytes, fd): kind "recv", "send", "send-block"
SLOW = []   # (t0, seconds, what) of loop callbacks >= 1 ms
BUILDS = []  # (t0, t1, bytes, thread name, thread CPU seconds)
JOINS = []  # (t0, t1, bytes, thread CPU seconds): each value's b"".join out of a read buffer
BIG_IO = 65536


def install(dask_worker):
    import threading
    import tornado.iostream as ios
    import fidelity_tasks

    if getattr(ios, "_wire_probe", False):
        IO.clear(), SLOW.clear(), BUILDS.clear(), JOINS.clear()
        return True
    ios._wire_probe = True
    clock = time.time

    real_read = ios.IOStream.read_from_fd

    def read_from_fd(self, buf):
        t0 = clock()
        n = real_read(self, buf)
        if n is not None and n >= BIG_IO:
            IO.append((t0, clock() - t0, "recv", n, self.socket.fileno()))
        return n

    ios.IOStream.read_from_fd = read_from_fd

    real_write = ios.IOStream.write_to_fd

    def write_to_fd(self, data):
        t0 = clock()
        fd = self.socket.fileno()
        try:
            n = real_write(self, data)
        except BlockingIOError:
            IO.append((t0, clock() - t0, "send-block", 0, fd))
            raise
        if n >= BIG_IO:
            IO.append((t0, clock() - t0, "send", n, fd))
        return n

    ios.IOStream.write_to_fd = write_to_fd

    real_run = asyncio.events.Handle._run

    def _run(self):
        t0 = clock()
        real_run(self)
        dt = clock() - t0
        if dt >= 0.001:
            SLOW.append((t0, dt, describe(self)))

    asyncio.events.Handle._run = _run

    real_make = fidelity_tasks.make_bytes

    def make_bytes(nbytes):
        t0, c0 = clock(), time.thread_time()
        out = real_make(nbytes)
        BUILDS.append((t0, clock(), int(nbytes), threading.current_thread().name, time.thread_time() - c0))
        return out

    fidelity_tasks.make_bytes = make_bytes

    from distributed.protocol.serialize import dask_deserialize
    real_join = dask_deserialize.dispatch(bytes)

    def deserialize_bytes(header, frames):
        t0, c0 = clock(), time.thread_time()
        out = real_join(header, frames)
        JOINS.append((t0, clock(), len(out), time.thread_time() - c0))
        return out

    dask_deserialize.register(bytes)(deserialize_bytes)
    return True


def describe(handle):
    """What a loop callback was, in a few words (its callback's qualified name, or the task's
    coroutine's)."""
    cb = getattr(handle, "_callback", None)
    owner = getattr(cb, "__self__", None)
    coro = getattr(owner, "get_coro", None)
    if coro is not None:
        c = coro()
        return "task:" + getattr(c, "__qualname__", type(c).__name__)
    return getattr(cb, "__qualname__", repr(cb))[:80]


def read_probe():
    out = {"io": list(IO), "slow": list(SLOW), "builds": list(BUILDS), "joins": list(JOINS)}
    IO.clear(), SLOW.clear(), BUILDS.clear(), JOINS.clear()
    return out


def probed_run(graph):
    c = graph["cluster"]
    cluster, client = start_cluster(c.get("workers", 2), c.get("threads", 2), c.get("memoryLimit"))
    try:
        workers = worker_addresses(client)[:2]
        client.run(fetch_probe.install)
        client.run(me.install)  # by module, not __main__: cloudpickle would copy IO & co
        time.sleep(0.1)
        client.run(fetch_probe.read_events), client.run(me.read_probe)
        dsk, outputs = dask_driver.build(graph)
        t0 = time.time()
        futures = client.get(dsk, outputs, sync=False)
        wait(futures)
        t1 = time.time()
        events = client.run(fetch_probe.read_events)
        probe = client.run(me.read_probe)
        del futures
    finally:
        client.close()
        cluster.close()
    return workers, t0, t1, events, probe


windows = fetch_probe.windows


def overlap(s, e, spans):
    return sum(max(0.0, min(e, z) - max(s, a)) for a, z in spans)


def side(probe, events, s, e, kind):
    """What one worker did in [s, e): its socket calls of `kind` on the fd that moved most in
    the window, gaps between them, long callbacks, its deserialisation and builds."""
    calls = [x for x in probe["io"] if s <= x[0] < e and x[2] in (kind, "send-block")]
    by_fd = {}
    for x in calls:
        by_fd[x[4]] = by_fd.get(x[4], 0) + x[3]
    fd = max(by_fd, key=by_fd.get) if by_fd else None
    mine = [x for x in calls if x[4] == fd]
    moving = [x for x in mine if x[2] == kind]
    times = [s] + [x[0] for x in moving] + [e]
    gaps = [b - a for a, b in zip(times, times[1:])]
    slow = [x for x in probe["slow"] if x[0] < e and x[0] + x[1] > s]
    by_what = {}
    for t0, dt, what in slow:
        by_what[what] = round(by_what.get(what, 0) + overlap(s, e, [(t0, t0 + dt)]) * 1e3, 2)
    deser = windows(events, "read-bytes", "read-deserialised")
    builds = [(a, z) for a, z, _, _, _ in probe["builds"]]
    return {
        "calls": len(moving), "bytes": sum(x[3] for x in moving),
        "in_calls_ms": round(sum(x[1] for x in moving) * 1e3, 2),
        "max_call_ms": round(max((x[1] for x in moving), default=0) * 1e3, 2),
        "blocked_sends": sum(1 for x in mine if x[2] == "send-block"),
        "max_gap_ms": round(max(gaps) * 1e3, 2), "gaps_over_2ms_ms": round(sum(g for g in gaps if g > 0.002) * 1e3, 2),
        "slow_callbacks_ms": by_what,
        "own_deserialise_ms": round(overlap(s, e, deser) * 1e3, 2),
        "builds_ms": round(overlap(s, e, builds) * 1e3, 2),
    }


def beside(probe, events, recv, send, s, e):
    """What else ran while the receiver deserialised [s, e): builds on either worker (ms of
    build time, summed over threads), the other worker's own deserialisation, and the wires of
    either worker (any recv / send call of 64 kB or more: the loops copying bytes)."""
    def builds(w):
        return round(sum(overlap(s, e, [(a, z)]) for a, z, _, _, _ in probe[w]["builds"]) * 1e3, 2)

    def io(w):
        return round(sum(overlap(s, e, [(t0, t0 + dt)]) for t0, dt, kind, _, _ in probe[w]["io"] if kind != "send-block") * 1e3, 2)

    joins = [x for x in probe[recv]["joins"] if s <= x[0] < e]
    return {"joins": len(joins), "join_wall_ms": round(sum(z - a for a, z, _, _ in joins) * 1e3, 2),
            "join_cpu_ms": round(sum(c for _, _, _, c in joins) * 1e3, 2),
            "receiver_builds_ms": builds(recv), "sender_builds_ms": builds(send),
            "sender_deserialise_ms": round(overlap(s, e, windows(events[send], "read-bytes", "read-deserialised")) * 1e3, 2),
            "receiver_io_ms": io(recv), "sender_io_ms": io(send)}


def states(ts, probe, events):
    """Per transfer, its wire's bytes and seconds split by what else was going on: `hold` (the
    sender deserialising a message of its own: its GIL held), else `duplex` (a wire the other
    way moving), else `build` (a task's output build on either worker), else `alone`. Bytes
    are the receiver's recv calls (each counted at its start), seconds the window's time in
    each state: bytes / seconds is the wire's rate in that state, read off the run itself."""
    for t in ts:
        s = t["wire_start"]
        e = s + t["wire_ms"] / 1e3
        hold = windows(events[t["from"]], "read-bytes", "read-deserialised")
        duplex = [(o["wire_start"], o["wire_start"] + o["wire_ms"] / 1e3) for o in ts if o["to"] == t["from"]]
        builds = [(a, z) for w in (t["from"], t["to"]) for a, z, _, _, _ in probe[w]["builds"]]

        def state(x):
            for name, spans in (("hold", hold), ("duplex", duplex), ("build", builds)):
                if any(a <= x < z for a, z in spans):
                    return name
            return "alone"

        split = {k: [0, 0.0] for k in ("hold", "duplex", "build", "alone")}
        step = 0.0002  # the window's time, sampled every 0.2 ms
        x = s
        while x < e:
            split[state(x)][1] += min(step, e - x)
            x += step
        fd = None
        calls = [c for c in probe[t["to"]]["io"] if c[2] == "recv" and s <= c[0] < e]
        if calls:
            by_fd = {}
            for c in calls:
                by_fd[c[4]] = by_fd.get(c[4], 0) + c[3]
            fd = max(by_fd, key=by_fd.get)
        for c in calls:
            if c[4] == fd:
                split[state(c[0])][0] += c[3]
        t["wire_states"] = {k: [b, round(sec, 5)] for k, (b, sec) in split.items()}


def one_run(graph):
    (wa, wb), t0, t1, events, probe = probed_run(graph)
    out = {"wall": t1 - t0, "transfers": []}
    for recv, send in ((wa, wb), (wb, wa)):
        for s, e in windows(events[recv], "fetch-start", "fetch-done"):
            b = next((t for t, lab, _ in events[recv] if lab == "read-buffer" and s <= t <= e), None)
            r = next((t for t, lab, _ in events[recv] if lab == "read-bytes" and s <= t <= e), None)
            d = next((t for t, lab, _ in events[recv] if lab == "read-deserialised" and s <= t <= e), None)
            n = next((x for t, lab, x in events[recv] if lab == "read-header" and s <= t <= e), 0)
            if b is None or r is None:
                continue
            keys = next((x for t, lab, x in events[recv] if lab == "fetch-start" and t == s), 0)
            out["transfers"].append({
                "to": recv, "from": send, "start": s, "duration": e - s, "bytes": n, "keys": keys,
                "wire_start": b, "wire_ms": round((r - b) * 1e3, 2),
                "deserialise_ms": None if d is None else round((d - r) * 1e3, 2),
                "receiver": side(probe[recv], events[recv], b, r, "recv"),
                "sender": side(probe[send], events[send], b, r, "send"),
                "during_deserialise": None if d is None else beside(probe, events, recv, send, r, d),
            })
    ts = out["transfers"]
    states(ts, probe, events)
    joins = [x for w in (wa, wb) for x in probe[w]["joins"] if t0 <= x[0] <= t1]
    jb = sum(x[2] for x in joins) / 1e6 or 1
    out["summary"] = {
        "transfers": len(ts), "keys_per_message": sorted(t["keys"] for t in ts),
        "MB_per_s": round(sum(t["bytes"] for t in ts) / 1e6 / (sum(t["duration"] for t in ts) or 1), 1),
        "wire_ms_per_MB": round(sum(t["wire_ms"] for t in ts) / (sum(t["bytes"] for t in ts) / 1e6 or 1), 3),
        "deserialise_ms_per_MB": round(sum(t["deserialise_ms"] or 0 for t in ts) / (sum(t["bytes"] for t in ts) / 1e6 or 1), 3),
        "join_cpu_ms_per_MB": round(sum(x[3] for x in joins) * 1e3 / jb, 3),
        "join_wall_ms_per_MB": round(sum(x[1] - x[0] for x in joins) * 1e3 / jb, 3),
        "joins_over_1ms_per_MB_cpu": sum(1 for x in joins if x[2] and x[3] * 1e3 / (x[2] / 1e6) > 1.0),
        "joins": len(joins),
    }
    out["slow_callbacks"] = {w: summarise_slow(probe[w]["slow"], t0, t1) for w in (wa, wb)}
    out["builds"] = {w: [(round(a - t0, 4), round(z - a, 5), n, round(c, 5)) for a, z, n, _, c in probe[w]["builds"] if t0 <= a <= t1] for w in (wa, wb)}
    return out


def summarise_slow(slow, t0, t1):
    by = {}
    for t, dt, what in slow:
        if t0 <= t <= t1:
            n, tot, mx = by.get(what, (0, 0.0, 0.0))
            by[what] = (n + 1, tot + dt, max(mx, dt))
    return {w: {"n": n, "ms": round(tot * 1e3, 1), "max_ms": round(mx * 1e3, 1)} for w, (n, tot, mx) in sorted(by.items(), key=lambda kv: -kv[1][1])}


def pool(paths):
    """The wire's rates in each state over every run of saved outputs (no dask): bytes / seconds
    per state, per run and pooled, with each run's messages and keys per message."""
    total = {k: [0, 0.0] for k in ("alone", "duplex", "hold", "build")}
    out = {"runs": [], "pooled": None}
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        for r in d["runs"]:
            mine = {k: [0, 0.0] for k in total}
            for t in r["transfers"]:
                for k, (b, sec) in t.get("wire_states", {}).items():
                    for acc in (mine, total):
                        acc[k][0] += b
                        acc[k][1] += sec
            out["runs"].append({"file": os.path.basename(path), "wall": round(r["wall"], 3),
                                "messages": len(r["transfers"]), "keys_per_message": r.get("summary", {}).get("keys_per_message"),
                                "states": rates(mine)})
    out["pooled"] = rates(total)
    return out


def rates(acc):
    return {k: {"MB": round(b / 1e6, 1), "ms": round(sec * 1e3, 1), "MB_per_s": round(b / 1e6 / sec) if sec else None}
            for k, (b, sec) in acc.items()}


def main():
    if sys.argv[1:2] == ["--pool"]:
        harness.emit(pool(sys.argv[2:]))
        return
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--json")
    p.add_argument("--idle", type=float, default=0, help="seconds to wait, nothing running, before the first run")
    a = p.parse_args()
    time.sleep(a.idle)
    with open(a.graph) as f:
        graph = json.load(f)
    out = {"graph": os.path.basename(a.graph), "load_before": round(os.getloadavg()[0], 2), "idle_before": a.idle,
           "utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "runs": []}
    for _ in range(a.runs):
        out["runs"].append(one_run(graph))
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.json)


if __name__ == "__main__":
    main()
