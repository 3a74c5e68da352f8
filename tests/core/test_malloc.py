"""reused_memory(): glibc's thresholds raised while a partition is measured, then put back."""

import subprocess
import sys
import threading

import pytest

from skrank._core import _malloc


class FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, parameter, value):
        self.calls.append(("mallopt", parameter, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch):
    fake = FakeLibc()
    monkeypatch.setattr(_malloc, "_libc", lambda: fake)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    return fake


TRIM, MMAP = _malloc._M_TRIM_THRESHOLD, _malloc._M_MMAP_THRESHOLD


def test_nothing_changes_in_a_process_started_without_a_trim_threshold(libc, monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with _malloc.reused_memory():
        pass
    assert libc.calls == []


@pytest.mark.parametrize("mmap_env", [None, "262144"])
def test_the_thresholds_are_raised_then_put_back_as_the_process_started(
        libc, monkeypatch, mmap_env):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")  # as Dask's nanny sets it
    if mmap_env is not None:
        monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", mmap_env)
    with pytest.raises(KeyError):  # an error inside restores them too
        with _malloc.reused_memory():
            assert libc.calls == [("mallopt", MMAP, _malloc._ROOMY),
                                  ("mallopt", TRIM, _malloc._ROOMY)]
            raise KeyError("inside")
    mmap = 128 * 1024 if mmap_env is None else int(mmap_env)
    assert libc.calls[2:] == [("mallopt", TRIM, 65536), ("mallopt", MMAP, mmap),
                              ("malloc_trim", 0)]


def test_nested_and_concurrent_uses_restore_once_the_last_one_leaves(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    inside, leave = threading.Event(), threading.Event()

    def other():
        with _malloc.reused_memory():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with _malloc.reused_memory():
        with _malloc.reused_memory():  # a decorated function calling another
            pass
    assert [c for c in libc.calls if c[0] == "malloc_trim"] == []  # the thread is inside
    leave.set()
    thread.join()
    assert libc.calls[-1] == ("malloc_trim", 0)
    assert [c[1:] for c in libc.calls if c[0] == "mallopt"] == [
        (MMAP, _malloc._ROOMY), (TRIM, _malloc._ROOMY), (TRIM, 65536), (MMAP, 128 * 1024)]


def test_as_a_decorator_it_keeps_the_function_picklable_by_name():
    import pickle

    from skrank.dask import _evaluate

    assert pickle.loads(pickle.dumps(_evaluate._partials)) is _evaluate._partials


FAULTS = """
import resource, numpy as np
from skrank._core._malloc import reused_memory
def faults(work):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    work()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
def work():
    for _ in range(10):
        a = np.ones(3_000_000); b = np.arange(1_000_000) * 2.0; del a, b
outside = faults(work)
with reused_memory():
    inside = faults(work)
print(outside, inside)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_arrays_reuse_freed_memory_inside():
    # a real process started as Dask starts its workers: far fewer pages
    # faulted in for the same arrays inside reused_memory()
    pytest.importorskip("numpy")
    if _malloc._libc() is None:
        pytest.skip("not glibc")
    env = {"MALLOC_TRIM_THRESHOLD_": "65536", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", FAULTS], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    outside, inside = map(int, done.stdout.split())
    if outside < 2000:
        pytest.skip(f"only {outside} page faults outside: nothing to save here")
    assert inside * 3 < outside
