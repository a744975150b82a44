"""The dask side of the importer's test: run a small graph on a real dask cluster with its task
stream, export it with tools/dask_to_spanwork.py (as a library, and through its command line
from pickles), and write what dask itself says the graph is, for the test to compare.

    python3 test/tools/dask_round_trip.py OUTDIR
"""
import json
import os
import subprocess
import sys
import time

import cloudpickle
from dask import delayed
from dask.core import get_deps
from dask.utils import stringify
from distributed import Client, LocalCluster, get_task_stream

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
from dask_to_spanwork import export_table  # noqa: E402

LOADS = 6


def load(i):
    time.sleep(0.05)
    return b"x" * (10_000 * (i + 1))


def combine(a, b):
    time.sleep(0.02)
    return a + b


def total(*parts):
    return sum(len(part) for part in parts)


def main(out):
    loads = [delayed(load)(i, dask_key_name=("load-5f3a", i)) for i in range(LOADS)]
    pairs = [delayed(combine)(loads[2 * j], loads[2 * j + 1], dask_key_name=("pair-9c1b", j)) for j in range(LOADS // 2)]
    result = delayed(total)(*pairs, dask_key_name="total")
    # The workers' scratch space inside OUTDIR, which the test removes (not in the shared temp dir).
    space = os.path.join(out, "dask-worker-space")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None, local_directory=space) as cluster, Client(cluster) as client:
        with get_task_stream(client=client) as stream:
            assert result.compute() == sum(10_000 * (i + 1) for i in range(LOADS))
        table = export_table(result, task_stream=stream.data, client=client, name="round-trip")
        records = stream.data
    dependencies, _ = get_deps(dict(result.__dask_graph__()))
    truth = {stringify(key): sorted(stringify(d) for d in deps) for key, deps in dependencies.items()}
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(table, f)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump({"dependencies": truth, "outputs": ["total"]}, f)
    with open(os.path.join(out, "graph.pickle"), "wb") as f:
        cloudpickle.dump(result, f)
    with open(os.path.join(out, "stream.pickle"), "wb") as f:
        cloudpickle.dump(records, f)
    subprocess.run(
        [sys.executable, os.path.join(TOOLS, "dask_to_spanwork.py"), os.path.join(out, "graph.pickle"), "--task-stream", os.path.join(out, "stream.pickle"),
         "--name", "round-trip", "--workers", "2", "--threads", "1", "--out", os.path.join(out, "table-cli.json")],
        check=True,
    )


if __name__ == "__main__":
    main(sys.argv[1])
