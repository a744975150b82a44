"""Task functions of overheads.py, imported by the dask workers (a module, not __main__: a
function pickled by value would take a private copy of LOG with it)."""
import time

LOG = []


def work(key, duration, *deps):
    start = time.time()
    time.sleep(duration)
    LOG.append((key, start, time.time()))
    return 1


def read_log():
    out = list(LOG)
    LOG.clear()
    return out


def loop_cpu():
    return time.thread_time()


_MIB = 2**20
_BLOCK = None


def build(key, duration, nbytes, *deps):
    """fidelity_tasks.work of the fidelity set: `nbytes` bytes of a repeated random 1 MiB block
    (lz4 finds nothing to compress), and the rest of `duration` asleep."""
    global _BLOCK
    start = time.time()
    t0 = time.perf_counter()
    if _BLOCK is None:
        import numpy as np

        _BLOCK = np.random.default_rng(12345).bytes(_MIB)
    whole, rest = divmod(int(nbytes), _MIB)
    out = _BLOCK[:rest] if whole == 0 else b"".join([_BLOCK] * whole + [_BLOCK[:rest]])
    left = duration - (time.perf_counter() - t0)
    if left > 0:
        time.sleep(left)
    LOG.append((key, start, time.time()))
    return out
