"""Intent-aware measures (skrank.diversity) against ndeval, a brute-force
reference written from the definitions (every tie order enumerated) and
hand-worked values."""

import itertools
import math

import numpy as np
import pytest

import skrank
from skrank.diversity import (
    alpha_dcg_score,
    alpha_ndcg_score,
    err_ia_score,
    map_ia_score,
    nerr_ia_score,
    nnrbp_score,
    nrbp_score,
    precision_ia_score,
    subtopic_recall_score,
)
from tests._ndeval import as_arrays, needs_ndeval, random_collection, run_ndeval, write_files

FUNCTIONS = {
    "alpha_dcg": alpha_dcg_score, "alpha_ndcg": alpha_ndcg_score, "err_ia": err_ia_score,
    "nerr_ia": nerr_ia_score, "nrbp": nrbp_score, "nnrbp": nnrbp_score,
    "p_ia": precision_ia_score, "map_ia": map_ia_score, "s_recall": subtopic_recall_score,
}
# ndeval's printed names -> (function, takes a cutoff)
NDEVAL_NAMES = {
    "ERR-IA": ("err_ia", True), "nERR-IA": ("nerr_ia", True),
    "alpha-DCG": ("alpha_dcg", True), "alpha-nDCG": ("alpha_ndcg", True),
    "NRBP": ("nrbp", False), "nNRBP": ("nnrbp", False), "MAP-IA": ("map_ia", False),
    "P-IA": ("p_ia", True), "strec": ("s_recall", True),
}


# ---------------------------------------------------------- the reference --

def reference(ranked, judged, keys, *, weight, alpha, beta, k):
    """Every measure of one query, from the definitions, loops and all.

    ranked: the retrieved rows' 0/1 intent vectors in rank order; judged:
    every row of the query (retrieved or not) and ``keys`` their doc keys
    (equal ideal gains: larger key first); weight: one per intent.
    """
    q = 1.0 - alpha
    m = len(weight)
    present = [any(row[j] for row in judged) for j in range(m)]
    v = [weight[j] if present[j] else 0.0 for j in range(m)]
    z = sum(v)
    if z == 0:
        return dict.fromkeys(FUNCTIONS, 0.0)
    n = len(ranked)
    depth = n if k is None else k

    def gains(rows):
        seen = [0] * m
        out = []
        for row in rows:
            out.append(sum(v[j] * q ** seen[j] for j in range(m) if row[j]))
            seen = [s + r for s, r in zip(seen, row)]
        return out

    def disc(r):
        return 1.0 / math.log2(r + 1)

    run = gains(ranked)
    # the greedy ideal over every judged row
    left = list(range(len(judged)))
    factor = list(v)
    ideal = []
    while left:
        best = max(left, key=lambda i: (sum(factor[j] for j in range(m) if judged[i][j]),
                                        keys[i]))
        ideal.append(sum(factor[j] for j in range(m) if judged[best][j]))
        factor = [f * q if judged[best][j] else f for j, f in enumerate(factor)]
        left.remove(best)
    ideal += [0.0] * max(0, depth - len(ideal))

    def positional(g, weight_of):
        # k=None: the run's whole list, and every rank of the ideal
        last = len(g) if k is None else min(k, len(g))
        return sum(weight_of(r) * g[r - 1] for r in range(1, last + 1))

    ideal_ideal = {
        "dcg": z * sum(q ** (r - 1) * disc(r) for r in range(1, depth + 1)),
        "err": z * sum(q ** (r - 1) / r for r in range(1, depth + 1)),
    }
    out = {}
    for stem, weight_of in (("dcg", disc), ("err", lambda r: 1.0 / r)):
        value = positional(run, weight_of)
        best = positional(ideal, weight_of)
        name = "alpha_dcg" if stem == "dcg" else "err_ia"
        out[name] = value / ideal_ideal[stem]
        out["alpha_ndcg" if stem == "dcg" else "nerr_ia"] = value / best if best else 0.0
    rbp = positional(run, lambda r: beta ** (r - 1))
    out["nrbp"] = (1 - q * beta) * rbp / z
    ideal_rbp = positional(ideal, lambda r: beta ** (r - 1))
    out["nnrbp"] = rbp / ideal_rbp if ideal_rbp else 0.0
    top = ranked[:depth]
    hits = [sum(row[j] for row in top) for j in range(m)]
    out["p_ia"] = sum(v[j] * hits[j] for j in range(m)) / ((n if k is None else k) * z)
    out["s_recall"] = sum(v[j] for j in range(m) if hits[j]) / z
    ap = 0.0
    for j in range(m):
        if not v[j]:
            continue
        total = sum(row[j] for row in judged)
        found, s = 0, 0.0
        for r, row in enumerate(top, 1):
            if row[j]:
                found += 1
                s += found / r
        ap += v[j] * s / total
    out["map_ia"] = ap / z
    return out


def expected_over_tie_orders(relevant, score, keys, *, retrieved, **options):
    """The reference averaged over every order of the tied retrieved rows."""
    rows = [i for i in range(len(score)) if retrieved[i]]
    rows.sort(key=lambda i: -score[i])
    blocks = [list(g) for _, g in itertools.groupby(rows, key=lambda i: score[i])]
    judged = [list(r) for r in relevant]
    totals, count = dict.fromkeys(FUNCTIONS, 0.0), 0
    for orders in itertools.product(*(itertools.permutations(b) for b in blocks)):
        ranked = [list(relevant[i]) for block in orders for i in block]
        for name, value in reference(ranked, judged, keys, **options).items():
            totals[name] += value
        count += 1
    return {name: value / count for name, value in totals.items()}


def _random_queries(seed, *, n_queries=3, max_rows=6, n_intents=3, tie_levels=2):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_queries)
    query = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    n = query.shape[0]
    grades = rng.integers(0, 3, size=(n, n_intents)) * (rng.random((n, n_intents)) < 0.45)
    score = rng.integers(0, tie_levels, size=n).astype(float) + 1.0
    retrieved = rng.random(n) < 0.85
    doc = rng.permutation(n) + 100
    return grades, score, query, retrieved, doc


CASES = [(seed, alpha, beta, k) for seed, (alpha, beta, k) in
         enumerate([(0.5, 0.5, 3), (0.3, 0.8, None), (0.9, 0.2, 2), (1.0, 0.5, 1),
                    (0.0, 0.7, 5), (0.5, 1.0, None), (0.6, 0.4, 4), (0.2, 0.5, 3)])]


@pytest.mark.parametrize("seed, alpha, beta, k", CASES)
@pytest.mark.parametrize("weighted, padded", [(False, True), (True, True), (True, False)])
def test_ties_are_the_mean_over_every_order_of_the_tied_rows(seed, alpha, beta, k,
                                                             weighted, padded, monkeypatch):
    from skrank.metrics import _intent_ideal

    if not padded:  # the greedy steps on the groups' segments, not the table
        monkeypatch.setattr(_intent_ideal, "PADDING", -10**9)
    grades, score, query, retrieved, doc = _random_queries(seed)
    weight = np.array([0.5, 0.2, 0.3]) if weighted else None
    relevant = grades >= 1
    y_score = np.where(retrieved, score, -1.0)
    for name, func in FUNCTIONS.items():
        # the cutoff of nrbp, nnrbp, map_ia is None by default: give it explicitly
        got = func(grades, y_score, query_id=query, k=k, alpha=alpha, beta=beta,
                   intent_weight=weight, doc_id=doc, retrieved="positive",
                   aggregate=None)
        for qid, value in zip(got.query_id, got.value):
            rows = np.flatnonzero(query == qid)
            expected = expected_over_tie_orders(
                relevant[rows].astype(int), score[rows], doc[rows],
                retrieved=retrieved[rows], weight=[1.0] * 3 if weight is None else weight,
                alpha=alpha, beta=beta, k=k,
            )[name]
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, qid)


@pytest.mark.parametrize("n_intents", [9, 17, 70])
def test_many_intents_equal_the_reference(n_intents):
    # rows' intents are packed into bytes (several past 8 intents) and into
    # one pattern code per row up to 62 intents; past that, distinct rows
    rng = np.random.default_rng(n_intents)
    grades, score, query, retrieved, doc = _random_queries(n_intents, max_rows=5,
                                                           n_intents=n_intents)
    grades = grades * (rng.random(grades.shape) < 0.3)  # several intents a row, often
    grades[:, -1] = np.where(np.arange(grades.shape[0]) % 3 == 0, 2, 0)  # the last byte
    relevant = grades >= 1
    y_score = np.where(retrieved, score, -1.0)
    for name, func in FUNCTIONS.items():
        got = func(grades, y_score, query_id=query, k=3, alpha=0.4, beta=0.6, doc_id=doc,
                   retrieved="positive", aggregate=None)
        for qid, value in zip(got.query_id, got.value):
            rows = np.flatnonzero(query == qid)
            expected = expected_over_tie_orders(
                relevant[rows].astype(int), score[rows], doc[rows],
                retrieved=retrieved[rows], weight=[1.0] * n_intents,
                alpha=0.4, beta=0.6, k=3,
            )[name]
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, qid)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, bool, np.float32])
def test_grades_of_any_numeric_dtype_give_the_same_values(dtype):
    grades, score, query, _, doc = _random_queries(5, n_intents=4)
    if dtype is bool:
        grades = grades >= 1
    expected = skrank.evaluate(grades.astype(np.float64), score, query_id=query,
                               metrics=list(FUNCTIONS), doc_id=doc)
    got = skrank.evaluate(grades.astype(dtype), score, query_id=query,
                          metrics=list(FUNCTIONS), doc_id=doc)
    assert got == expected


def test_negative_integer_grades_are_refused():
    with pytest.raises(ValueError, match="`y_true` must be non-negative"):
        alpha_ndcg_score(np.array([[1, 0], [0, -2]], dtype=np.int8), [2, 1])


def test_the_order_of_the_input_rows_changes_no_bit():
    # the layout keeps each tie block's rows in input order (no canonical
    # order): every kernel must read the blocks' counts only (the ideal's
    # equal gains follow doc_id, given here: without it, the row order)
    rng = np.random.default_rng(3)
    n = 3000
    doc = rng.permutation(n)
    grades = (rng.random((n, 5)) < 0.2) * rng.integers(1, 3, size=(n, 5))
    score = rng.integers(0, 6, size=n).astype(float)
    query = rng.integers(0, 40, size=n)
    names = [f"{name}@7" if name not in ("nrbp", "nnrbp", "map_ia") else name
             for name in FUNCTIONS]
    expected = skrank.evaluate(grades, score, query_id=query, metrics=names,
                               alpha=0.3, beta=0.7, doc_id=doc, aggregate=None)
    for seed in range(3):
        shuffle = np.random.default_rng(seed).permutation(n)
        got = skrank.evaluate(grades[shuffle], score[shuffle], query_id=query[shuffle],
                              metrics=names, alpha=0.3, beta=0.7, doc_id=doc[shuffle],
                              aggregate=None)
        for name in names:
            assert got[name].value.tolist() == expected[name].value.tolist(), name


def test_input_ties_follow_the_input_order():
    grades, score, query, retrieved, doc = _random_queries(11, n_queries=1, max_rows=6)
    rows = np.argsort(-score, kind="stable")
    ranked = [list(r) for r in (grades[rows] >= 1).astype(int)]
    expected = reference(ranked, ranked, list(doc[rows]), weight=[1.0] * 3,
                         alpha=0.5, beta=0.5, k=4)
    for name, func in FUNCTIONS.items():
        assert func(grades, score, k=4, doc_id=doc, ties="input") == pytest.approx(
            expected[name], abs=1e-12), name


def test_constant_scores_give_the_expectation_over_all_orders():
    grades = np.array([[1, 0], [1, 0], [0, 1]])
    # S-recall@1: the first row covers one intent of two whatever it is
    assert subtopic_recall_score(grades, [1, 1, 1], k=1) == pytest.approx(0.5)
    # S-recall@2: both intents unless the two A rows come first: 1 - 1/3 of the time
    assert subtopic_recall_score(grades, [1, 1, 1], k=2) == pytest.approx(
        (1 / 3) * 0.5 + (2 / 3) * 1.0)
    # P-IA@1 = (2/3 * 1 + 1/3 * 1) / 2: every row is relevant to one intent
    assert precision_ia_score(grades, [1, 1, 1], k=1) == pytest.approx(0.5)


# ------------------------------------------------------------ hand-worked --

def test_hand_worked_values():
    y = [[1, 0], [1, 0], [0, 1]]  # in score order: A, A, B
    d2 = 1 / math.log2(3)
    assert alpha_dcg_score(y, [3, 2, 1], k=2) == pytest.approx(
        (1 + 0.5 * d2) / (2 * (1 + 0.5 * d2)))
    assert alpha_ndcg_score(y, [3, 2, 1], k=2) == pytest.approx((1 + 0.5 * d2) / (1 + d2))
    assert nerr_ia_score(y, [3, 2, 1], k=2) == pytest.approx((1 + 0.5 / 2) / (1 + 1 / 2))
    assert map_ia_score(y, [3, 2, 1]) == pytest.approx(((1 + 2 / 2) / 2 + 1 / 3) / 2)


def test_at_one_is_normalised_unlike_ndeval():
    # one row covering both intents: a perfect top 1 (ndeval prints 2.0)
    y = [[1, 1], [0, 0]]
    assert alpha_dcg_score(y, [2, 1], k=1) == pytest.approx(1.0)
    assert err_ia_score(y, [2, 1], k=1) == pytest.approx(1.0)


def test_nnrbp_is_zero_without_relevant_rows_unlike_ndeval():
    y = [[0, 0], [0, 0], [1, 0], [0, 1]]
    got = nnrbp_score(y, [2, 1, 2, 1], query_id=[1, 1, 2, 2], aggregate=None)
    assert got.value[0] == 0.0
    assert nnrbp_score(y, [2, 1, 2, 1], query_id=[1, 1, 2, 2]) == pytest.approx(0.5)
    assert math.isnan(nnrbp_score(y, [2, 1, 2, 1], query_id=[1, 1, 2, 2],
                                  no_relevant="skip", aggregate=None).value[0])


def test_a_ranking_can_beat_the_greedy_ideal():
    # greedy takes {1,2,3} first; {1,4}, {2,5}, {3,6} cover more by rank 3 at alpha = 1
    y = np.array([[1, 1, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0],
                  [0, 0, 1, 0, 0, 1]])
    value = alpha_ndcg_score(y, [1, 4, 3, 2], k=3, alpha=1.0)
    d = [1 / math.log2(r + 1) for r in (1, 2, 3)]
    assert value == pytest.approx((2 * d[0] + 2 * d[1] + 2 * d[2])
                                  / (3 * d[0] + 1 * d[1] + 1 * d[2]))
    assert value > 1


def test_ideal_ties_go_to_the_larger_doc_id():
    # X={A,B}, Y={C,D}, Z={A,C} all gain 2 at the ideal's first rank. X or Y
    # first: gains 2, 2, 1; Z first: 2, 1.5, 1.5 (worse at rank 2).
    y = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]])
    score = [3, 2, 1]  # the run: X, Y, Z: gains 2, 2, 1
    d2 = 1 / math.log2(3)
    # Z has the largest id: the greedy ideal takes it first, and the run beats it
    assert alpha_ndcg_score(y, score, k=2, doc_id=["a", "b", "c"]) == pytest.approx(
        (2 + 2 * d2) / (2 + 1.5 * d2))
    assert alpha_ndcg_score(y, score, k=2, doc_id=["b", "c", "a"]) == pytest.approx(1.0)
    # without doc_id the earlier row wins
    assert alpha_ndcg_score(y, score, k=2) == pytest.approx(1.0)


def test_intent_weight_is_renormalised_over_the_query_intents():
    y = [[1, 0, 0], [0, 1, 0]]
    # intent 2 is absent: weights 0.2, 0.6 -> 0.25, 0.75
    assert subtopic_recall_score(y, [2, 1], k=1, intent_weight=[0.2, 0.6, 0.2]) == (
        pytest.approx(0.25))


# ----------------------------------------------------------------- ndeval --

@pytest.mark.peers
@pytest.mark.parametrize("seed, alpha, beta", [(0, 0.5, 0.5), (1, 0.3, 0.8),
                                               (2, 0.9, 0.2)])
def test_every_measure_per_topic_equals_ndeval(tmp_path, seed, alpha, beta):
    binary = needs_ndeval()
    qrels, run = random_collection(seed)
    out = run_ndeval(binary, *write_files(tmp_path, qrels, run), alpha=alpha, beta=beta)
    y_true, y_score, query, doc = as_arrays(qrels, run)
    checked = 0
    for label, (stem, has_cutoff) in NDEVAL_NAMES.items():
        for k in (5, 10, 20) if has_cutoff else (None,):
            got = FUNCTIONS[stem](y_true, y_score, query_id=query, doc_id=doc, k=k,
                                  alpha=alpha, beta=beta, retrieved="positive",
                                  aggregate=None)
            mine = dict(zip((str(t) for t in got.query_id), got.value))
            column = label if k is None else f"{label}@{k}"
            for topic, row in out.items():
                if topic == "amean" or topic not in mine:
                    continue
                if stem == "nnrbp" and math.isnan(row[column]):
                    assert mine[topic] == 0.0  # the documented departure
                    continue
                assert mine[topic] == pytest.approx(row[column], abs=6e-7), (column, topic)
                checked += 1
            if stem != "nnrbp":  # ndeval's mean: over the judged topics of the run
                mean = FUNCTIONS[stem](y_true, y_score, query_id=query, doc_id=doc, k=k,
                                       alpha=alpha, beta=beta, retrieved="positive")
                assert mean == pytest.approx(out["amean"][column], abs=6e-7), column
    assert checked > 100
    # skrank.evaluate: every name from one sort, equal to ndeval per topic too
    names = [f"{stem}@{k}" for stem in ("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia",
                                         "p_ia", "s_recall") for k in (5, 10, 20)]
    names += ["nrbp", "map_ia"]
    labels = dict(zip(("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "p_ia", "s_recall",
                       "nrbp", "map_ia"),
                      ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "P-IA", "strec",
                       "NRBP", "MAP-IA")))
    results = skrank.evaluate(y_true, y_score, query_id=query, metrics=names, alpha=alpha,
                              beta=beta, doc_id=doc, retrieved="positive",
                              no_relevant="zero", aggregate=None)
    for name, got in results.items():
        stem, _, k = name.partition("@")
        column = labels[stem] + (f"@{k}" if k else "")
        for topic, value in zip(got.query_id, got.value):
            assert value == pytest.approx(out[str(topic)][column], abs=6e-7), (name, topic)


# -------------------------------------------------------------- bad input --

@pytest.mark.parametrize("func", list(FUNCTIONS.values()))
def test_one_dimensional_y_true_is_refused(func):
    with pytest.raises(ValueError, match="`y_true` must be 2-D"):
        func([1, 0, 1], [3, 2, 1])


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="`y_true` must be non-negative"):
        alpha_ndcg_score([[1, -1], [0, 1]], [2, 1])
    with pytest.raises(ValueError, match="`intent_weight`"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1], intent_weight=[1, 2, 3])
    with pytest.raises(ValueError, match="`intent_weight`"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1], intent_weight=[1, -2])
    with pytest.raises(ValueError, match="`alpha`"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1], alpha=1.5)
    with pytest.raises(ValueError, match="`beta`"):
        nrbp_score([[1, 0], [0, 1]], [2, 1], beta=-0.1)
    with pytest.raises(ValueError, match="`doc_id` must be unique"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1], doc_id=["a", "a"])
    with pytest.raises(ValueError, match="`y_score`"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1, 0])
    with pytest.raises(ValueError, match="`ties`"):
        alpha_ndcg_score([[1, 0], [0, 1]], [2, 1], ties="pessimistic")


@pytest.mark.peers
def test_ties_are_the_mean_of_the_orders_ndeval_and_pyndeval_pick():
    # topic 1: x relevant, y not, tied scores. Recorded with
    #   ndeval 4.5 -traditional (y first, docno descending):
    #     ERR-IA@5 0.363086, alpha-nDCG@5 0.630930
    #   pyndeval 0.0.8, pyndeval.ndeval(qrels, run) in a side venv (x first,
    #     whatever the run's order): ERR-IA@5 0.726172, alpha-nDCG@5 1.0
    grades, score = [[1], [0]], [1.0, 1.0]
    assert err_ia_score(grades, score, k=5) == pytest.approx(
        (0.363086 + 0.726172) / 2, abs=1e-6)
    assert alpha_ndcg_score(grades, score, k=5) == pytest.approx(
        (0.630930 + 1.0) / 2, abs=1e-6)


def test_a_long_tie_block_past_nrbp_rank_limit_has_the_closed_form():
    # 30 tied rows, 12 relevant to the one intent; beta = 0.1, so the
    # expectation stops after about 20 ranks (below rounding)
    B, b, beta = 30, 12, 0.1
    grades = np.zeros((B, 1))
    grades[:b] = 1
    score = np.ones(B)
    # alpha = 0: every relevant row gains 1, each position holds one w.p. b/B
    expected = (1 - beta) * sum(beta ** (r - 1) * b / B for r in range(1, B + 1))
    assert nrbp_score(grades, score, alpha=0.0, beta=beta) == pytest.approx(expected,
                                                                             rel=1e-12)
    # alpha = 1: only the first relevant row gains; it is at rank r with
    # probability C(B - r, b - 1) / C(B, b)
    first = sum(math.comb(B - r, b - 1) / math.comb(B, b) * beta ** (r - 1)
                for r in range(1, B + 1))
    assert nrbp_score(grades, score, alpha=1.0, beta=beta) == pytest.approx(first,
                                                                             rel=1e-12)
    # and alpha-DCG@25 at alpha = 1: the same law, discounted by log2(r + 1)
    dcg = sum(math.comb(B - r, b - 1) / math.comb(B, b) / math.log2(r + 1)
              for r in range(1, 26))
    assert alpha_dcg_score(grades, score, alpha=1.0, k=25) == pytest.approx(dcg, rel=1e-12)


# pyndeval 0.0.8 on random_collection(0) (no ties), per topic 1..6:
# alpha-nDCG@10, ERR-IA@20, nNRBP, MAP-IA; printed by `python
# tests/_peer_diversity.py` in a side venv with pyndeval 0.0.8 and
# ir-measures 0.4.3 (whose alpha_nDCG@10 gives the same first column).
# Topic 2 has no relevant document: pyndeval's nNRBP is nan there, skrank's 0.
PYNDEVAL_RANDOM_0 = {
    "alpha_ndcg": [0.704746, 0.0, 0.438771, 0.518818, 0.766534, 0.13447],
    "err_ia": [0.550747, 0.0, 0.287796, 0.460917, 0.529973, 0.101042],
    "nnrbp": [0.597295, 0.0, 0.322741, 0.5488, 0.70921, 0.003518],
    "map_ia": [0.293934, 0.0, 0.187374, 0.221977, 0.309799, 0.103139],
}


@pytest.mark.peers
@pytest.mark.parametrize("stem, k", [("alpha_ndcg", 10), ("err_ia", 20), ("nnrbp", None),
                                     ("map_ia", None)])
def test_pyndeval_numbers_recorded(stem, k):
    y_true, y_score, query, doc = as_arrays(*random_collection(0))
    got = FUNCTIONS[stem](y_true, y_score, query_id=query, doc_id=doc, k=k,
                          retrieved="positive", aggregate=None)
    assert got.query_id.tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(got.value, PYNDEVAL_RANDOM_0[stem], atol=6e-7)


def test_a_query_that_retrieved_nothing_scores_zero():
    grades, score = [[1, 0], [0, 1]], [-1, -1]  # judged, not retrieved
    for func in FUNCTIONS.values():
        assert func(grades, score, k=None, retrieved="positive") == 0.0


def test_evaluate_refuses_mixing_and_options_the_measures_lack():
    grades = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="not an intent-aware metric"):
        skrank.evaluate(grades, [2, 1], metrics=["alpha_ndcg@2", "ndcg@2"])
    with pytest.raises(ValueError, match="sample_weight"):
        skrank.evaluate(grades, [2, 1], metrics=["alpha_ndcg@2"], sample_weight=[1, 1])
    with pytest.raises(ValueError, match="'gain'"):
        skrank.evaluate(grades, [2, 1], metrics=["alpha_ndcg@2"], gain="linear")
    with pytest.raises(ValueError, match="`alpha`"):
        skrank.evaluate(grades, [2, 1], metrics=["alpha_ndcg@2"], alpha=2.0)
    # the default cutoffs of names without one are the functions' (nrbp: whole list)
    assert skrank.evaluate(grades, [2, 1], metrics=["alpha_ndcg"])["alpha_ndcg"] == 1.0


@pytest.mark.parametrize("largest", [3, 300, 70_000])
@pytest.mark.parametrize("n_intents", [1, 5, 8])
def test_block_counts_in_integer_fields_equal_a_sum_along_the_rows(largest, n_intents):
    # blocks wider than a field's 8 or 16 bits take wider fields (fewer a word)
    from skrank.metrics._intents import _block_counts, rank_intents

    rng = np.random.default_rng(largest + n_intents)
    sizes = np.concatenate([rng.integers(1, 4, size=50), [largest]])
    score = np.repeat(rng.permutation(sizes.shape[0]).astype(float), sizes)
    relevant = rng.random((score.shape[0], n_intents)) < 0.6
    layout = rank_intents(relevant, score, query_id=None, intent_weight=None,
                          doc_key=-np.arange(score.shape[0]), ties="average", alpha=0.5)
    ranked = layout.ranked
    assert ranked.block_size.max() == largest
    expected = np.add.reduceat(layout.relevant.astype(np.int64), ranked.block_start, axis=0)
    got = _block_counts(layout.relevant, layout.cache["packed"], ranked, np.int64)
    np.testing.assert_array_equal(got, expected)
