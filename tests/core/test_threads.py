"""The thread helpers: a call beside the caller, calls worked out ahead, a pool of a few calls."""

import threading

import pytest

from skrank._core._threads import Background, ahead, available_cores, run_in_threads


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


def test_ahead_gives_each_item_with_its_value_in_order_from_one_other_thread():
    caller = threading.get_ident()
    got = list(ahead(lambda x: (x * x, threading.get_ident()), iter(range(50))))
    assert [item for item, _ in got] == list(range(50))
    values = [done.result() for _, done in got]
    assert [v for v, _ in values] == [x * x for x in range(50)]
    assert len({where for _, where in values}) == 1 and values[0][1] != caller


def test_ahead_keeps_a_calls_error_for_its_item_and_goes_on():
    def func(x):
        if x == 2:
            raise ValueError("item 2")
        return x

    got = list(ahead(func, [0, 1, 2, 3]))
    assert [item for item, _ in got] == [0, 1, 2, 3]
    assert got[3][1].result() == 3
    with pytest.raises(ValueError, match="item 2"):
        got[2][1].result()


def test_ahead_raises_an_error_of_the_iteration_in_its_place():
    def items():
        yield 1
        yield 2
        raise KeyError("the third item")

    seen = []
    with pytest.raises(KeyError, match="the third item"):
        for item, done in ahead(lambda x: x, items()):
            seen.append(done.result())
    assert seen == [1, 2]


@pytest.mark.parametrize("depth", [1, 3])
def test_ahead_works_at_most_depth_items_past_the_one_the_loop_holds(depth):
    started = []
    release = threading.Event()

    def func(x):
        started.append(x)
        return x

    def items():
        for x in range(20):
            if x == 10:
                release.wait(5)
            yield x

    loop = ahead(func, items(), depth=depth)
    first, _ = next(loop)
    threading.Event().wait(0.3)  # time for the thread to run as far as it may
    # the loop holds item 0; the thread has done the next depth items
    assert first == 0 and started == list(range(depth + 1))
    release.set()
    assert [item for item, _ in loop] == list(range(1, 20))


def test_ahead_stops_its_thread_when_the_loop_is_left():
    workers = []

    def func(x):
        workers.append(threading.current_thread())
        return x

    loop = ahead(func, iter(range(1000)), depth=1)
    next(loop)
    loop.close()  # the loop is left: the generator's finally stops the thread
    workers[0].join(5)
    assert not workers[0].is_alive()
    assert len(workers) < 1000
