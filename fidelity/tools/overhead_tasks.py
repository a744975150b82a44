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
