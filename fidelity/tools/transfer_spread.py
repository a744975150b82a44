"""How much a lone transfer between two dask 2022.12.1 worker processes varies, from data already
measured (no new run). Prints one JSON object:

    python3 fidelity/tools/transfer_spread.py > fidelity/quiet/tools/transfer_spread.json

A lone transfer's factor is its duration over the model's time for it, latency + bytes /
bandwidth with the calibration's fit (its bandwidth is fitted to MEDIANS, so the factor's median
is near 1 and a right skew makes the mean transfer slower than the fit). Sources:
- calib: the calibrations' one-at-a-time transfers (calibrate.py, 7 per size, 1-64 MB): only
  min / median / max survive, so they bound the spread rather than fit it;
- fetch_cost: fidelity/quiet/tools/fetch_cost.json's fetches with nothing else moving (idle,
  idle-simplex, sleep-simplex, pooled, release: 3-48 MB in 1-16 values of 3 MB, load 0.14-1.27),
  each against the median of its own scenario and size (the calibration's fit is for one value);
- raw: every transfer of the real runs (fidelity/*/real/raw, ../shared/fidelity/real/raw) of
  1 MB or more that overlaps no other transfer of its run, against its set's calibration fit.
For each: quantiles of the factor, and whether the spread is a factor (its log's spread the
same at every size) or an additive stall (the excess over the median the same in seconds at
every size, the log's spread shrinking as sizes grow). The fit: a lognormal of the factor,
median 1 and sigma from the log's interquartile range (robust to the few stalls of 0.1-0.25 s
that a busy machine adds), beside the standard deviation of the log and the quantiles it predicts.
"""
import glob
import json
import math
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(REPO), "shared", "fidelity")
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/fidelity"

Z75 = 0.6744897501960817  # the standard normal's 75th percentile


def quantile(values, q):
    s = sorted(values)
    if not s:
        return None
    i = q * (len(s) - 1)
    lo = math.floor(i)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (i - lo)


def summary(factors):
    logs = [math.log(f) for f in factors]
    iqr = quantile(logs, 0.75) - quantile(logs, 0.25)
    return {
        "n": len(factors),
        "p05": quantile(factors, 0.05),
        "p25": quantile(factors, 0.25),
        "median": quantile(factors, 0.5),
        "p75": quantile(factors, 0.75),
        "p95": quantile(factors, 0.95),
        "max": max(factors),
        "min": min(factors),
        "mean": statistics.fmean(factors),
        "log_sigma_iqr": iqr / (2 * Z75),
        "log_sigma_std": statistics.pstdev(logs) if len(logs) > 1 else 0.0,
    }


def fit(cal):
    f = cal["network"]["bandwidth_fit"]
    return f["latency_s"], f["bytes_per_s"]


def calib(path):
    cal = json.load(open(path))
    lat, bw = fit(cal)
    net = cal["network"]
    rows = {}
    for size, med in net["large_transfer_median_seconds_by_bytes"].items():
        lo, hi = net["large_transfer_spread_seconds_by_bytes"][size]
        model = lat + int(size) / bw
        rows[size] = {"min_over_median": lo / med, "max_over_median": hi / med, "median_over_model": med / model,
                      "min_excess_s": lo - med, "max_excess_s": hi - med}
    return {"file": os.path.relpath(path, os.path.dirname(REPO)), "repeats_per_size": 7, "by_bytes": rows}


def fetch_cost(path):
    d = json.load(open(path))
    lone = ("idle", "idle-simplex", "sleep-simplex", "pooled", "release")
    groups = {}
    for f in d["fetches"]:
        if f["scenario"] in lone and f["bytes"] >= 1e6:
            groups.setdefault((f["scenario"], f["bytes"]), []).append(f["duration"])
    by_bytes = {}
    factors = []
    for (scenario, nbytes), durations in sorted(groups.items(), key=lambda kv: kv[0][1]):
        med = statistics.median(durations)
        fs = [x / med for x in durations]
        factors += fs
        row = by_bytes.setdefault(str(nbytes), {"factors": [], "excess_s": []})
        row["factors"] += fs
        row["excess_s"] += [x - med for x in durations]
    out = {"file": os.path.relpath(path, os.path.dirname(REPO)), "load": [d["load_before"], d["load_after"]], "all": summary(factors), "by_bytes": {}}
    for size, row in by_bytes.items():
        s = summary(row["factors"])
        s["excess_iqr_s"] = quantile(row["excess_s"], 0.75) - quantile(row["excess_s"], 0.25)
        out["by_bytes"][size] = s
    return out


def lone_transfers(run):
    xs = sorted(run.get("transfers", []), key=lambda t: t["start"])
    out = []
    for i, t in enumerate(xs):
        end = t["start"] + t["duration"]
        overlap = any(o is not t and o["start"] < end and t["start"] < o["start"] + o["duration"] for o in xs)
        if not overlap and t["bytes"] >= 1e6:
            out.append(t)
    return out


def raw(pattern, cal_path, label):
    lat, bw = fit(json.load(open(cal_path)))
    factors = []
    by_class = {}
    files = sorted(glob.glob(pattern))
    for path in files:
        for run in json.load(open(path))["runs"]:
            for t in lone_transfers(run):
                f = t["duration"] / (lat + t["bytes"] / bw)
                factors.append(f)
                cls = "small (1-8 MB)" if t["bytes"] < 8e6 else "large (8 MB+)"
                by_class.setdefault(cls, []).append(f)
    return {"set": label, "files": [os.path.relpath(p, os.path.dirname(REPO)) for p in files],
            "calibration": os.path.relpath(cal_path, os.path.dirname(REPO)),
            "all": summary(factors) if factors else None,
            "by_size": {k: summary(v) for k, v in by_class.items()}}


def solve(increasing, target):
    """The sigma in [0, 3] where `increasing(sigma)` reaches `target` (bisection)."""
    lo, hi = 0.0, 3.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if increasing(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


DESERIALIZE_BANDWIDTH = 1.37e9  # src/sim/network/types.ts (deserialise.py's fit)


def wire_sigma_from_range(cal_path, repeats=7, draws=4000, deserialize_bandwidth=DESERIALIZE_BANDWIDTH):
    """The sigma of a lognormal wire factor (median 1) whose model transfers — latency + wire x
    factor + deserialisation, the wire's share at each size from the fit's bandwidth and
    deserialize_bandwidth (spanwork's default unless measured), as the simulator splits it — have, 7 at a time, the calibration's mean
    log(max / min) over its sizes (bisection on a fixed-seed Monte Carlo: only min and max survive)."""
    import random
    cal = json.load(open(cal_path))
    lat, bw = fit(cal)
    net = cal["network"]
    sizes = [int(s) for s in net["large_transfer_median_seconds_by_bytes"]]
    target = statistics.fmean(math.log(net["large_transfer_spread_seconds_by_bytes"][str(s)][1] / net["large_transfer_spread_seconds_by_bytes"][str(s)][0]) for s in sizes)
    deser = 1 / deserialize_bandwidth
    wire_per_byte = 1 / bw - deser

    def mean_range(sigma):
        rng = random.Random(1)
        total = 0.0
        for s in sizes:
            for _ in range(draws // len(sizes)):
                xs = [lat + s * deser + s * wire_per_byte * math.exp(rng.gauss(0, sigma)) for _ in range(repeats)]
                total += math.log(max(xs) / min(xs))
        return total / (len(sizes) * (draws // len(sizes)))

    return {"calibration": os.path.relpath(cal_path, os.path.dirname(REPO)), "mean_log_max_over_min": target,
            "wire_share_at_32MB": 32e6 * wire_per_byte / (lat + 32e6 / bw), "wire_sigma": solve(mean_range, target)}


def fetch_cost_parts(path):
    """The lone fetches' parts (fetch_probe.py's timestamps): which part varies, each against
    its scenario and size's median — as a log's spread and as an excess over the fetch's median."""
    d = json.load(open(path))
    lone = ("idle", "idle-simplex", "sleep-simplex", "pooled", "release")
    groups = {}
    for f in d["fetches"]:
        if f["scenario"] in lone and f["bytes"] >= 1e6:
            groups.setdefault((f["scenario"], f["bytes"]), []).append(f)
    out = {}
    for part in ("duration", "wire", "deserialise", "request", "serialise", "first_byte"):
        logs, excess, factors = [], [], []
        for fs in groups.values():
            med = statistics.median(x[part] for x in fs)
            med_duration = statistics.median(x["duration"] for x in fs)
            factors += [x[part] / med for x in fs if x[part] > 0]
            excess += [(x[part] - med) / med_duration for x in fs]
        row = summary(factors)
        row["excess_over_median_duration_std"] = statistics.pstdev(excess)
        out[part] = row
    shares = [x["wire"] / x["duration"] for fs in groups.values() for x in fs]
    out["wire_share_of_duration_median"] = statistics.median(shares)
    return out


def lone_transfers_run(path, cal_path):
    """lone_transfers.py's one-at-a-time transfers (every duration kept): per size the factor
    against the size's median, and the wire sigma the simulator's split of them implies (the
    wire's share of a lone transfer from the calibration's fit and DESERIALIZE_BANDWIDTH): the
    sigma whose modelled transfers have the measured log standard deviation (bisection, fixed seed)."""
    import random
    d = json.load(open(path))
    lat, bw = fit(json.load(open(cal_path)))
    deser = 1 / DESERIALIZE_BANDWIDTH
    wire_per_byte = 1 / bw - deser
    out = {"file": os.path.relpath(path, os.path.dirname(REPO)), "load": [d["load_before"], d["load_after"]], "started": d["started"], "by_bytes": {}}
    all_factors = []
    for size, row in d["by_bytes"].items():
        med = statistics.median(row["durations"])
        fs = [x / med for x in row["durations"]]
        all_factors += fs
        out["by_bytes"][size] = summary(fs)
    out["all"] = summary(all_factors)
    target = out["all"]["log_sigma_std"]
    sizes = [int(s) for s in d["by_bytes"]]

    def modelled(sigma):
        rng = random.Random(1)
        logs = []
        for s in sizes:
            xs = [lat + s * deser + s * wire_per_byte * math.exp(rng.gauss(0, sigma)) for _ in range(2000)]
            med = statistics.median(xs)
            logs += [math.log(x / med) for x in xs]
        return statistics.pstdev(logs)

    out["wire_sigma"] = solve(modelled, target)
    return out


def main():
    quiet_cal = os.path.join(REPO, "fidelity", "quiet", "calibration.json")
    shared_cal = os.path.join(SHARED, "calibration.json")
    result = {
        "calibration_shared": calib(shared_cal),
        "calibration_quiet": calib(quiet_cal),
        "fetch_cost_quiet": fetch_cost(os.path.join(REPO, "fidelity", "quiet", "tools", "fetch_cost.json")),
        "fetch_cost_quiet_parts": fetch_cost_parts(os.path.join(REPO, "fidelity", "quiet", "tools", "fetch_cost.json")),
        "wire_sigma_shared": wire_sigma_from_range(shared_cal),
        "wire_sigma_quiet": wire_sigma_from_range(quiet_cal),
        "raw": [
            raw(os.path.join(REPO, "fidelity", "quiet", "real", "raw", "*.json"), quiet_cal, "quiet"),
            raw(os.path.join(REPO, "fidelity", "quiet", "tools", "dask_driver-heavy-tree-s1*.json"), quiet_cal, "quiet heavy-tree reruns"),
            raw(os.path.join(SHARED, "real", "raw", "*.json"), shared_cal, "shared"),
            raw(os.path.join(REPO, "fidelity", "real", "raw", "*.json"), shared_cal, "loaded"),
            raw(os.path.join(REPO, "fidelity", "contended", "real", "raw", "*.json"), shared_cal, "contended"),
        ],
    }
    lone = os.path.join(REPO, "fidelity", "quiet", "tools", "lone_transfers.json")
    if os.path.exists(lone):
        result["lone_transfers_quiet"] = lone_transfers_run(lone, quiet_cal)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
