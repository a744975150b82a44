"""Inside a real run of a fidelity graph: how a task thread building its output (the fidelity
tasks' `make_bytes`, a `b"".join` into fresh memory, holding the GIL) slows the transfers that
run meanwhile. Prints one JSON object:

    python3 fidelity/tools/build_probe.py GRAPH [--runs R] [--out FILE]

Each run is gil_probe.py's (a fresh LocalCluster, fetch_probe's timestamps and ticker in both
workers), and each worker's `fidelity_tasks.make_bytes` is wrapped to log its interval. Per
transfer: the wire (first byte to last read into the receiver's buffer) and the deserialisation,
and how much of each overlapped a build on the receiver and on the sender. Per run: the
ticker's lateness during builds and otherwise, and a least-squares fit

    wire = a + bytes / bandwidth + k_recv * overlap_recv + k_send * overlap_send

where k = 1 means a build stops the wire for its whole length.
"""
import argparse
import os

import numpy as np

import harness  # noqa: F401  (the dask harness on sys.path)
import gil_probe  # noqa: E402

def install_builds(dask_worker=None):
    """Run in each worker. The log lives on the worker's fidelity_tasks module: this script is
    the client's __main__, so these functions reach the workers by value, globals and all."""
    import time
    import fidelity_tasks

    if not hasattr(fidelity_tasks, "BUILDS"):
        real = fidelity_tasks.make_bytes
        fidelity_tasks.BUILDS = []

        def make_bytes(nbytes):
            t0 = time.time()
            out = real(nbytes)
            fidelity_tasks.BUILDS.append((t0, time.time(), int(nbytes)))
            return out

        fidelity_tasks.make_bytes = make_bytes
    fidelity_tasks.BUILDS.clear()
    return True


def read_builds(dask_worker=None):
    import fidelity_tasks

    out = list(fidelity_tasks.BUILDS)
    fidelity_tasks.BUILDS.clear()
    return out


def overlap(a, b, spans):
    return sum(max(0.0, min(b, e) - max(a, s)) for s, e in spans)


def one_run(graph):
    (wa, wb), t0, t1, ticks, events, builds = gil_probe.probed_run(graph, install_builds, read_builds)
    spans = {w: [(s, e) for s, e, n in builds[w] if n > 0] for w in (wa, wb)}
    rows = []
    for recv, send in ((wa, wb), (wb, wa)):
        fetches = gil_probe.windows(events[recv], "fetch-start", "fetch-done")
        for (s, e), t in zip(fetches, gil_probe.transfers(events[recv], events[send])):
            b = next((x for x, lab, _ in events[recv] if lab == "read-buffer" and s <= x <= e), None)
            r = next((x for x, lab, _ in events[recv] if lab == "read-bytes" and s <= x <= e), None)
            if b is None or r is None or t["deserialise"] is None:
                continue
            rows.append({
                "bytes": t["bytes"], "wire": r - b, "deserialise": t["deserialise"],
                "wire_recv_build": overlap(b, r, spans[recv]), "wire_send_build": overlap(b, r, spans[send]),
                "deser_recv_build": overlap(r, r + t["deserialise"], spans[recv]),
            })
    out = {"wall": t1 - t0, "transfers": rows, "builds": {}, "ticks": {}}
    for w in (wa, wb):
        mine = spans[w]
        built = [(e - s, n) for s, e, n in builds[w] if n > 0]
        during = [late for t, late in ticks[w] if t0 <= t <= t1 and gil_probe.inside(t - late / 2, mine)]
        rest = [late for t, late in ticks[w] if t0 <= t <= t1 and not gil_probe.inside(t - late / 2, mine)]
        mb = sum(n for _, n in built) / 1e6 or 1
        out["builds"][w] = {"n": len(built), "seconds": round(sum(d for d, _ in built), 4),
                            "ms_per_MB": round(sum(d for d, _ in built) * 1e3 / mb, 3)}
        out["ticks"][w] = {"during_build": gil_probe.summary(during), "otherwise": gil_probe.summary(rest)}
    out["fit"] = fit(rows)
    return out


def fit(rows):
    if len(rows) < 5:
        return None
    x = np.array([[1.0, r["bytes"] / 1e6, r["wire_recv_build"], r["wire_send_build"]] for r in rows])
    y = np.array([r["wire"] for r in rows])
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    return {"intercept_ms": round(coef[0] * 1e3, 3), "ms_per_MB": round(coef[1] * 1e3, 3),
            "k_recv": round(coef[2], 3), "k_send": round(coef[3], 3), "n": len(rows),
            "wire_seconds": round(float(y.sum()), 4),
            "recv_build_overlap_seconds": round(float(x[:, 2].sum()), 4),
            "send_build_overlap_seconds": round(float(x[:, 3].sum()), 4)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graph")
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--out")
    a = p.parse_args()
    out = gil_probe.runs_of(a.graph, a.runs, one_run)
    out["fit_all"] = fit([t for r in out["runs"] for t in r["transfers"]])
    out["load_after"] = round(os.getloadavg()[0], 2)
    harness.emit(out, a.out)


if __name__ == "__main__":
    main()
