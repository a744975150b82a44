"""Timestamps inside a dask 2022.12.1 worker's transfers, installed in the worker processes by
fetch_cost.py (client.run(install)): a module, so the workers import it and keep one EVENTS
list per process.

It wraps, without changing what they do, the functions a fetch goes through:
- receiver: `distributed.worker.get_data_from_worker` (the whole fetch, as gather_dep times
  it), the worker's connection pool `rpc.connect` (new: no pooled connection to that peer);
- sender: the worker's `get_data` handler (entered once its loop read the request);
- both: in `distributed.comm.tcp`, `to_frames` (serialising a message being written), `host_array`
  (a read allocating its buffer: the message's length header has arrived), `unpack_frames`
  (every byte of it read off the socket) and `from_frames` (deserialising it), each for
  messages over 1 MB only.
Every event is (time.time(), label, bytes or keys).
"""
import threading
import time

EVENTS = []
TICKS = []
_TICKER = {}
BIG = 1_000_000


def _event(label, size=0):
    EVENTS.append((time.time(), label, size))


def install(dask_worker):
    import distributed.comm.tcp as tcp
    import distributed.worker as worker_module

    if getattr(tcp, "_fetch_probe", False):
        EVENTS.clear()
        return True
    tcp._fetch_probe = True

    real_host_array = tcp.host_array

    def host_array(n):
        if n > BIG:
            _event("read-header", n)
        out = real_host_array(n)
        if n > BIG:
            _event("read-buffer", n)
        return out

    tcp.host_array = host_array

    real_unpack = tcp.unpack_frames

    def unpack_frames(frames, *args, **kwargs):
        n = frames.nbytes if hasattr(frames, "nbytes") else len(frames)
        if n > BIG:
            _event("read-bytes", n)
        return real_unpack(frames, *args, **kwargs)

    tcp.unpack_frames = unpack_frames

    real_from_frames = tcp.from_frames

    async def from_frames(frames, *args, **kwargs):
        n = sum(f.nbytes if hasattr(f, "nbytes") else len(f) for f in frames)
        out = await real_from_frames(frames, *args, **kwargs)
        if n > BIG:
            _event("read-deserialised", n)
        return out

    tcp.from_frames = from_frames

    real_to_frames = tcp.to_frames

    async def to_frames(msg, *args, **kwargs):
        t0 = time.time()
        frames = await real_to_frames(msg, *args, **kwargs)
        n = sum(f.nbytes if hasattr(f, "nbytes") else len(f) for f in frames)
        if n > BIG:
            EVENTS.append((t0, "write-start", n))
            _event("write-serialised", n)
        return frames

    tcp.to_frames = to_frames

    real_write = tcp.TCP.write

    async def write(self, msg, *args, **kwargs):
        n0 = len(EVENTS)
        out = await real_write(self, msg, *args, **kwargs)
        if any(e[1] == "write-serialised" for e in EVENTS[n0:]):
            _event("write-done", 0)
        return out

    tcp.TCP.write = write

    real_get_data = dask_worker.handlers["get_data"]

    async def get_data(comm, keys=None, **kwargs):
        _event("serve-start", len(keys or ()))
        out = await real_get_data(comm, keys=keys, **kwargs)
        _event("serve-done", len(keys or ()))
        return out

    dask_worker.handlers["get_data"] = get_data

    pool = dask_worker.rpc
    real_connect = pool.connect

    async def connect(addr, *args, **kwargs):
        new = not any(not c.closed() for c in pool.available.get(addr, ()))
        _event("connect-start", int(new))
        comm = await real_connect(addr, *args, **kwargs)
        _event("connect-done", int(new))
        return comm

    pool.connect = connect

    real_fetch = worker_module.get_data_from_worker

    async def get_data_from_worker(rpc, keys, worker, *args, **kwargs):
        _event("fetch-start", len(keys))
        out = await real_fetch(rpc, keys, worker, *args, **kwargs)
        _event("fetch-done", len(keys))
        return out

    worker_module.get_data_from_worker = get_data_from_worker
    EVENTS.clear()
    return True


def read_events():
    out = list(EVENTS)
    EVENTS.clear()
    return out


def churn(key, duration, nbytes):
    """A split of the shuffle without its output kept: `nbytes` incompressible bytes built
    (fidelity_tasks.make_bytes) and the rest of `duration` asleep."""
    import fidelity_tasks

    t0 = time.perf_counter()
    fidelity_tasks.make_bytes(nbytes)
    left = duration - (time.perf_counter() - t0)
    if left > 0:
        time.sleep(left)
    return None


def drop_connections(peer, dask_worker=None):
    """Closes the worker's pooled connections to `peer`: its next fetch from it connects anew."""
    dask_worker.rpc.remove(peer)
    return True


def keep(key, *deps):
    """A task that keeps what it fetched: its result holds the fetched values, so the receiver's
    memory grows by them while the client holds it (the shuffle's joins' inputs stay until the
    joins run)."""
    return deps


def thread_cpu():
    """CPU seconds (user + system) of every thread of this process so far, by thread name
    (MainThread runs the worker's event loop; Dask-Offload_0 the (de)serialisation of large
    messages), from /proc/self/task/<tid>/stat."""
    import os
    import threading

    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for t in threading.enumerate():
        try:
            with open(f"/proc/self/task/{t.native_id}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, TypeError):
            continue
        name = t.name.split("-")[0] if t.name.startswith("ThreadPoolExecutor") else t.name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def start_ticker():
    """gil_probe.py: a thread in the worker process that wakes every 1 ms and records (time,
    lateness); a late wake-up waited for the GIL or for a core."""
    if _TICKER.get("thread"):
        TICKS.clear()
        return True

    def run():
        while True:
            t = time.perf_counter()
            time.sleep(0.001)
            TICKS.append((time.time(), time.perf_counter() - t - 0.001))

    _TICKER["thread"] = threading.Thread(target=run, name="gil-ticker", daemon=True)
    _TICKER["thread"].start()
    return True


def read_ticks():
    out = list(TICKS)
    TICKS.clear()
    return out


def windows(events, a, z):
    """[start, end) of every a..z pair in one worker's events (read_events()), in order: the
    analysers' (gil_probe.py, wire_probe.py) view of what this module recorded."""
    out, start = [], None
    for t, label, _ in events:
        if label == a:
            start = t
        elif label == z and start is not None:
            out.append((start, t))
            start = None
    return out


def tagger():
    """Unique task keys for a tool's submits: tag("src") -> "src-1", "src-2", ... (pure=False
    keeps dask from reusing a result; the key keeps the tasks apart in the probe's events)."""
    counter = [0]

    def tag(s):
        counter[0] += 1
        return f"{s}-{counter[0]}"

    return tag
