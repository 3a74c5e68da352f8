"""The one thread helper: a call beside the caller, and a pool of a few calls."""

import threading

import pytest

from skrank._core._threads import Background, available_cores, run_in_threads


def test_background_returns_the_calls_value_from_another_thread():
    caller = threading.get_ident()
    job = Background(lambda a, b: (a + b, threading.get_ident()), 2, 3)
    value, where = job.result()
    assert value == 5
    assert where != caller


def test_background_raises_the_calls_exception_in_the_caller():
    def fails():
        raise ValueError("in the thread")

    job = Background(fails)
    with pytest.raises(ValueError, match="in the thread"):
        job.result()


def test_run_in_threads_calls_each_item_once_and_raises_an_exception():
    seen = []
    lock = threading.Lock()

    def record(item):
        with lock:
            seen.append(item)

    run_in_threads(record, range(4), 2)
    assert sorted(seen) == [0, 1, 2, 3]

    def fails(item):
        if item == 2:
            raise RuntimeError("item 2")

    with pytest.raises(RuntimeError, match="item 2"):
        run_in_threads(fails, range(4), 2)


def test_available_cores_is_a_positive_count():
    cores = available_cores()
    assert isinstance(cores, int) and cores >= 1
