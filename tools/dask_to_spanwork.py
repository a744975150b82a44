"""Turn a dask graph, and optionally the task stream of a finished run of it, into a spanwork
per-task table: one row per task with its key, prefix, measured compute seconds, output bytes
(dask's ``nbytes``) and the keys it depends on. ``spanwork run TABLE.json`` replays it, on any
cluster: ``--workers 8`` asks what the run would have done on twice the workers.

Needs only ``distributed`` (Debian: ``apt-get install python3-distributed``).

From the program that ran the graph::

    import json
    from distributed import get_task_stream
    from dask_to_spanwork import export_table   # tools/ on sys.path

    with get_task_stream(client=client) as stream:
        result = collection.compute()
    table = export_table(collection, task_stream=stream.data, client=client, name="my-run")
    with open("my-run.json", "w") as f:
        json.dump(table, f)

From the command line, with the graph (a collection, a HighLevelGraph or a dict) and the task
stream (``stream.data``) pickled::

    python3 tools/dask_to_spanwork.py graph.pickle --task-stream stream.pickle --out my-run.json

Tasks the stream does not cover (no stream given, a stream cut short by its length limit, a
task that erred) get the median of the measured tasks of their prefix, else the defaults
(``--default-duration``, ``--default-nbytes``); the table's description says how many.
"""
from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
from collections import defaultdict

from dask.base import collections_to_dsk, is_dask_collection
from dask.core import flatten, get_dependencies
from dask.utils import key_split, stringify

DEFAULT_DURATION = 0.1
DEFAULT_NBYTES = 1_000_000


def _graph_and_outputs(graph, optimize=True):
    """(dict graph, output keys or None) of a collection, a list of them, a HighLevelGraph or a mapping."""
    collections = None
    if is_dask_collection(graph):
        collections = [graph]
    elif isinstance(graph, (list, tuple)) and graph and all(is_dask_collection(c) for c in graph):
        collections = list(graph)
    if collections is not None:
        # What compute() runs: the optimized graph, whose keys are those of the task stream.
        dsk = dict(collections_to_dsk(collections, optimize_graph=optimize))
        outputs = [stringify(k) for c in collections for k in flatten(c.__dask_keys__())]
        return dsk, outputs
    if hasattr(graph, "to_dict"):
        return dict(graph.to_dict()), None
    return dict(graph), None


def _measurements(task_stream):
    """key -> (compute seconds, nbytes) from the stream's successful records (the last one wins)."""
    measured = {}
    for record in task_stream or []:
        if record.get("status", "OK") != "OK":
            continue
        compute = [s for s in record.get("startstops", []) if s.get("action") == "compute"]
        if not compute:
            continue
        seconds = sum(float(s["stop"]) - float(s["start"]) for s in compute)
        measured[stringify(record["key"])] = (max(0.0, seconds), record.get("nbytes"))
    return measured


def _cluster(client):
    workers = list(client.scheduler_info()["workers"].values())
    if not workers:
        return {}
    threads = [w.get("nthreads", 1) for w in workers]
    limits = [w.get("memory_limit") or 0 for w in workers]
    cluster = {"workers": len(workers), "threads": max(set(threads), key=threads.count)}
    if all(limit > 0 for limit in limits):
        cluster["memoryLimit"] = int(statistics.median(limits))
    return cluster


def export_table(graph, task_stream=None, client=None, name=None, cluster=None, optimize=True,
                 default_duration=DEFAULT_DURATION, default_nbytes=DEFAULT_NBYTES):
    """The spanwork spec (a dict, ready for json.dump) of `graph`, with the measurements of `task_stream`.

    graph: a dask collection (or a list of them: what was computed), a HighLevelGraph or a dict graph.
    task_stream: the records of ``get_task_stream`` (``stream.data``) of a run of that graph.
    client: when given, the cluster's workers, threads and memory limit go in the spec's cluster.
    cluster: a dict of spanwork cluster fields (workers, threads, memoryLimit, ...), over the client's.
    """
    dsk, outputs = _graph_and_outputs(graph, optimize)
    measured = _measurements(task_stream)
    keys = {key: stringify(key) for key in dsk}
    by_prefix = defaultdict(lambda: ([], []))
    for key, text in keys.items():
        if text in measured:
            seconds, nbytes = measured[text]
            by_prefix[key_split(text)][0].append(seconds)
            if isinstance(nbytes, (int, float)) and nbytes >= 0:
                by_prefix[key_split(text)][1].append(nbytes)
    rows = []
    estimated = 0
    output_set = set(outputs) if outputs is not None else None
    for key, text in keys.items():
        prefix = key_split(text)
        seconds, nbytes = measured.get(text, (None, None))
        durations, sizes = by_prefix.get(prefix, ([], []))
        if seconds is None:
            estimated += 1
            seconds = statistics.median(durations) if durations else default_duration
        if not isinstance(nbytes, (int, float)) or nbytes < 0:
            nbytes = statistics.median(sizes) if sizes else default_nbytes
        dependencies = sorted(keys[d] for d in get_dependencies(dsk, key) if d in keys)
        row = {"key": text, "prefix": prefix, "duration": round(float(seconds), 6), "outputSize": int(nbytes), "dependencies": dependencies}
        if output_set is not None:
            row["output"] = text in output_set
        rows.append(row)
    source = "its task stream" if task_stream else "no task stream: durations and sizes are the defaults"
    description = f"exported from a dask graph of {len(rows)} tasks with {source}"
    if task_stream and estimated:
        description += f"; {estimated} tasks not in the stream took their prefix's median (or the defaults)"
    spec = {"name": name or "dask-run", "description": description}
    merged = {**(_cluster(client) if client is not None else {}), **(cluster or {})}
    if merged:
        spec["cluster"] = merged
    spec["taskTable"] = rows
    return spec


def _load(path):
    if path.endswith(".json"):
        with open(path) as f:
            return json.load(f)
    with open(path, "rb") as f:
        return pickle.load(f)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Turn a dask graph (and a run's task stream) into a spanwork per-task table.")
    parser.add_argument("graph", help="a pickle of the graph: a dask collection, a list of them, a HighLevelGraph or a dict")
    parser.add_argument("--task-stream", help="the run's task stream records (stream.data) as a pickle, or as JSON (.json)")
    parser.add_argument("--out", help="the spanwork spec to write (default: stdout)")
    parser.add_argument("--name", help="the workload's name (default: dask-run)")
    parser.add_argument("--workers", type=int, help="cluster.workers of the spec (the workers the run had)")
    parser.add_argument("--threads", type=int, help="cluster.threads of the spec")
    parser.add_argument("--no-optimize", action="store_true", help="export a collection's graph as it is, not optimized as compute() runs it")
    parser.add_argument("--default-duration", type=float, default=DEFAULT_DURATION, help="seconds of a task nothing measured (default %(default)s)")
    parser.add_argument("--default-nbytes", type=int, default=DEFAULT_NBYTES, help="output bytes of a task nothing measured (default %(default)s)")
    args = parser.parse_args(argv)
    try:
        graph = _load(args.graph)
        stream = _load(args.task_stream) if args.task_stream else None
    except (OSError, pickle.UnpicklingError, json.JSONDecodeError, EOFError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    cluster = {k: v for k, v in (("workers", args.workers), ("threads", args.threads)) if v is not None}
    spec = export_table(graph, task_stream=stream, name=args.name, cluster=cluster, optimize=not args.no_optimize,
                        default_duration=args.default_duration, default_nbytes=args.default_nbytes)
    text = json.dumps(spec)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
        print(f"wrote {args.out} ({len(spec['taskTable'])} tasks)", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
