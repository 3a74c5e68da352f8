"""Threads for numpy and pyarrow work that releases the GIL: the one helper skrank uses.

:class:`Background` runs one call beside the caller (the TREC engine joins
a run with its qrels there while it sorts the run); :func:`run_in_threads`
runs a few calls on a pool (the bootstrap's streams of resamples).
:func:`available_cores` says how many cores this process may use.
"""

import os


def available_cores():
    """How many cores this process may run on (its CPU affinity on Linux)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Background:
    """``func(*args)`` in a thread; ``result()`` waits, returns its value or re-raises.

    For numpy and pyarrow work that releases the GIL: it uses the second core.
    """

    def __init__(self, func, *args):
        import threading

        self._error = self._value = None

        def work():
            try:
                self._value = func(*args)
            except BaseException as exc:  # re-raised in the caller's thread
                self._error = exc

        self._thread = threading.Thread(target=work, daemon=True)
        self._thread.start()

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def run_in_threads(func, items, n_threads):
    """``func(item)`` for each of ``items`` on a pool of ``n_threads`` threads.

    Returns once all are done; an exception of any call is raised here.
    """
    from concurrent.futures import ThreadPoolExecutor  # only when threads run

    with ThreadPoolExecutor(n_threads) as pool:
        # list(): raise a thread's exception here
        list(pool.map(func, items))
