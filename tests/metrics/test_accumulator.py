"""RankingAccumulator equals evaluate() on the concatenated rows, however they arrive.

The expected values come from :func:`skrank.evaluate` on all the rows at
once (itself checked against brute-force references elsewhere); the
accumulator gets the same rows cut into random batches, spread over
accumulators merged in random trees, pickled on the way.
"""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import skrank.metrics._accumulator as accumulator_module
from skrank import RankingAccumulator, evaluate
from skrank.metrics._accumulator import TOP_K_STEMS, to_host_array
from skrank.metrics._registry import METRICS

from .._needs import needs

# every registry metric, with a cutoff where it takes one
ALL_METRICS = [f"{stem}@3" if spec.takes_k else stem for stem, spec in METRICS.items()]
TOP_K_METRICS = [f"{stem}@2" for stem in sorted(TOP_K_STEMS)]
# scores that are never all 0/1 (no label-scores warning), with ties
SCORES = st.sampled_from([-1.5, 0.25, 0.5, 2.0, 3.0])


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _assert_same(result, expected):
    assert list(result) == list(expected)
    for name, value in expected.items():
        if np.isnan(value):
            assert np.isnan(result[name]), name
        else:
            assert result[name] == pytest.approx(value, rel=1e-12, abs=1e-12), name


def _pieces(data, n_rows, n_pieces):
    cuts = sorted(data.draw(st.lists(
        st.integers(0, n_rows), min_size=n_pieces - 1, max_size=n_pieces - 1
    )))
    return list(zip([0] + cuts, cuts + [n_rows]))


def _merge_tree(data, accumulators):
    """Merge in a random tree (random adjacent pairs, random left/right)."""
    accumulators = list(accumulators)
    while len(accumulators) > 1:
        i = data.draw(st.integers(0, len(accumulators) - 2))
        left, right = accumulators[i], accumulators.pop(i + 1)
        if data.draw(st.booleans()):
            left, right = right, left
        accumulators[i] = left.merge(right)
    return accumulators[0]


@st.composite
def rankings(draw, binary=False):
    n = draw(st.integers(1, 40))
    top = 1 if binary else 3
    y = np.array(draw(st.lists(st.integers(0, top), min_size=n, max_size=n)), float)
    score = np.array(draw(st.lists(SCORES, min_size=n, max_size=n)))
    query = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    weight = None
    if draw(st.booleans()):
        weight = np.array(draw(st.lists(
            st.floats(0.25, 4.0), min_size=n, max_size=n
        )))
    return y, score, query, weight


def _update_all(accumulator, y, score, query, weight, pieces, **kwargs):
    for a, b in pieces:
        if a == b:
            continue
        accumulator.update(
            y[a:b], score[a:b], query_id=query[a:b],
            sample_weight=None if weight is None else weight[a:b], **kwargs,
        )
    return accumulator


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings(binary=True), st.data(), st.sampled_from(["skip", "zero", "one"]),
       st.sampled_from(["average", "input"]))
def test_batches_merges_and_pickles_equal_evaluate(ranking, data, no_relevant, ties):
    y, score, query, weight = ranking
    expected = _quiet(evaluate, y, score, query_id=query, metrics=ALL_METRICS,
                      sample_weight=weight, no_relevant=no_relevant, ties=ties)
    n_pieces = data.draw(st.integers(1, 5))
    parts = []
    for a, b in _pieces(data, y.shape[0], n_pieces):
        part = RankingAccumulator(ALL_METRICS, no_relevant=no_relevant, ties=ties)
        more = _pieces(data, b - a, data.draw(st.integers(1, 3)))
        part = _update_all(part, y[a:b], score[a:b], query[a:b],
                           None if weight is None else weight[a:b], more)
        parts.append(pickle.loads(pickle.dumps(part)))
    if ties == "input":  # tied rows keep the arrival order: merge left to right
        merged = parts[0]
        for part in parts[1:]:
            merged.merge(part)
    else:
        merged = _merge_tree(data, parts)
    if merged.n_rows_ == 0:
        return
    _assert_same(_quiet(merged.result), expected)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings(), st.data(), st.sampled_from([1, 2, 5]))
def test_top_k_state_keeps_few_rows_and_equals_evaluate(ranking, data, k):
    """Compacting after every update: the summaries stand in for the rows let go."""
    y, score, query, weight = ranking
    metrics = [f"{stem}@{k}" for stem in sorted(TOP_K_STEMS)]
    expected = _quiet(evaluate, y, score, query_id=query, metrics=metrics,
                      sample_weight=weight, gain="linear")
    parts = []
    for a, b in _pieces(data, y.shape[0], data.draw(st.integers(1, 4))):
        part = RankingAccumulator(metrics, gain="linear")
        for c, d in _pieces(data, b - a, data.draw(st.integers(1, 4))):
            if c < d:
                rows = slice(a + c, a + d)
                part.update(y[rows], score[rows], query_id=query[rows],
                            sample_weight=None if weight is None else weight[rows])
                part._compact()
        parts.append(pickle.loads(pickle.dumps(part)))
    merged = _merge_tree(data, parts)
    merged._compact()
    _assert_same(_quiet(merged.result), expected)


def test_top_k_state_is_bounded_for_a_long_query():
    rng = np.random.default_rng(0)
    accumulator = RankingAccumulator(["ndcg@5", "recall@5"])
    ys, scores = [], []
    for _ in range(40):
        y, score = rng.integers(0, 3, 5000), rng.random(5000)
        accumulator.update(y, score, query_id=np.zeros(5000, dtype=int))
        ys.append(y)
        scores.append(score)
    # the top 5 rows, one totals row and up to 5 grade rows; compaction is
    # amortised, so at most twice that plus the rows since the last one
    assert accumulator._n_open() < 2 * accumulator_module._COMPACT_MIN_ROWS
    accumulator._compact()
    assert accumulator._n_open() <= 5 + 1 + 5
    y, score = np.concatenate(ys), np.concatenate(scores)
    _assert_same(accumulator.result(),
                 evaluate(y, score, query_id=np.zeros(y.shape[0]),
                          metrics=["ndcg@5", "recall@5"]))


def test_metrics_over_the_whole_list_keep_every_open_row():
    accumulator = RankingAccumulator(["map", "ndcg@5"])
    accumulator.update([1, 0, 1], [3.0, 2.0, 1.0], query_id=[0, 0, 0])
    accumulator._compact()
    assert accumulator._n_open() == 3


def _sorted_by_query(y, score, query, weight):
    order = np.argsort(query, kind="stable")
    return y[order], score[order], query[order], None if weight is None else weight[order]


@settings(max_examples=30, deadline=None)
@given(rankings(), st.data())
def test_contiguous_queries_close_as_the_next_starts(ranking, data):
    y, score, query, weight = _sorted_by_query(*ranking)
    metrics = ["ndcg", "map", "mrr@2", "r_precision", "bpref"]
    expected = _quiet(evaluate, y, score, query_id=query, metrics=metrics,
                      sample_weight=weight)
    parts = []
    for a, b in _pieces(data, y.shape[0], data.draw(st.integers(1, 3))):
        part = RankingAccumulator(metrics, contiguous=True)
        more = _pieces(data, b - a, data.draw(st.integers(1, 4)))
        parts.append(_update_all(part, y[a:b], score[a:b], query[a:b],
                                 None if weight is None else weight[a:b], more))
        # at most the first and the last query of a piece stay open
        assert len(np.unique(part._open.ids)) <= 2 if part._open is not None else True
    _assert_same(_quiet(_merge_tree(data, parts).result), expected)


def test_contiguous_refuses_a_query_that_comes_back():
    accumulator = RankingAccumulator(["mrr"], contiguous=True)
    with pytest.raises(ValueError, match="two separate runs"):
        accumulator.update([1, 0, 1, 0, 1], [1.0, 2, 3, 4, 5], query_id=[1, 2, 3, 2, 4])
    assert accumulator.n_rows_ == 0  # refused before any change


def test_complete_queries_are_scored_and_let_go():
    accumulator = RankingAccumulator(["mrr", "precision@1"], keep_per_query=True)
    accumulator.update([0, 1], [0.9, 0.1], query_id=["b", "a"])          # b, a open
    accumulator.update([1, 1], [0.5, 0.2], query_id=["b", "c"], complete=True)
    assert accumulator._open.ids.tolist() == ["a"]
    # a: one row, relevant: RR 1; b: 0.9 (no), 0.5 (yes): RR 1/2; c: RR 1
    assert accumulator.result() == pytest.approx({"mrr": 2.5 / 3, "precision@1": 2 / 3})
    per_query = accumulator.per_query()
    assert per_query["mrr"].query_id.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(per_query["mrr"].value, [1.0, 0.5, 1.0])


@pytest.mark.parametrize("no_relevant", ["skip", "zero", "error"])
def test_per_query_equals_evaluate_per_query(no_relevant):
    rng = np.random.default_rng(3)
    y, score = rng.integers(0, 2, 300), rng.random(300)
    query = rng.integers(0, 40, 300) * 7  # ids not 0..n-1
    y[query == 0] = 0  # a query with no relevant row
    weight = rng.uniform(0.5, 2.0, 300)
    metrics = ["ndcg@3", "map", "gauc", "recall@2"]
    accumulator = RankingAccumulator(metrics, keep_per_query=True,
                                     no_relevant=no_relevant)
    for a in range(0, 300, 70):  # the last batch completes its queries
        accumulator.update(y[a:a + 70], score[a:a + 70], query_id=query[a:a + 70],
                           sample_weight=weight[a:a + 70], complete=a + 70 >= 300)
    if no_relevant == "error":
        with pytest.raises(ValueError, match="no relevant row"):
            evaluate(y, score, query_id=query, metrics=metrics, aggregate=None,
                     no_relevant="error", sample_weight=weight)
        with pytest.raises(ValueError, match="no relevant row"):
            accumulator.per_query()
        with pytest.raises(ValueError, match="no relevant row"):
            accumulator.result()
        return
    # the queries of the last batch are scored there over all their rows;
    # the others stay open until per_query()
    expected = evaluate(y, score, query_id=query, metrics=metrics, aggregate=None,
                        no_relevant=no_relevant, sample_weight=weight)
    result = accumulator.per_query()
    for name in metrics:
        np.testing.assert_array_equal(result[name].query_id, expected[name].query_id)
        np.testing.assert_allclose(result[name].value, expected[name].value,
                                   rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(result[name].weight, expected[name].weight,
                                   rtol=1e-12)


def test_options_mean_what_they_mean_in_evaluate():
    y, score, query = [3, 0, 1, 2], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1]
    options = {"gain": "linear", "normalize": "min", "beta": 2.0}
    metrics = ["ndcg@1", "map@1", "fap@2"]
    accumulator = RankingAccumulator(metrics, **options)
    accumulator.update(y, score, query_id=query)
    assert accumulator.result() == evaluate(y, score, query_id=query,
                                            metrics=metrics, **options)
    # an option that goes to the metric's own function (one more sort)
    accumulator = RankingAccumulator(["gauc"], weighting="uniform")
    accumulator.update([1, 0, 1, 0], score, query_id=query)
    assert accumulator.result() == evaluate([1, 0, 1, 0], score, query_id=query,
                                            metrics=["gauc"], weighting="uniform")


def test_default_metrics_reset_and_repr():
    accumulator = RankingAccumulator()
    assert accumulator.metrics == ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]
    accumulator.update([1, 0], [0.5, 0.4], query_id=[0, 0])
    assert "n_rows_=2" in repr(accumulator)
    accumulator.reset()
    assert accumulator.n_rows_ == 0
    with pytest.raises(ValueError, match="no rows"):
        accumulator.result()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"metrics": []}, "`metrics` is empty"),
        ({"metrics": ["ndcg@0"]}, "positive integer"),
        ({"metrics": ["nope"]}, "Unknown metric"),
        ({"ties": "first"}, "`ties`"),
        ({"no_relevant": "drop"}, "`no_relevant`"),
        ({"aggregate": None}, "not an option"),
        ({"contiguous": 1}, "`contiguous`"),
        ({"gain": "cubic"}, "gain"),
        ({"colour": "red"}, "No requested metric takes"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RankingAccumulator(**kwargs)


def test_bad_updates_and_merges_are_refused():
    accumulator = RankingAccumulator(["mrr"])
    with pytest.raises(ValueError, match="`query_id` is required"):
        accumulator.update([1, 0], [0.5, 0.4], query_id=None)
    with pytest.raises(ValueError, match="different lengths"):
        accumulator.update([1, 0], [0.5], query_id=[0, 0])
    with pytest.raises(ValueError, match="`query_id`"):
        accumulator.update([1, 0], [0.5, 0.4], query_id=[0])
    with pytest.raises(ValueError, match="`y_score` contains NaN"):
        accumulator.update([1, 0], [0.5, np.nan], query_id=[0, 0])
    with pytest.raises(ValueError, match="`y_true` must be non-negative"):
        accumulator.update([1, -1], [0.5, 0.4], query_id=[0, 0])
    with pytest.raises(ValueError, match="`sample_weight`"):
        accumulator.update([1, 0], [0.5, 0.4], query_id=[0, 0], sample_weight=[1.0])
    with pytest.raises(ValueError, match="1-D"):
        accumulator.update([[1, 0]], [[0.5, 0.4]], query_id=[0, 0])
    with pytest.raises(ValueError, match="same metrics"):
        accumulator.merge(RankingAccumulator(["map"]))
    with pytest.raises(ValueError, match="keep_per_query=True"):
        accumulator.per_query()
    assert accumulator.n_rows_ == 0


def test_ids_of_several_types_stay_apart():
    accumulator = RankingAccumulator(["mrr"], keep_per_query=True)
    accumulator.update([1, 0], [0.9, 0.8], query_id=[1, 1])
    accumulator.update([0, 1], [0.9, 0.8], query_id=["1", "1"])
    assert accumulator.result() == pytest.approx({"mrr": 0.75})


def test_series_of_pandas_and_polars():
    pd = needs("pandas")
    pl = needs("polars")
    accumulator = RankingAccumulator(["mrr"])
    accumulator.update(pd.Series([0, 1]), pd.Series([0.9, 0.8]),
                       query_id=pd.Series(["a", "a"], dtype="category"))
    accumulator.update(pl.Series([1, 0]), pl.Series([0.9, 0.8]),
                       query_id=pl.Series(["b", "b"]))
    assert accumulator.result() == {"mrr": 0.75}


def test_torch_tensors_are_read_without_importing_torch():
    torch = needs("torch")
    accumulator = RankingAccumulator(["mrr", "ndcg@2"])
    y = torch.tensor([0, 1, 1, 0])
    score = torch.tensor([0.9, 0.8, 0.3, 0.1], requires_grad=True)
    accumulator.update(y, score * 1.0, query_id=torch.tensor([0, 0, 1, 1]))
    expected = evaluate([0, 1, 1, 0], [0.9, 0.8, 0.3, 0.1], query_id=[0, 0, 1, 1],
                        metrics=["mrr", "ndcg@2"])
    assert accumulator.result() == pytest.approx(expected, rel=1e-6)


class _FakeTensor:
    """What the accumulator reads of a tensor: detach().cpu().numpy()."""

    def __init__(self, values, log):
        self.values, self.log = np.asarray(values), log

    def detach(self):
        self.log.append("detach")
        return self

    def cpu(self):
        self.log.append("cpu")
        return self

    def numpy(self):
        return self.values


class _DLPackOnly:
    """An array that numpy.asarray refuses but numpy.from_dlpack reads."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __array__(self, *args, **kwargs):
        raise TypeError("implicit conversion refused")

    def __dlpack__(self, **kwargs):
        return self.values.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.values.__dlpack_device__()


def test_tensor_like_and_dlpack_inputs():
    log = []
    assert to_host_array("y_score", _FakeTensor([1.0, 2.0], log)).tolist() == [1.0, 2.0]
    assert log == ["detach", "cpu"]
    assert to_host_array("y_score", _DLPackOnly([3.0, 4.0])).tolist() == [3.0, 4.0]


def test_an_unreadable_array_names_the_argument():
    class Opaque:
        def __array__(self, *args, **kwargs):
            raise TypeError("no host copy")

    with pytest.raises(ValueError, match="`y_score` could not be read.*host memory"):
        to_host_array("y_score", Opaque())


def test_inputs_are_not_modified():
    y, score, query = np.array([1.0, 0.0]), np.array([0.5, 0.4]), np.array([0, 0])
    accumulator = RankingAccumulator(["ndcg@1"])
    accumulator.update(y, score, query_id=query)
    accumulator._compact()
    assert y.tolist() == [1.0, 0.0] and score.tolist() == [0.5, 0.4]


# ---------------------------------------------------------------- issue 34 ----
# B1: err, pfound (max_grade=None) and gap (grade_probabilities=None) read the
# largest grade of *all* rows. A query scored before result() cannot know it.
GRADE_SCALE = ["err", "pfound@3", "gap"]


def test_graded_cascade_metrics_are_refused_when_queries_close_early():
    """The issue's four rows: evaluate gives err 0.5, closing query 1 first gave 0.96875.

    evaluate: the largest grade is 3, so grade 1 stops the user with
    probability (2 - 1) / 8 and grade 3 with 7 / 8: query 1 (grade 1 first)
    ERR 1/8, query 2 (grade 3 first) 7/8, mean 1/2. Scored alone, query 1
    sees only grade 1 (probability 1: ERR 1).
    """
    y, s, q = [1, 0, 3, 0], [0.9, 0.1, 0.8, 0.2], [1, 1, 2, 2]
    assert evaluate(y, s, query_id=q, metrics=["err"]) == {"err": 0.5}
    for kwargs, update in (({}, {"complete": True}), ({"contiguous": True}, {})):
        accumulator = RankingAccumulator(["err"], **kwargs)
        accumulator.update(y[:2], s[:2], query_id=q[:2], **update)
        with pytest.raises(ValueError, match=r"'err' with max_grade=None.*grade of 3.*"
                                             r"Give max_grade"):
            accumulator.update(y[2:], s[2:], query_id=q[2:], **update)
        assert accumulator.n_rows_ == 2  # refused before any change
        # with the grade scale given, the same batches give evaluate's value
        accumulator = RankingAccumulator(["err"], max_grade=3, **kwargs)
        accumulator.update(y[:2], s[:2], query_id=q[:2], **update)
        accumulator.update(y[2:], s[2:], query_id=q[2:], **update)
        assert accumulator.result() == pytest.approx({"err": 0.5})
    # open queries are scored together at result(): no refusal, evaluate's value
    accumulator = RankingAccumulator(["err"])
    accumulator.update(y[:2], s[:2], query_id=q[:2])
    accumulator.update(y[2:], s[2:], query_id=q[2:])
    assert accumulator.result() == pytest.approx({"err": 0.5})


def test_gap_without_grade_probabilities_is_refused_on_grades_above_one():
    accumulator = RankingAccumulator(["gap"], contiguous=True)
    with pytest.raises(ValueError, match="'gap' with grade_probabilities=None"):
        accumulator.update([2, 0], [0.9, 0.1], query_id=[1, 1])


def test_merging_a_graded_accumulator_into_early_scores_is_refused():
    early = RankingAccumulator(["pfound"])
    early.update([1, 0], [0.9, 0.1], query_id=[1, 1], complete=True)  # scored: grades <= 1
    graded = RankingAccumulator(["pfound"])
    graded.update([3, 0], [0.9, 0.1], query_id=[2, 2])  # open
    with pytest.raises(ValueError, match="'pfound' with max_grade=None"):
        early.merge(graded)
    with pytest.raises(ValueError, match="'pfound' with max_grade=None"):
        graded.merge(early)
    assert early.n_rows_ == 2 and graded.n_rows_ == 2


def _whole_query_batches(data, query):
    """Random batches of whole queries (for complete=True), in random order."""
    ids = np.unique(query)
    order = data.draw(st.permutations(list(range(ids.shape[0]))))
    groups = _pieces(data, ids.shape[0], data.draw(st.integers(1, 4)))
    return [np.isin(query, ids[order[a:b]]) for a, b in groups if a < b]


def _feed(data, mode, y, score, query, weight, metrics, options):
    """Accumulators fed random batches in ``mode``, merged left to right.

    ``"complete"``: batches of whole queries, each update complete=True,
    spread over up to three accumulators; ``"contiguous"`` and ``"open"``:
    rows sorted by query cut into pieces (one accumulator each) and batches.
    """
    parts = [RankingAccumulator(metrics, contiguous=mode == "contiguous", **options)
             for _ in range(data.draw(st.integers(1, 3)))]
    if mode == "complete":
        updates = [(data.draw(st.integers(0, len(parts) - 1)), mask, True)
                   for mask in _whole_query_batches(data, query)]
    else:
        updates = []
        for i, (a, b) in enumerate(_pieces(data, y.shape[0], len(parts))):
            for c, d in _pieces(data, b - a, data.draw(st.integers(1, 4))):
                if c < d:
                    updates.append((i, slice(a + c, a + d), False))
    for i, rows, complete in updates:
        parts[i].update(y[rows], score[rows], query_id=query[rows],
                        sample_weight=None if weight is None else weight[rows],
                        complete=complete)
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    return merged


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rankings(), st.data(), st.sampled_from(["binary", "fraction", "graded"]),
       st.sampled_from(["contiguous", "complete", "open"]))
def test_grade_scale_metrics_equal_evaluate_over_random_batchings(ranking, data, labels,
                                                                 mode):
    """Equal to evaluate whatever the batching, or refused (graded, None, early scoring)."""
    y, score, query, weight = _sorted_by_query(*ranking)
    if labels == "binary":
        y = (y > 0).astype(float)
    elif labels == "fraction":  # grades in [0, 1]: their own probabilities
        y = y / 4.0
    metrics = ["err", "pfound@3"] if labels == "fraction" else GRADE_SCALE
    scale = labels == "graded" and data.draw(st.booleans())
    options = {"max_grade": 3, "grade_probabilities": [0.5, 0.25, 0.25]} if scale else {}
    expected = _quiet(evaluate, y, score, query_id=query, metrics=metrics,
                      sample_weight=weight, **options)
    refused = labels == "graded" and not scale and mode != "open" and y.max() > 1
    if refused:
        with pytest.raises(ValueError, match="=None reads the largest grade"):
            _feed(data, mode, y, score, query, weight, metrics, options)
    else:
        merged = _feed(data, mode, y, score, query, weight, metrics, options)
        _assert_same(_quiet(merged.result), expected)


# B2: contiguous=True refuses a query id that comes back in a later update.
def test_contiguous_refuses_an_id_that_comes_back_in_a_later_update():
    """The streaming guide's promise, across updates (issue 34, B2).

    Query 1 (AP 1) is cut off by queries 2 and 3, then comes back with a
    second run, which was scored as another query 1 (AP 1/2) instead.
    """
    accumulator = RankingAccumulator(["map"], contiguous=True)
    accumulator.update([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], query_id=[1, 1, 2, 2])
    accumulator.update([1, 1], [0.5, 0.4], query_id=[3, 3])      # completes 2
    before = accumulator.result()
    # the first query (still open, for a merge) and a completed one
    for ids, match in (([1, 1], "query id 1 appears in two separate runs"),
                       ([2], "query id 2 was completed in an earlier update")):
        with pytest.raises(ValueError, match=match):
            accumulator.update([0] * len(ids), [0.95] * len(ids), query_id=ids)
        assert accumulator.n_rows_ == 6 and accumulator.result() == before
    accumulator.update([0, 1], [0.3, 0.2], query_id=[3, 4])     # 3 goes on: fine
    # and with complete=True batches
    accumulator = RankingAccumulator(["mrr"], contiguous=True)
    accumulator.update([1, 0], [0.9, 0.8], query_id=["a", "a"], complete=True)
    with pytest.raises(ValueError, match="query id 'a' was completed"):
        accumulator.update([1], [0.3], query_id=["a"])
    with pytest.raises(ValueError, match="query id 'a' was completed"):
        accumulator.update([1], [0.3], query_id=["a"], complete=True)


def test_contiguous_completed_ids_survive_pickling_and_reset_forgets_them():
    accumulator = RankingAccumulator(["mrr"], contiguous=True)
    accumulator.update([1, 0, 1], [0.9, 0.8, 0.7], query_id=[1, 2, 3])
    accumulator = pickle.loads(pickle.dumps(accumulator))
    with pytest.raises(ValueError, match=r"query id 2\.0 was completed"):
        accumulator.update([1], [0.5], query_id=[2.0])  # 2.0 is query 2, as in evaluate
    accumulator.reset()
    accumulator.update([1], [0.5], query_id=[2])
    # only contiguous=True remembers ids: complete=True alone starts a new query
    plain = RankingAccumulator(["mrr"])
    plain.update([0, 1], [0.9, 0.8], query_id=[1, 1], complete=True)
    plain.update([1], [0.5], query_id=[1], complete=True)
    assert not plain._closed_ids and plain.result() == {"mrr": 0.75}


def test_contiguous_merge_refuses_a_query_completed_on_one_side():
    def piece(ids):
        accumulator = RankingAccumulator(["mrr"], contiguous=True)
        accumulator.update([1] * len(ids), np.linspace(1, 0, len(ids)), query_id=ids)
        return accumulator

    # 2 completed in the first piece, open (first run) in the other
    with pytest.raises(ValueError, match="query id 2 was completed in one accumulator"):
        piece([1, 2, 3]).merge(piece([2, 5]))
    with pytest.raises(ValueError, match="query id 2 was completed in one accumulator"):
        piece([2, 5]).merge(piece([1, 2, 3]))
    with pytest.raises(ValueError, match="query id 2 was completed in both"):
        piece([1, 2, 3]).merge(piece([4, 2, 6]))
    # a query cut between two pieces (open on both sides) is joined
    left, right = piece([1, 2, 3]), piece([3, 4, 5])
    merged = left.merge(right)
    assert merged.result() == {"mrr": 1.0} and merged.n_rows_ == 6
    # after a merge in stream order, updates go on: 5 continues, 3 is closed
    merged.update([0, 1], [0.9, 0.8], query_id=[5, 6])
    with pytest.raises(ValueError, match="query id 3 was completed"):
        merged.update([1], [0.5], query_id=[3])
    # queries 1-4 and 6: RR 1; 5: its relevant row (score 0) below the new 0.9: 1/2
    assert merged.result() == pytest.approx({"mrr": 5.5 / 6})


# B8: an empty batch is a no-op; an unreadable tensor names the argument and the cast.
@pytest.mark.parametrize("kwargs", [{}, {"contiguous": True}])
@pytest.mark.parametrize("complete", [False, True])
def test_an_empty_batch_is_a_no_op(kwargs, complete):
    accumulator = RankingAccumulator(["mrr", "ndcg@2"], keep_per_query=True, **kwargs)
    accumulator.update([1, 0], [0.9, 0.8], query_id=[1, 1])
    before = accumulator.result()
    for empty in ([], np.array([]), np.empty(0, dtype=np.int64)):
        accumulator.update(empty, empty, query_id=empty, complete=complete)
        accumulator.update(empty, empty, query_id=empty, sample_weight=empty,
                           complete=complete)
    assert accumulator.n_rows_ == 2 and accumulator.result() == before
    # nothing given yet is still an error at result()
    fresh = RankingAccumulator(["mrr"])
    fresh.update([], [], query_id=[])
    with pytest.raises(ValueError, match="no rows"):
        fresh.result()
    # an empty argument beside a non-empty one is not an empty batch
    with pytest.raises(ValueError, match="`y_true` is empty"):
        accumulator.update([], [0.5], query_id=[1])
    with pytest.raises(ValueError, match="`query_id` has 1 id.*empty"):
        accumulator.update([], [], query_id=[1])
    with pytest.raises(ValueError, match="`sample_weight` has 1 weight.*empty"):
        accumulator.update([], [], query_id=[], sample_weight=[1.0])


def test_an_empty_tensor_batch_is_a_no_op_and_bfloat16_names_the_cast():
    torch = needs("torch")
    accumulator = RankingAccumulator(["mrr"])
    empty = torch.empty(0)
    accumulator.update(empty, empty, query_id=torch.empty(0, dtype=torch.int64))
    assert accumulator.n_rows_ == 0
    y = torch.tensor([1.0, 0.0])
    score = torch.tensor([0.5, 0.25], dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"`y_score`.*torch\.bfloat16.*"
                                         r"y_score\.float\(\)"):
        accumulator.update(y, score, query_id=[1, 1])
    with pytest.raises(ValueError, match=r"`y_true`.*bfloat16.*y_true\.float\(\)"):
        accumulator.update(y.to(torch.bfloat16), score.float(), query_id=[1, 1])
    # the cast the message names works (0.5 and 0.25 are exact in bfloat16)
    accumulator.update(y, score.float(), query_id=[1, 1])
    assert accumulator.result() == {"mrr": 1.0}
    # evaluate names it too
    with pytest.raises(ValueError, match=r"`y_score`.*y_score\.float\(\)"):
        evaluate(y, score, query_id=[1, 1])


# -- the top-k-only metrics, as the registry marks them ----------------------


def test_top_k_stems_come_from_the_registry():
    assert TOP_K_STEMS == {s for s, spec in METRICS.items() if spec.top_k_only}
    assert all(METRICS[stem].takes_k for stem in TOP_K_STEMS)


@pytest.mark.parametrize("stem", sorted(TOP_K_STEMS))
def test_a_top_k_only_metric_reads_no_order_below_the_cutoff(stem):
    # the registry's promise the compaction rests on: shuffling the scores of
    # the rows below the top 5 (they stay below) leaves metric@5 unchanged
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 40)
    s = rng.permutation(40).astype(float)  # one query: the top 5 score 35..39
    below = s < 35
    shuffled = s.copy()
    shuffled[below] = rng.permutation(s[below])
    assert not np.array_equal(s, shuffled)
    q = np.ones(40)
    before = evaluate(y, s, query_id=q, metrics=[f"{stem}@5"])
    after = evaluate(y, shuffled, query_id=q, metrics=[f"{stem}@5"])
    assert before == pytest.approx(after, rel=1e-12)
