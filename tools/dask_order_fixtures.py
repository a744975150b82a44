#!/usr/bin/env python3
"""Records dask.order.order's priorities for test/fixtures/dask-order.json.

Reads the graphs spanwork exported (test/tools/export-order-graphs.ts: fidelity graphs and specs,
built-in workloads), adds seeded random DAGs of varied shapes, and runs the installed dask's
order (2022.12.1, /usr/lib/python3/dist-packages/dask/order.py) on each, under several
string-hash seeds: dask iterates Python sets in places, so a graph whose order differs between
seeds is marked "stable": false (dask itself gives it no one order).

  npx tsx test/tools/export-order-graphs.ts > /tmp/order-graphs.json
  /usr/bin/python3 tools/dask_order_fixtures.py /tmp/order-graphs.json test/fixtures/dask-order.json

Needs no cluster: only `from dask.order import order`.
"""
import json
import os
import random
import subprocess
import sys

HASH_SEEDS = ("0", "1", "2", "3")
ODD = ["__proto__", "constructor", "toString", "hasOwnProperty", "", " ", "a b", "é", "\u00ff",
       "\ue000", "\uffff", "\U0001d518", "\U0001f600", "x\U00010000", "x\uffff", "('x', 1)",
       "('x', 10)", "('x', 2)", "x-1", "x-10", "x-2", "X", "\\", '"', "\n", "0", "00", "-1"]


def name_maker(rng, style):
    used = set()

    def make(i):
        while True:
            if style == "regular":
                k = "x-%d" % i
            elif style == "tuple":
                k = "('%s', %d)" % (rng.choice("abc"), i)
            elif style == "odd":
                k = rng.choice(ODD) + rng.choice(["", str(rng.randrange(50)), rng.choice(ODD)])
            else:
                k = "".join(rng.choice("ab\ue000\U0001d518_-1") for _ in range(rng.randrange(1, 4)))
            if k in used:
                style_fallback = "%s~%d" % (k, i)
                k = style_fallback
            if k not in used:
                used.add(k)
                return k

    return make


def random_graph(seed):
    rng = random.Random(seed)
    shape = ["tree", "fanout", "shuffle", "sparse", "dense", "chains", "components", "diamond"][seed % 8]
    n = rng.choice([2, 3, 5, 8, 13, 30, 60, 120, 250])
    deps = []
    if shape == "tree":
        k = rng.randrange(2, 6)
        leaves = max(2, n)
        layer = list(range(leaves))
        deps = [[] for _ in layer]
        while len(layer) > 1:
            nxt = []
            for j in range(0, len(layer), k):
                deps.append(layer[j:j + k])
                nxt.append(len(deps) - 1)
            layer = nxt
    elif shape == "fanout":
        roots = rng.randrange(1, 4)
        deps = [[] for _ in range(roots)]
        for _ in range(n):
            deps.append([rng.randrange(roots)])
        mid = len(deps)
        for _ in range(rng.randrange(0, 4)):
            deps.append(sorted(set(rng.sample(range(roots, mid), min(mid - roots, rng.randrange(1, 6))))))
    elif shape == "shuffle":
        m = max(2, n // 10)
        deps = [[] for _ in range(m)]
        splits = []
        for i in range(m):
            for _ in range(m):
                deps.append([i])
                splits.append(len(deps) - 1)
        for j in range(m):
            deps.append([splits[i * m + j] for i in range(m)])
        if rng.random() < 0.5:
            deps.append(list(range(len(deps) - m, len(deps))))
    elif shape == "sparse":
        for i in range(n):
            deps.append(sorted(set(rng.randrange(i) for _ in range(rng.randrange(0, 4)))) if i else [])
    elif shape == "dense":
        p = rng.choice([0.2, 0.5, 0.8])
        for i in range(n):
            deps.append([j for j in range(i) if rng.random() < p])
    elif shape == "chains":
        for c in range(rng.randrange(1, 5)):
            prev = None
            for _ in range(rng.randrange(1, max(2, n // 2))):
                deps.append([] if prev is None else [prev])
                prev = len(deps) - 1
            if rng.random() < 0.5 and len(deps) > 2:
                deps.append(sorted(set([prev, rng.randrange(len(deps))])))
    elif shape == "components":
        for _ in range(rng.randrange(2, 6)):
            base = len(deps)
            size = rng.randrange(1, max(2, n // 3))
            for i in range(size):
                deps.append(sorted(set(base + rng.randrange(i) for _ in range(rng.randrange(0, 3)))) if i else [])
    else:
        width = rng.randrange(2, 6)
        deps = [[]]
        layer = [0]
        for _ in range(rng.randrange(2, 8)):
            nxt = []
            for _ in range(width):
                deps.append(sorted(set(rng.sample(layer, min(len(layer), rng.randrange(1, 3))))))
                nxt.append(len(deps) - 1)
            layer = nxt
        deps.append(layer)
    # Shuffle ids so that key order, id order and structure do not line up.
    perm = list(range(len(deps)))
    rng.shuffle(perm)
    inv = [0] * len(deps)
    for new, old in enumerate(perm):
        inv[old] = new
    shuffled = [None] * len(deps)
    for old, ds in enumerate(deps):
        shuffled[inv[old]] = sorted(set(inv[d] for d in ds))
    make = name_maker(rng, rng.choice(["regular", "tuple", "odd", "mixed"]))
    keys = [make(i) for i in range(len(deps))]
    return {"name": "random-%d-%s" % (seed, shape), "keys": keys, "deps": shuffled}


CONFTEST = r'''
import json, atexit
import dask.order as do
from dask.core import get_dependencies
captured = []
_orig = do.order
def rec(dsk, dependencies=None):
    deps = dependencies if dependencies is not None else {k: get_dependencies(dsk, k) for k in dsk}
    keys = [str(k) for k in deps]
    if len(set(keys)) == len(keys) and 1 < len(keys) <= 3000:
        idx = {k: i for i, k in enumerate(deps)}
        captured.append({"keys": keys, "deps": [sorted({idx[d] for d in deps[k] if d in idx and d != k}) for k in deps]})
    return _orig(dsk, dependencies=dependencies)
do.order = rec
import dask.tests.test_order as t
t.order = rec
atexit.register(lambda: json.dump(captured, open("captured.json", "w")))
'''


def dask_test_graphs():
    """The graphs dask's own tests (dask/tests/test_order.py) order, keys stringified as the
    scheduler does (update_graph_hlg)."""
    import tempfile
    import dask.tests

    src = os.path.join(os.path.dirname(dask.tests.__file__), "test_order.py")
    if not os.path.exists(src):
        return []
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "conftest.py"), "w") as f:
            f.write(CONFTEST)
        with open(src) as f, open(os.path.join(d, "test_order.py"), "w") as g:
            g.write(f.read())
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_order.py"],
                       cwd=d, check=False, capture_output=True)
        captured = json.load(open(os.path.join(d, "captured.json")))
    graphs = []
    for i, g in enumerate(captured):
        try:
            ranks(g)
        except RuntimeError:  # test_order_cycle: spanwork rejects cycles before ordering
            continue
        graphs.append(dict(g, name="dask-test-order-%d" % i))
    return graphs


def overflow_graphs():
    """Graphs whose metrics pass 2^53 (sums over exponentially many paths)."""
    out = []
    for length in (90, 150):  # each task needs the two before it: Fibonacci totals
        deps = [[]] + [[i - 1] + ([i - 2] if i > 1 else []) for i in range(1, length)]
        deps += [[i] for i in range(0, length, 7)]  # side branches off the ladder
        out.append({"name": "overflow-ladder-%d" % length, "keys": ["x-%d" % i for i in range(len(deps))], "deps": deps})
    for width, layers in ((3, 40), (4, 30)):  # full bipartite layers
        deps = [[] for _ in range(width)]
        for layer in range(1, layers):
            prev = list(range((layer - 1) * width, layer * width))
            deps += [prev if j else prev[:1] for j in range(width)]
        out.append({"name": "overflow-layers-%dx%d" % (width, layers), "keys": ["('l', %d)" % i for i in range(len(deps))], "deps": deps})
    return out


def ranks(graph):
    from dask.order import order

    keys = graph["keys"]
    dependencies = {k: {keys[d] for d in ds} for k, ds in zip(keys, graph["deps"])}
    o = order(dict.fromkeys(keys), dependencies=dependencies)
    return [o[k] for k in keys]


def worker(path):
    graphs = json.load(open(path))["graphs"]
    json.dump([ranks(g) for g in graphs], sys.stdout)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--ranks":
        worker(sys.argv[2])
        return
    src, out = sys.argv[1], sys.argv[2]
    exported = json.load(open(src))["graphs"]
    graphs, seen = [], {}
    for g in exported + dask_test_graphs() + overflow_graphs() + [random_graph(s) for s in range(int(os.environ.get("ORDER_RANDOM", "600")))]:
        sig = json.dumps([g["keys"], g["deps"]])
        if sig in seen:
            seen[sig].setdefault("aliases", []).append(g["name"])
            continue
        seen[sig] = g
        graphs.append(g)
    tmp = out + ".graphs.tmp"
    json.dump({"graphs": graphs}, open(tmp, "w"))
    per_seed = []
    for hs in HASH_SEEDS:
        env = dict(os.environ, PYTHONHASHSEED=hs)
        res = subprocess.run([sys.executable, __file__, "--ranks", tmp], env=env, check=True, capture_output=True, text=True)
        per_seed.append(json.loads(res.stdout))
    os.remove(tmp)
    for j, g in enumerate(graphs):
        g["ranks"] = per_seed[0][j]
        g["stable"] = all(r[j] == per_seed[0][j] for r in per_seed)
    with open(out, "w") as f:
        f.write('{"dask": "2022.12.1", "hashSeeds": %s, "graphs": [\n' % json.dumps(list(HASH_SEEDS)))
        f.write(",\n".join(json.dumps(g, ensure_ascii=True, separators=(",", ":")) for g in graphs))
        f.write("\n]}\n")
    unstable = [g["name"] for g in graphs if not g["stable"]]
    print("%d graphs, %d not stable under hash seeds: %s" % (len(graphs), len(unstable), ", ".join(unstable)))


if __name__ == "__main__":
    main()
