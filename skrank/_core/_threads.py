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


class Done:
    """A call's outcome, with :class:`Background`'s face: ``result()`` returns it or raises."""

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    @classmethod
    def of(cls, func, *args):
        """``func(*args)``'s outcome: its value, or the exception it raised (kept, not raised)."""
        try:
            return cls(func(*args))
        except BaseException as exc:  # raised by result(), where the caller asks
            return cls(error=exc)

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value


class Background:
    """``func(*args)`` in a thread; ``result()`` waits, returns its value or re-raises.

    For numpy and pyarrow work that releases the GIL: it uses the second core.
    """

    def __init__(self, func, *args):
        import threading

        self._done = None

        def work():
            self._done = Done.of(func, *args)

        self._thread = threading.Thread(target=work, daemon=True)
        self._thread.start()

    def result(self):
        self._thread.join()
        return self._done.result()


class _Failed:
    def __init__(self, error):
        self.error = error


_END = object()


def ahead(func, items, depth=1):
    """``(item, done)`` for each of ``items``: ``done`` is ``func(item)`` worked out ahead.

    One thread goes through ``items`` (their iteration runs there too) and
    calls ``func`` on each, ahead of the loop that takes them, by at most
    ``depth`` items (done or being worked on) beyond the one the loop holds:
    the caller's own work on one item overlaps ``func``'s on the next, with
    one thread beside it, not one per item. ``done`` is a :class:`Done`:
    ``func``'s error is raised by ``done.result()``; an error of the
    iteration itself is raised by this generator, in its place. A loop left
    early stops the thread after its current item.
    """
    import queue
    import threading

    out = queue.SimpleQueue()
    slots = threading.Semaphore(depth)  # items the thread may be ahead by
    stop = threading.Event()

    def next_slot():
        while not stop.is_set():
            if slots.acquire(timeout=0.05):
                return True
        return False

    def work():
        try:
            iterator = iter(items)
            while next_slot():
                try:
                    item = next(iterator)
                except StopIteration:
                    out.put(_END)
                    return
                out.put((item, Done.of(func, item)))
        except BaseException as exc:
            out.put(_Failed(exc))

    threading.Thread(target=work, daemon=True).start()
    try:
        while True:
            entry = out.get()
            if entry is _END:
                return
            if isinstance(entry, _Failed):
                raise entry.error
            slots.release()  # the loop holds this one: the thread may start another
            yield entry
    finally:
        stop.set()


def run_in_threads(func, items, n_threads):
    """``func(item)`` for each of ``items`` on a pool of ``n_threads`` threads.

    Returns once all are done; an exception of any call is raised here.
    """
    from concurrent.futures import ThreadPoolExecutor  # only when threads run

    with ThreadPoolExecutor(n_threads) as pool:
        # list(): raise a thread's exception here
        list(pool.map(func, items))
