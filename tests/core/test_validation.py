"""Every bad input of SPEC §1 gets a ValueError that names the argument."""

import inspect

import numpy as np
import pandas as pd
import pytest

from skrank.metrics._registry import METRICS

# ranking metrics; set metrics (scored on decisions) have tests of their own
SPECS = sorted(
    (spec for spec in METRICS.values() if spec.response_method == "auto"),
    key=lambda spec: spec.stem,
)
IDS = [spec.stem for spec in SPECS]
Y = np.array([1, 0, 1, 0, 0, 1])
S = np.array([0.3, 0.2, 0.9, 0.1, 0.5, 0.4])
Q = np.array([1, 1, 1, 2, 2, 2])


def _takes(spec, option):
    """Whether the metric has ``option``: scikit-learn's label ranking metrics
    (coverage_error, ...) have no ``ties`` nor ``no_relevant``, as ties and
    queries without relevant rows are part of their definition."""
    return option in inspect.signature(spec.func).parameters


def _call(spec, y=Y, s=S, query_id=Q, **kwargs):
    options = dict(spec.options)
    options.update(kwargs)
    return spec.func(y, s, query_id=query_id, **options)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"y": Y[:5]}, "y_true"),
        ({"s": S[:5]}, "y_score"),
        ({"query_id": Q[:5]}, "query_id"),
        ({"s": np.r_[S[:5], np.nan]}, "y_score"),
        ({"s": np.r_[S[:5], np.inf]}, "y_score"),
        ({"y": np.r_[Y[:5], np.nan]}, "y_true"),
        ({"y": np.r_[Y[:5], -np.inf]}, "y_true"),
        ({"y": np.r_[Y[:5], -1]}, "y_true"),
        ({"y": [], "s": [], "query_id": []}, "y_true"),
        ({"y": Y.reshape(2, 3), "s": S.reshape(2, 3)}, "query_id"),
        ({"query_id": np.array([1, 1, None, 2, 2, 2], dtype=object)}, "query_id"),
        ({"query_id": np.array([1, 1, np.nan, 2, 2, 2])}, "query_id"),
        ({"query_id": pd.Series(["a", "a", None, "b", "b", "b"])}, "query_id"),
        ({"query_id": pd.Categorical(["a", "a", None, "b", "b", "b"])}, "query_id"),
        ({"ties": "random"}, "ties"),
        ({"aggregate": "median"}, "aggregate"),
        ({"sample_weight": np.ones(5)}, "sample_weight"),
        ({"sample_weight": -np.ones(6)}, "sample_weight"),
        ({"sample_weight": np.r_[np.ones(5), np.nan]}, "sample_weight"),
        ({"y": ["a", "b", "c", "d", "e", "f"]}, "y_true"),
    ],
)
def test_bad_input_names_the_argument(spec, kwargs, argument):
    if argument in kwargs and not _takes(spec, argument):
        pytest.skip(f"{spec.stem} has no `{argument}` option (see _takes)")
    with pytest.raises(ValueError, match=f"`?{argument}`?"):
        _call(spec, **kwargs)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.takes_k], ids=lambda s: s.stem)
@pytest.mark.parametrize("k", [0, -3, 2.5, 3.0, "3", True, np.float64(2)])
def test_bad_k(spec, k):
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        _call(spec, k=k)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.takes_k], ids=lambda s: s.stem)
def test_numpy_integer_k_is_accepted(spec):
    assert _call(spec, k=np.int32(2)) == _call(spec, k=2)


@pytest.mark.parametrize(
    "spec", [s for s in SPECS if not s.binary and _takes(s, "no_relevant")],
    ids=lambda s: s.stem,
)
def test_bad_no_relevant(spec):
    with pytest.raises(ValueError, match="`no_relevant` must be one of"):
        _call(spec, no_relevant="drop")


def test_binary_only_metric_rejects_graded_labels():
    with pytest.raises(ValueError, match="`y_true` must be binary"):
        METRICS["gauc"].func([2, 0, 1], [1, 2, 3], query_id=[1, 1, 1])


def test_gauc_needs_query_id_for_1d_input():
    with pytest.raises(ValueError, match="`query_id` is required"):
        METRICS["gauc"].func([1, 0, 1], [1, 2, 3])


@pytest.mark.parametrize(
    "func_name, kwargs, argument",
    [
        ("ndcg", {"gain": "quadratic"}, "gain"),
        ("dcg", {"gain": None}, "gain"),
        ("map", {"normalize": "all"}, "normalize"),
        ("f1", {"beta": 0}, "beta"),
        ("f1", {"beta": -1.0}, "beta"),
        ("fap", {"beta": float("nan")}, "beta"),
        ("gauc", {"weighting": "rows"}, "weighting"),
    ],
)
def test_bad_options(func_name, kwargs, argument):
    with pytest.raises(ValueError, match=f"`{argument}`"):
        _call(METRICS[func_name], **kwargs)


def test_no_relevant_error_lists_the_queries():
    with pytest.raises(ValueError, match="no relevant row.*query_id 2"):
        METRICS["map"].func([1, 0, 0, 0], [1, 2, 3, 4], query_id=[1, 1, 2, 2],
                            no_relevant="error")


def test_2d_sample_weight_is_one_per_ranking():
    with pytest.raises(ValueError, match="`sample_weight` has 6 entries but there are 2"):
        METRICS["ndcg"].func(Y.reshape(2, 3), S.reshape(2, 3), sample_weight=np.ones(6))


def test_shapes_must_match_in_2d():
    with pytest.raises(ValueError, match="different shapes"):
        METRICS["ndcg"].func(Y.reshape(2, 3), S.reshape(3, 2))


def test_3d_input_is_refused():
    with pytest.raises(ValueError, match="`y_true` must be 1-D or 2-D"):
        METRICS["ndcg"].func(np.ones((2, 2, 2)), np.ones((2, 2, 2)))


# metrics whose value at a k past every query is the value at k=None
# (P@k and F@k still divide by k, and FAP's F part does)
_WHOLE_LIST = [s for s in SPECS if s.takes_k and s.stem not in ("precision", "f1", "fap")]


@pytest.mark.parametrize("spec", _WHOLE_LIST, ids=lambda s: s.stem)
@pytest.mark.parametrize("k", [2**62, 2**63, 2**70, np.uint64(2**64 - 1)])
def test_a_k_past_int64_means_the_whole_list(spec, k):
    assert _call(spec, k=k) == pytest.approx(_call(spec, k=None), rel=1e-15, nan_ok=True)


@pytest.mark.parametrize("k", [2**63, 2**70])
def test_a_k_past_int64_divides_precision_by_a_huge_k(k):
    from skrank import precision_at_k_score

    # 3 relevant rows, each query: hits / k, about 1e-19; no OverflowError
    value = precision_at_k_score(Y, S, query_id=Q, k=k)
    assert 0 < value <= 2 / 2**62


@pytest.mark.parametrize("name", ["ndcg@99999999999999999999", "map@9223372036854775808",
                                  "hit_rate@99999999999999999999"])
def test_a_scorer_name_with_a_huge_cutoff_means_the_whole_list(name):
    from skrank.metrics._registry import parse_metric_name

    spec, k = parse_metric_name(name)
    assert _call(spec, k=k) == pytest.approx(_call(spec, k=None), rel=1e-15)


def test_rows_named_by_names_a_piece_s_rows_as_the_caller_knows_them():
    from skrank._core._validation import first_position, rows_named_by

    mask = np.array([False, False, True])
    with rows_named_by(lambda i: f"index {['a', 'b', 'c'][i]!r}", 3):
        assert first_position(mask) == "index 'c'"
        assert first_position(np.array([True, False])) == "a row"  # another length
        assert first_position(np.array([[False, True]])) == "row 0, column 1"
    assert first_position(mask) == "row 2"  # and only within the block
