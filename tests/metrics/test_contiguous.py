"""The completed-id bookkeeping of RankingAccumulator(contiguous=True) (skrank/metrics/_contiguous.py).

The expected answers are Python's own set semantics (ids equal in Python
are one query, as skrank.evaluate groups them), checked by brute force.
"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from skrank.metrics._contiguous import (
    CompletedIds,
    check_runs_differ,
    grouped_by_first_row,
    run_ids,
)

IDS = st.one_of(
    st.integers(-2**63, 2**63 - 1),
    st.integers(-3, 3),
    st.floats(-4, 4, allow_nan=False).map(lambda x: round(x * 2) / 2),
    st.sampled_from(["a", "b", "3", ""]),
)


def _array(values):
    """values as numpy would hold them: one dtype when they share a kind."""
    kinds = {type(v) for v in values}
    if kinds == {int} and all(-2**63 <= v < 2**63 for v in values):
        return np.array(values, dtype=np.int64)
    if kinds == {float}:
        return np.array(values, dtype=np.float64)
    if kinds == {str}:
        return np.array(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(IDS, max_size=8), max_size=6), st.lists(IDS, max_size=8))
def test_membership_is_python_equality(batches, probe):
    completed, reference = CompletedIds(), set()
    for batch in batches:
        completed.add(_array(batch))
        reference.update(batch)
    assert bool(completed) == bool(reference)
    first = next((v for v in probe if v in reference), None)
    got = completed.first_member(_array(probe))
    if first is None:
        assert got is None
    else:
        assert got == first


def test_numbers_of_every_type_and_size():
    completed = CompletedIds()
    completed.add(np.array([3, -0, 2**62], dtype=np.int64))
    completed.add(np.array([2**64 - 1], dtype=np.uint64))
    completed.add(np.array([0.5]))
    for same in (np.array([3.0]), np.array([np.uint8(3)]), np.array([-0.0]),
                 np.array([2**64 - 1], dtype=np.uint64), np.array([0.5], np.float32),
                 np.array([np.int64(3)], dtype=object), np.array([False, 7], dtype=object)):  # False == 0
        assert completed.first_member(same) is not None, same
    for other in (np.array(["3"]), np.array([3.5]), np.array([2**63], dtype=np.uint64)):
        assert completed.first_member(other) is None, other
    # 8 bytes per number (2 ints, 2 of them, the big one is a Python int)
    assert completed.nbytes == 8 * 4


def test_union_and_common_ids():
    left, right = CompletedIds(), CompletedIds()
    for i in range(0, 50, 7):
        left.add(np.arange(i, i + 7))
    right.add(np.array(["x", "y"]))
    assert left.first_common(right) is None
    right.add(np.array([49.0]))
    assert left.first_common(right) == 49
    both = left.union(right)
    assert both.first_member(np.array([100, 48])) == 48
    assert both.first_member(np.array(["y"])) == "y"
    # the sorted arrays stay few (merged as they grow): about log2(n)
    assert len(left._ints.levels) <= 4


def test_runs_and_grouping():
    ids = np.array([4, 4, 1, 1, 1, 9, 4])
    assert run_ids(ids).tolist() == [4, 1, 9, 4]
    with pytest.raises(ValueError, match="query id 4 appears in two separate runs"):
        check_runs_differ(run_ids(ids))
    check_runs_differ(np.array(["a", "b", "c"]))
    order = grouped_by_first_row(None, ids)
    assert ids[order].tolist() == [4, 4, 4, 1, 1, 1, 9]
    assert grouped_by_first_row(None, ids[order]) is None
