"""Cross-checks of skrank's metrics against established, independent tools.

Every test here is marked ``peers`` and skips cleanly when its peer is not
installed (each peer is imported per test, so a missing ranx does not skip the
trec_eval or scikit-learn checks).

Peer conventions, found by running the peers (pytrec-eval-terrier 0.5.11,
ranx 0.3.21, scikit-learn 1.9.1) and reading their sources; the tests below
encode each of them:

trec_eval (via ``pytrec_eval``)
    * Relevant means ``rel >= 1`` (``relevance_level=1``, the default); the
      graded labels here are integers 0..3, so this is skrank's ``y_true > 0``.
    * A query that is in the qrels but has no relevant document is reported
      with 0 for every measure and counts in trec_eval's mean: skrank's
      ``no_relevant="zero"``.  A query absent from the qrels is dropped.
    * ``ndcg`` / ``ndcg_cut_k`` use the *linear* gain ``rel`` and the discount
      ``log2(rank + 1)``, the ideal DCG coming from the qrels sorted by
      relevance: skrank's ``gain="linear"`` (on binary labels both gains agree).
    * ``P_k`` divides by ``k`` even when fewer than ``k`` documents are
      retrieved; ``map_cut_k`` divides by R (skrank ``normalize="relevant"``);
      ``Rprec`` is P@R; ``success_k`` is skrank's hit rate; ``recip_rank``
      has no cutoff.
    * Ties in score are broken by docid in *descending* (strcmp) order, never
      averaged.  So trec_eval equals skrank ``ties="input"`` when docids
      decrease in input order; the random checks use tie-free scores.

ranx
    * ``qrels`` rows with ``rel < rel_lvl`` (default 1) are dropped; a query
      with no relevant document scores 0.0 on every metric and counts in the
      mean: skrank's ``no_relevant="zero"``.
    * ``ndcg`` / ``dcg`` use the Jarvelin gain ``rel`` (skrank
      ``gain="linear"``); ``ndcg_burges`` / ``dcg_burges`` use ``2**rel - 1``
      (skrank ``gain="exponential"``); discount ``log2(rank + 1)``; ideal DCG
      from the qrels sorted by relevance.  (``dcg*`` is not compared here:
      each ranx kernel costs ~2 s of numba JIT on a cold cache, and sklearn
      checks DCG with both gains.)
    * ``precision@k`` and the precision inside ``f1@k`` divide by ``k`` even
      for a query shorter than ``k``; every other cutoff is clipped to the
      list length.  ``k`` omitted means the whole list (ranx writes ``k=0``).
    * ``map@k`` divides by R; ``mrr@k`` is RR within the top k.
    * Ties: ranx sorts a run with ``np.argsort(score)[::-1]``, an
      unspecified order; compare on tie-free scores only.
    * ``ranx.evaluate`` with one metric and ``return_mean=False`` fails
      (KeyError in 0.3.21); always ask for several metrics at once.

scikit-learn
    * ``ndcg_score`` / ``dcg_score`` average ties exactly (McSherry & Najork)
      with linear gain: equal to skrank ``gain="linear"`` on 2-D input.  A
      row with no relevant item scores 0 and counts: skrank
      ``no_relevant="zero"``.
    * ``roc_auc_score`` counts a tied positive/negative pair 1/2, also with
      ``sample_weight``.
    * ``average_precision_score`` is skrank's AP (k=None) on tie-free scores.
    * The gain is the label itself, so ``dcg_score(2**rel - 1, ...)`` is
      skrank's ``gain="exponential"``.
"""

import functools
import warnings

import numpy as np
import pytest

import skrank

from .._needs import needs

pytestmark = pytest.mark.peers

SEEDS = [0, 1, 2]

# Lengths below, between and above the cutoffs 1, 5 and 10.
QUERY_LENGTHS = [1, 2, 3, 4, 6, 8, 11, 14, 23]


# ---------------------------------------------------------------- data ----


def _random_queries(seed, *, graded, ties=False):
    """Rows of several queries, shuffled; ids unsorted and non-contiguous.

    Two queries have no relevant row.  Scores are continuous (tie-free)
    unless ``ties`` is set, in which case they come from three values.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.permutation(QUERY_LENGTHS)
    ids = rng.choice(np.arange(3, 1000, 7), size=len(lengths), replace=False)
    query_id = np.repeat(ids, lengths)
    n_rows = query_id.size
    if graded:
        y_true = rng.choice(4, size=n_rows, p=[0.5, 0.2, 0.2, 0.1])
    else:
        y_true = (rng.random(n_rows) < 0.35).astype(int)
    for q in ids[:2]:
        y_true[query_id == q] = 0
    # make sure the other long queries do have relevant rows
    for q, n in zip(ids[2:], lengths[2:]):
        if n >= 3:
            y_true[np.flatnonzero(query_id == q)[rng.integers(n)]] = 1 + graded
    if ties:
        y_score = rng.integers(0, 3, size=n_rows).astype(float)
    else:
        y_score = rng.normal(size=n_rows)
        assert np.unique(y_score).size == n_rows
    order = rng.permutation(n_rows)
    return y_true[order], y_score[order], query_id[order]


def _has_relevant(y_true, query_id, queries):
    return np.array([np.any(y_true[query_id == q] > 0) for q in queries])


def _query_weights(sample_weight, query_id, queries):
    """skrank's query weight: the mean of the query's row weights."""
    return np.array([sample_weight[query_id == q].mean() for q in queries])


def _approx(expected):
    return pytest.approx(np.asarray(expected, dtype=float), rel=1e-6, nan_ok=True)


def _check_per_query(result, queries, expected):
    """``aggregate=None`` output: ascending query ids, values as expected."""
    np.testing.assert_array_equal(np.asarray(result.query_id), queries)
    assert np.asarray(result.value, dtype=float) == _approx(expected)


# ----------------------------------------------------------- trec_eval ----

# trec_eval measure -> (skrank function, keyword arguments)
TREC_MEASURES = {
    "map": ("average_precision_score", {}),
    "map_cut_5": ("average_precision_score", {"k": 5}),
    "map_cut_10": ("average_precision_score", {"k": 10}),
    "ndcg": ("ndcg_score", {"gain": "linear"}),
    "ndcg_cut_5": ("ndcg_score", {"gain": "linear", "k": 5}),
    "ndcg_cut_10": ("ndcg_score", {"gain": "linear", "k": 10}),
    "P_5": ("precision_at_k_score", {"k": 5}),
    "P_10": ("precision_at_k_score", {"k": 10}),
    "recall_5": ("recall_at_k_score", {"k": 5}),
    "recall_10": ("recall_at_k_score", {"k": 10}),
    "recip_rank": ("reciprocal_rank_score", {}),
    "Rprec": ("r_precision_score", {}),
    "success_1": ("hit_rate_score", {"k": 1}),
    "success_5": ("hit_rate_score", {"k": 5}),
    "success_10": ("hit_rate_score", {"k": 10}),
}


def _trec_eval(y_true, y_score, query_id, docids):
    """trec_eval's per-query values {measure: array in ascending query order}."""
    pytrec_eval = needs("pytrec_eval")
    qrels, run = {}, {}
    for rel, score, q, d in zip(y_true, y_score, query_id, docids):
        qrels.setdefault(str(q), {})[d] = int(rel)
        run.setdefault(str(q), {})[d] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES))
    per_query = evaluator.evaluate(run)
    queries = np.unique(query_id)
    assert set(per_query) == {str(q) for q in queries}
    return {
        m: np.array([per_query[str(q)][m] for q in queries]) for m in TREC_MEASURES
    }


@functools.lru_cache(maxsize=None)
def _trec_case(seed, graded):
    y_true, y_score, query_id = _random_queries(seed, graded=graded)
    docids = [f"d{i}" for i in range(y_true.size)]
    return (y_true, y_score, query_id), _trec_eval(y_true, y_score, query_id, docids)


@pytest.mark.parametrize("measure", list(TREC_MEASURES))
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval(seed, graded, measure):
    (y_true, y_score, query_id), trec = _trec_case(seed, graded)
    name, kwargs = TREC_MEASURES[measure]
    metric = getattr(skrank, name)
    queries = np.unique(query_id)
    has_rel = _has_relevant(y_true, query_id, queries)
    assert has_rel.sum() >= 3 and (~has_rel).sum() >= 2
    expected = trec[measure]
    assert np.all(expected[~has_rel] == 0)  # trec_eval's rule for such queries

    # trec_eval scores a query without relevant rows 0 and counts it.
    per_query = metric(
        y_true, y_score, query_id=query_id, no_relevant="zero", aggregate=None,
        **kwargs,
    )
    _check_per_query(per_query, queries, expected)
    mean = metric(y_true, y_score, query_id=query_id, no_relevant="zero", **kwargs)
    assert isinstance(mean, float)
    assert mean == pytest.approx(expected.mean(), rel=1e-6)

    # skrank's default leaves them out: same values, nan where skipped.
    per_query = metric(y_true, y_score, query_id=query_id, aggregate=None, **kwargs)
    _check_per_query(per_query, queries, np.where(has_rel, expected, np.nan))
    mean = metric(y_true, y_score, query_id=query_id, **kwargs)
    assert mean == pytest.approx(expected[has_rel].mean(), rel=1e-6)


@pytest.mark.parametrize("measure", ["map", "ndcg_cut_5", "P_10", "recip_rank"])
def test_trec_eval_weighted_mean(measure):
    """With sample_weight, the mean weighs trec_eval's per-query values by the
    mean row weight of each query."""
    (y_true, y_score, query_id), trec = _trec_case(3, True)
    rng = np.random.default_rng(33)
    sample_weight = rng.uniform(0.1, 3.0, size=y_true.size)
    name, kwargs = TREC_MEASURES[measure]
    metric = getattr(skrank, name)
    queries = np.unique(query_id)
    has_rel = _has_relevant(y_true, query_id, queries)
    weights = _query_weights(sample_weight, query_id, queries)

    got = metric(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, **kwargs
    )
    expected = np.average(trec[measure][has_rel], weights=weights[has_rel])
    assert got == pytest.approx(expected, rel=1e-6)
    got = metric(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        no_relevant="zero", **kwargs,
    )
    assert got == pytest.approx(np.average(trec[measure], weights=weights), rel=1e-6)


@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_ties_broken_by_docid_descending(seed, graded):
    """trec_eval breaks ties by docid, descending.  With docids that decrease
    in input order this is skrank's ``ties="input"`` (stable input order)."""
    y_true, y_score, query_id = _random_queries(seed, graded=graded, ties=True)
    n_rows = y_true.size
    docids = [f"d{n_rows - i:06d}" for i in range(n_rows)]  # decreasing
    trec = _trec_eval(y_true, y_score, query_id, docids)
    queries = np.unique(query_id)
    for measure, (name, kwargs) in TREC_MEASURES.items():
        per_query = getattr(skrank, name)(
            y_true, y_score, query_id=query_id, ties="input", no_relevant="zero",
            aggregate=None, **kwargs,
        )
        _check_per_query(per_query, queries, trec[measure])


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_ndcg_binary_any_gain(seed):
    """On binary labels 2**rel - 1 == rel, so skrank's default gain matches."""
    (y_true, y_score, query_id), trec = _trec_case(seed, False)
    for measure, k in [("ndcg", None), ("ndcg_cut_5", 5), ("ndcg_cut_10", 10)]:
        got = skrank.ndcg_score(y_true, y_score, query_id=query_id, k=k)
        queries = np.unique(query_id)
        has_rel = _has_relevant(y_true, query_id, queries)
        assert got == pytest.approx(trec[measure][has_rel].mean(), rel=1e-6)


# -------------------------------------------------------- scikit-learn ----


def _random_2d(seed, *, ties, all_relevant, n_rows=7, n_items=8):
    rng = np.random.default_rng(seed)
    y_true = rng.choice(4, size=(n_rows, n_items), p=[0.5, 0.2, 0.2, 0.1])
    if all_relevant:
        y_true[np.arange(n_rows), rng.integers(n_items, size=n_rows)] = 2
    else:
        y_true[[1, 4]] = 0
    if ties:
        y_score = rng.integers(0, 3, size=(n_rows, n_items)).astype(float)
    else:
        y_score = rng.random((n_rows, n_items))
    sample_weight = rng.uniform(0.1, 3.0, size=n_rows)
    return y_true, y_score, sample_weight


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no_ties"])
@pytest.mark.parametrize("k", [None, 1, 3, 5])
@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_ndcg_dcg_2d(seed, k, ties):
    from sklearn.metrics import dcg_score, ndcg_score

    y_true, y_score, sample_weight = _random_2d(seed, ties=ties, all_relevant=True)
    pairs = [(skrank.ndcg_score, ndcg_score), (skrank.dcg_score, dcg_score)]
    for ours, theirs in pairs:
        for sw in [None, sample_weight]:
            got = ours(y_true, y_score, k=k, gain="linear", sample_weight=sw)
            assert isinstance(got, float)
            assert got == pytest.approx(
                theirs(y_true, y_score, k=k, sample_weight=sw), rel=1e-6
            )
            # sklearn's gain is the label itself: give it 2**rel - 1 labels
            got = ours(y_true, y_score, k=k, gain="exponential", sample_weight=sw)
            assert got == pytest.approx(
                theirs(2.0**y_true - 1, y_score, k=k, sample_weight=sw), rel=1e-6
            )
        # one value per row, row index as query id
        per_row = ours(y_true, y_score, k=k, gain="linear", aggregate=None)
        expected = [theirs(y_true[[i]], y_score[[i]], k=k) for i in range(len(y_true))]
        _check_per_query(per_row, np.arange(len(y_true)), expected)


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no_ties"])
@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_ndcg_dcg_2d_rows_without_relevant(seed, k, ties):
    """sklearn scores a row without relevant items 0 and counts it:
    skrank's ``no_relevant="zero"``; the default leaves such rows out."""
    from sklearn.metrics import dcg_score, ndcg_score

    y_true, y_score, sample_weight = _random_2d(seed, ties=ties, all_relevant=False)
    keep = y_true.sum(axis=1) > 0
    assert 0 < keep.sum() < len(keep)
    pairs = [(skrank.ndcg_score, ndcg_score), (skrank.dcg_score, dcg_score)]
    for ours, theirs in pairs:
        for sw in [None, sample_weight]:
            got = ours(y_true, y_score, k=k, gain="linear", sample_weight=sw,
                       no_relevant="zero")
            assert got == pytest.approx(
                theirs(y_true, y_score, k=k, sample_weight=sw), rel=1e-6
            )
            got = ours(y_true, y_score, k=k, gain="linear", sample_weight=sw)
            expected = theirs(
                y_true[keep], y_score[keep], k=k,
                sample_weight=None if sw is None else sw[keep],
            )
            assert got == pytest.approx(expected, rel=1e-6)


def _random_gauc_data(seed):
    """Binary labels, tie-heavy scores, some single-class queries."""
    rng = np.random.default_rng(seed)
    lengths = rng.permutation([1, 2, 3, 5, 6, 9, 12, 20])
    ids = rng.choice(np.arange(5, 500, 11), size=len(lengths), replace=False)
    query_id = np.repeat(ids, lengths)
    n_rows = query_id.size
    y_true = (rng.random(n_rows) < 0.4).astype(int)
    y_true[query_id == ids[lengths == 6][0]] = 0  # single class
    y_true[query_id == ids[lengths == 5][0]] = 1  # single class
    for q, n in zip(ids, lengths):  # two classes in the longer queries
        if n >= 9:
            rows = np.flatnonzero(query_id == q)
            y_true[rows[:2]] = [0, 1]
    y_score = rng.integers(0, 4, size=n_rows) / 4
    sample_weight = rng.uniform(0.1, 3.0, size=n_rows)
    order = rng.permutation(n_rows)
    return y_true[order], y_score[order], query_id[order], sample_weight[order]


def _gauc_loop(y_true, y_score, query_id, sample_weight, weighting):
    """Per-query sklearn.metrics.roc_auc_score, weighted mean by hand."""
    from sklearn.metrics import roc_auc_score

    queries = np.unique(query_id)
    values, weights = [], []
    for q in queries:
        rows = query_id == q
        if np.unique(y_true[rows]).size < 2:
            values.append(np.nan)
            weights.append(0.0)
            continue
        sw = None if sample_weight is None else sample_weight[rows]
        values.append(roc_auc_score(y_true[rows], y_score[rows], sample_weight=sw))
        if weighting == "uniform":
            weights.append(1.0)
        elif sample_weight is None:
            weights.append(rows.sum())
        else:
            weights.append(sw.sum())
    values, weights = np.array(values), np.array(weights)
    ok = ~np.isnan(values)
    return queries, values, np.average(values[ok], weights=weights[ok])


@pytest.mark.parametrize("weighting", ["samples", "uniform"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_gauc(seed, weighted, weighting):
    y_true, y_score, query_id, sample_weight = _random_gauc_data(seed)
    sw = sample_weight if weighted else None
    queries, values, expected = _gauc_loop(y_true, y_score, query_id, sw, weighting)
    assert np.isnan(values).sum() >= 3  # single-class queries are left out
    got = skrank.gauc_score(
        y_true, y_score, query_id=query_id, sample_weight=sw, weighting=weighting
    )
    assert isinstance(got, float)
    assert got == pytest.approx(expected, rel=1e-6)
    per_query = skrank.gauc_score(
        y_true, y_score, query_id=query_id, sample_weight=sw, weighting=weighting,
        aggregate=None,
    )
    _check_per_query(per_query, queries, values)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_gauc_2d(seed):
    """2-D input: one query per row, each row's AUC weighted by its length."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    y_true = (rng.random((6, 7)) < 0.4).astype(int)
    y_true[:, :2] = [0, 1]
    y_true[3] = 0  # single class: left out
    y_score = rng.integers(0, 4, size=y_true.shape) / 4
    values = [roc_auc_score(t, s) for t, s in zip(y_true, y_score) if 0 < t.sum() < 7]
    assert len(values) == 5
    assert skrank.gauc_score(y_true, y_score) == pytest.approx(np.mean(values))


@pytest.mark.parametrize("seed", SEEDS + [3, 4])
def test_sklearn_average_precision_single_query(seed):
    """Without ties sklearn's step-wise AP is sum of P@i over relevant / R."""
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(seed)
    n_rows = 8 + 7 * seed
    y_true = (rng.random(n_rows) < 0.3).astype(int)
    y_true[rng.integers(n_rows)] = 1
    y_score = rng.random(n_rows)
    assert skrank.average_precision_score(y_true, y_score) == pytest.approx(
        average_precision_score(y_true, y_score), rel=1e-6
    )


# ---------------------------------------------------------------- ranx ----

# ranx metric -> (skrank function, keyword arguments).  "k" absent in ranx
# means the whole list, as skrank's k=None.
RANX_METRICS = {
    "map": ("average_precision_score", {}),
    "map@5": ("average_precision_score", {"k": 5}),
    "map@10": ("average_precision_score", {"k": 10}),
    "ndcg": ("ndcg_score", {"gain": "linear"}),
    "ndcg@5": ("ndcg_score", {"gain": "linear", "k": 5}),
    "ndcg@10": ("ndcg_score", {"gain": "linear", "k": 10}),
    "ndcg_burges": ("ndcg_score", {"gain": "exponential"}),
    "ndcg_burges@5": ("ndcg_score", {"gain": "exponential", "k": 5}),
    "ndcg_burges@10": ("ndcg_score", {"gain": "exponential", "k": 10}),
    "mrr": ("reciprocal_rank_score", {}),
    "mrr@5": ("reciprocal_rank_score", {"k": 5}),
    "precision": ("precision_at_k_score", {}),
    "precision@5": ("precision_at_k_score", {"k": 5}),
    "precision@10": ("precision_at_k_score", {"k": 10}),
    "recall@5": ("recall_at_k_score", {"k": 5}),
    "recall@10": ("recall_at_k_score", {"k": 10}),
    "f1": ("fbeta_at_k_score", {}),
    "f1@5": ("fbeta_at_k_score", {"k": 5}),
    "f1@10": ("fbeta_at_k_score", {"k": 10}),
    "hit_rate@1": ("hit_rate_score", {"k": 1}),
    "hit_rate@5": ("hit_rate_score", {"k": 5}),
    "r-precision": ("r_precision_score", {}),
}


@functools.lru_cache(maxsize=None)
def _ranx_case(seed, graded):
    """All ranx metrics at once (one numba JIT per kernel), per query."""
    ranx = needs("ranx")
    y_true, y_score, query_id = _random_queries(seed, graded=graded)
    queries = np.unique(query_id)
    # plain dicts, built in ascending query order: ranx's per-query arrays
    # follow the dicts' order.
    qrels = {str(q): {} for q in queries}
    run = {str(q): {} for q in queries}
    for i, (rel, score, q) in enumerate(zip(y_true, y_score, query_id)):
        qrels[str(q)][f"d{i}"] = int(rel)
        run[str(q)][f"d{i}"] = float(score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba type-safety warnings
        scores = ranx.evaluate(qrels, run, list(RANX_METRICS), return_mean=False)
    return (y_true, y_score, query_id), {m: np.asarray(v) for m, v in scores.items()}


@pytest.mark.parametrize("metric", list(RANX_METRICS))
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
@pytest.mark.parametrize("seed", SEEDS)
def test_ranx(seed, graded, metric):
    (y_true, y_score, query_id), scores = _ranx_case(seed, graded)
    name, kwargs = RANX_METRICS[metric]
    func = getattr(skrank, name)
    queries = np.unique(query_id)
    has_rel = _has_relevant(y_true, query_id, queries)
    expected = scores[metric]
    assert np.all(expected[~has_rel] == 0)  # ranx's rule for such queries

    # ranx scores a query without relevant rows 0 and counts it.
    per_query = func(
        y_true, y_score, query_id=query_id, no_relevant="zero", aggregate=None,
        **kwargs,
    )
    _check_per_query(per_query, queries, expected)
    got = func(y_true, y_score, query_id=query_id, no_relevant="zero", **kwargs)
    assert got == pytest.approx(expected.mean(), rel=1e-6)
    got = func(y_true, y_score, query_id=query_id, **kwargs)
    assert got == pytest.approx(expected[has_rel].mean(), rel=1e-6)
