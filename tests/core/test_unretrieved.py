"""y_score=-inf: judged but not retrieved, for every metric family (vs trec_eval)."""

import numpy as np
import pytest

import skrank

from .._needs import needs

pytrec_eval = needs("pytrec_eval")


def _case(seed):
    rng = np.random.default_rng(seed)
    qrels, run, rows = {}, {}, []
    for q in range(5):
        n = int(rng.integers(4, 25))
        grades = rng.integers(0, 3, size=n)
        scores = rng.permutation(n).astype(float)  # distinct: no tie convention
        retrieved = rng.random(n) < 0.7
        retrieved[0] = True
        qrels[str(q)] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[str(q)] = {f"d{i}": s for i, (s, r) in enumerate(zip(scores, retrieved)) if r}
        for g, s, r in zip(grades, scores, retrieved):
            rows.append((q, g, s if r else -np.inf))
    qid, y, s = map(np.array, zip(*rows))
    return qrels, run, qid, y.astype(float), s


CASES = [
    ("map", skrank.average_precision_score, {}),
    ("Rprec", skrank.r_precision_score, {}),
    ("recip_rank", skrank.reciprocal_rank_score, {}),
    ("P_10", skrank.precision_at_k_score, {"k": 10}),
    ("recall_5", skrank.recall_at_k_score, {"k": 5}),
    ("map_cut_5", skrank.average_precision_score, {"k": 5}),
    ("success_5", skrank.hit_rate_score, {"k": 5}),
    ("ndcg", skrank.ndcg_score, {"gain": "linear"}),
    ("ndcg_cut_5", skrank.ndcg_score, {"gain": "linear", "k": 5}),
    ("bpref", skrank.bpref_score, {}),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name, metric, options", CASES, ids=[c[0] for c in CASES])
def test_minus_inf_rows_match_trec_eval(seed, name, metric, options):
    qrels, run, qid, y, s = _case(seed)
    measure = name.rsplit("_", 1)[0] if name[-1].isdigit() else name
    reference = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    values = metric(y if "ndcg" in name else (y > 0).astype(float), s, query_id=qid,
                    no_relevant="zero", aggregate=None, **options).value
    expected = [reference[str(q)][name] for q in range(5)]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


def test_minus_inf_rows_never_tie_into_a_cutoff():
    # one retrieved non-relevant row, three relevant rows not retrieved
    y = [0, 1, 1, 1]
    s = [0.5, -np.inf, -np.inf, -np.inf]
    assert skrank.precision_at_k_score(y, s, k=4) == 0.0
    assert skrank.recall_at_k_score(y, s, k=4) == 0.0
    assert skrank.ndcg_score(y, s) == 0.0
    assert skrank.average_precision_score(y, s) == 0.0
    # R counts them: one of four relevant rows found at rank 1
    assert skrank.recall_at_k_score([1, 1, 1, 1], s, k=1) == 0.25
    assert skrank.r_precision_score([1, 1, 1, 1], s) == 0.25


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_plus_inf_and_nan_stay_errors(bad):
    with pytest.raises(ValueError, match="NaN or \\+infinity"):
        skrank.ndcg_score([1, 0], [bad, 0.0])


def test_auc_and_rank_correlation_see_minus_inf_as_the_lowest_tie():
    y, s = [1, 0, 1, 0], [2.0, 1.0, -np.inf, -np.inf]
    # pairs: (r1 > n1), (r1 > n2), (r2 vs n1: below), (r2 vs n2: tie 1/2)
    assert skrank.gauc_score(y, s, query_id=[1] * 4) == pytest.approx(2.5 / 4)
    with pytest.raises(ValueError, match="Pearson"):
        skrank.rank_correlation_score(y, s, method="pearson")
