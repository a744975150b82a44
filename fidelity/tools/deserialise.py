"""The receiver's deserialisation per byte, from measurements already on disk (no dask run):
fetch_cost.py's fetches of one worker from the other with nothing else running (the `idle`
scenario: 1-16 values of 3 MB, 3-48 MB a fetch) and gil_probe.py's transfers inside real
runs of fidelity graphs. Prints one JSON object:

    python3 fidelity/tools/deserialise.py [FETCH_COST_JSON] [GIL_PROBE_JSON ...]

Defaults: fidelity/quiet/tools/fetch_cost.json and fidelity/quiet/tools/gil_probe-*.json.
Per source: the transfers, a least-squares line deserialise = a + b x MB (b is the cost per MB),
the median of each transfer's ms per MB, and their sum over their bytes. The idle fetches'
slope is the simulator's `deserializeBandwidth` (1 / b): measured apart from every case, where
the runs' figures include what else the process did meanwhile (the shuffle's splits hold the
GIL while they build their outputs).
"""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
QUIET = os.path.join(HERE, "..", "quiet", "tools")


def fit(pairs):
    """pairs of (MB, ms): the line's intercept and slope, the per-MB median and sum ratio."""
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    n = len(pairs)
    out = {"transfers": n, "MB": [round(min(xs), 2), round(max(xs), 2)]}
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx > 0:
        slope = sum((x - mx) * (y - my) for x, y in pairs) / sxx
        out["fit_ms"] = round(my - slope * mx, 3)
        out["fit_ms_per_MB"] = round(slope, 4)
    out["median_ms_per_MB"] = round(statistics.median(y / x for x, y in pairs), 4)
    out["sum_ms_per_MB"] = round(sum(ys) / sum(xs), 4)
    return out


def main(argv):
    fetch_cost = argv[0] if argv else os.path.join(QUIET, "fetch_cost.json")
    probes = argv[1:] or sorted(glob.glob(os.path.join(QUIET, "gil_probe-*.json")))
    with open(fetch_cost) as f:
        data = json.load(f)
    idle = [(x["bytes"] / 1e6, x["deserialise"] * 1e3) for x in data["fetches"] if x["scenario"] == "idle" and x.get("deserialise") is not None]
    result = {"fetch_cost": {"file": os.path.relpath(fetch_cost), "load": [data.get("load_before"), data.get("load_after")], "idle": fit(idle)}}
    slope = result["fetch_cost"]["idle"].get("fit_ms_per_MB")
    if slope:
        result["deserializeBandwidth_MBps"] = round(1 / slope * 1e3, 1)
    result["runs"] = {}
    for path in probes:
        with open(path) as f:
            probe = json.load(f)
        pairs = [(t["bytes"] / 1e6, t["deserialise"] * 1e3) for run in probe["runs"] for t in run["transfers"] if t.get("deserialise") is not None and t["bytes"] > 0]
        if pairs:
            result["runs"][probe["graph"]] = {"load": [probe.get("load_before"), probe.get("load_after")], **fit(pairs)}
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
