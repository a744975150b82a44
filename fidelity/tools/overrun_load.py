"""The other jobs' competition for the cores, read from a set's own dask runs: how often its
tasks' sleeps woke late.

A fidelity task sleeps; the sleep returns after its duration plus the wait for a core (and for
the worker's GIL). The more other threads compete for the cores, the more wakes wait behind one
of them for a slice (EEVDF's base slice is 1.5 ms on 2 cores, docs/sim.md "Host CPU"). So a
run's *late fraction* — the share of its tasks that ended more than OVER ms after their nominal
end (default 2: one slice and the wake's own 0.1-0.5 ms), counting only the tasks that ended
while their worker moved no bytes (overrun_classes.py's class `none`: a receive's
deserialisation holds the GIL for ms of its own) — measures the competition the case met, in
place, without the load average. How it maps to other runnable threads depends on the case (its
own loops, its tasks' lengths), so the mapping is calibrated per case on the same case measured
under a known competition:

  --zero SET    the case with nothing else running (fidelity/quiet): 0 other threads
  --known SET   the case beside a known competitor, read by the busy-thread probes of SET/log.txt
                (fidelity/contended: two spinners; `cpu_share.py --probe` before and after each
                case, others = 2 / share - 1, the mean of the two)
  --check SET   a set with probes of its own (fidelity/probed): predicted against its probes

A target case's estimate is the line through the case's two calibration points, others =
K * (f - f0) / (fK - f0) with the medians over each set's runs (each run's own estimate gives
the range). Targets are sets with real/raw and graphs (fidelity, ../shared/fidelity).

    python3 fidelity/tools/overrun_load.py [--over MS] [--zero SET] [--known SET] [--check SET] [--json OUT] TARGET_SET...
    python3 fidelity/tools/overrun_load.py --runs [--over MS] [--zero SET] TARGET_SET...

--runs prints each run's figures instead (makespan, late fraction, mean overrun): which runs of a
case met competition, for a case no calibration set has (a held-out graph's runs in two modes).
"""
import json
import os
import re
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overrun_classes  # noqa: E402
from tool_args import Parser, failer, read_json  # noqa: E402

fail = failer("overrun_load.py")

PROBE = re.compile(r"^probe (?:before|after) ([\w-]+):\d+: (\{.*\})\s*$")


def run_lateness(raw, graph, over):
    """Per run of a dask raw file (or a spanwork report): (makespan, the share of its `none`-class
    tasks that ran more than `over` seconds beyond their duration, their mean overrun in seconds)."""
    out = []
    makespans = [r["makespan"] for r in raw["runs"]] if "runs" in raw else [raw["makespan"]]
    for makespan, (_label, recs, xs, is_raw, spilled) in zip(makespans, overrun_classes.runs_of(raw)):
        none = overrun_classes.classify(recs, xs, graph, is_raw, spilled)["none"]
        if none:
            out.append((makespan, sum(1 for o in none if o > over) / len(none), st.mean(none)))
        else:
            out.append((makespan, float("nan"), float("nan")))
    return out


def late_fractions(raw, graph, over):
    """Per run of a dask raw file: the share of its `none`-class tasks that ran more than `over`
    seconds beyond their duration."""
    return [f for _m, f, _o in run_lateness(raw, graph, over)]


def set_cases(path):
    """(file name less .json, dask raw runs, graph) for every raw file of a set, in name order;
    a set without real/raw, or a raw file without its graph, is one line and exit 2."""
    raw_dir = os.path.join(path, "real", "raw")
    if not os.path.isdir(raw_dir):
        fail(f"{path}: no real/raw (a fidelity set: real/raw and graphs)")
    for name in sorted(os.listdir(raw_dir)):
        if not name.endswith(".json"):
            continue
        raw, graph = (read_json(os.path.join(*parts, name), fail) for parts in ((raw_dir,), (path, "graphs")))
        yield name[:-5], raw, graph


def set_fractions(path, over):
    """{case: [late fraction per run]} for every raw file of a set (case = file name less -sN)."""
    return {re.sub(r"-s\d+$", "", tag): late_fractions(raw, graph, over) for tag, raw, graph in set_cases(path)}


def run_rows(path, over, zero):
    """One line per case of a set: each run's makespan, late fraction and mean overrun, and the
    quiet set's median late fraction for the case when it has one. A run that met competition
    shows it here whatever its case: the tasks of a run beside other jobs wake late."""
    rows = []
    for tag, raw, graph in set_cases(path):
        case = re.sub(r"-s\d+$", "", tag)
        quiet = f"  (quiet {st.median(zero[case]):.2f})" if case in zero else ""
        cells = "  ".join(f"{m:.3f}s {f:.2f} {o * 1000:.2f}ms" for m, f, o in run_lateness(raw, graph, over))
        rows.append(f"{path}  {tag:18s} {cells}{quiet}")
    return rows


def probed_others(path, cores=2):
    """{case: mean other runnable threads} from the busy-thread probes in SET/log.txt: a spinning
    thread's share s of the cores says cores / s - 1 others."""
    by = {}
    with open(os.path.join(path, "log.txt")) as f:
        for line in f:
            m = PROBE.match(line)
            if m:
                share = json.loads(m.group(2))["busy_share"]
                by.setdefault(m.group(1), []).append(cores / share - 1)
    return {case: st.mean(v) for case, v in by.items()}


def estimate(f, f0, fk, k):
    """Other threads for a late fraction f on the case's line through (0, f0) and (k, fk); None
    when the calibration does not rise (the case's wakes do not see the competition)."""
    if not fk > f0:
        return None
    return k * (f - f0) / (fk - f0)


def infer(zero, known, others, target):
    """{case: {others, low, high, fraction}} for the target's cases that both calibrations have."""
    out = {}
    for case, fs in target.items():
        if case not in zero or case not in known or case not in others:
            continue
        f0, fk = st.median(zero[case]), st.median(known[case])
        mid = estimate(st.median(fs), f0, fk, others[case])
        if mid is None:
            continue
        each = [estimate(f, f0, fk, others[case]) for f in fs]
        out[case] = {"others": mid, "low": min(each), "high": max(each), "fraction": st.median(fs), "zero": f0, "known": fk, "known_others": others[case]}
    return out


def main():
    parser = Parser(prog="overrun_load.py", allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+", help="fidelity sets (real/raw, graphs) to estimate")
    parser.add_argument("--over", type=float, default=2.0, help="ms beyond the duration that make a task late (default 2)")
    parser.add_argument("--zero", default="fidelity/quiet")
    parser.add_argument("--known", default="fidelity/contended")
    parser.add_argument("--check", default=None, help="a set with probes of its own: predicted against them")
    parser.add_argument("--json", help="write every estimate here")
    parser.add_argument("--runs", action="store_true", help="print every run's makespan, late fraction and mean overrun instead")
    args = parser.parse_args()
    over = args.over / 1000
    zero = set_fractions(args.zero, over)
    if args.runs:
        rows = [row for path in args.targets for row in run_rows(path, over, zero)]
        print(f"per run: makespan, late fraction (> {args.over:g} ms, class none), mean overrun of class none; (quiet: {args.zero}'s median late fraction)")
        print("\n".join(rows))
        return
    known = set_fractions(args.known, over)
    others = probed_others(args.known)
    result = {"over_ms": args.over, "zero": args.zero, "known": args.known, "sets": {}}
    print(f"late = ended > {args.over:g} ms beyond the duration, class none; calibration: {args.zero} (0), {args.known} (its probes)")
    for path in ([args.check] if args.check else []) + args.targets:
        est = infer(zero, known, others, set_fractions(path, over))
        probes = probed_others(path) if path == args.check else {}
        result["sets"][path] = {"cases": est, "median": st.median(e["others"] for e in est.values()) if est else None}
        if probes:
            result["sets"][path]["probes"] = probes
        for case, e in est.items():
            truth = f"  probes {probes[case]:.2f}" if case in probes else ""
            print(f"{path}  {case:11s} late {e['fraction']:.3f} (0: {e['zero']:.3f}, {e['known_others']:.2f}: {e['known']:.3f})  others {e['others']:.2f} [{e['low']:.2f}-{e['high']:.2f}]{truth}")
        if est:
            print(f"{path}  median over {len(est)} cases: {result['sets'][path]['median']:.2f}")
    pooled = [e["others"] for path in args.targets for e in result["sets"][path]["cases"].values()]
    if pooled:
        result["median"] = st.median(pooled)
        print(f"the targets together: median over {len(pooled)} cases {result['median']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
