"""judge_agreement: Cohen's kappa on the pairs both sets judged, against scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from skrank.stats import JudgeAgreementResult, judge_agreement


def _random_qrels(seed, n_queries=6, grades=(0, 1, 2, 3)):
    rng = np.random.default_rng(seed)
    out = {}
    for q in range(n_queries):
        docs = rng.choice(20, size=rng.integers(1, 12), replace=False)
        out[f"q{q}"] = {f"d{d}": int(rng.choice(grades)) for d in docs}
    return out


def _pairs(a, b):
    """The pairs both judged, by hand: (grade in a, grade in b)."""
    return [(a[q][d], b[q][d]) for q in a if q in b for d in a[q] if d in b[q]]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
def test_kappas_equal_scikit_learn_on_the_common_pairs(seed, level):
    a, b = _random_qrels(seed), _random_qrels(seed + 100)
    pairs = _pairs(a, b)
    grade_a = np.array([p[0] for p in pairs])
    grade_b = np.array([p[1] for p in pairs])
    result = judge_agreement(a, b, relevance_level=level)
    assert result.n_pairs == len(pairs)
    binary_a, binary_b = grade_a >= level, grade_b >= level
    expected = cohen_kappa_score(binary_a, binary_b)
    assert result.kappa == pytest.approx(expected, abs=1e-12) or (
        np.isnan(expected) and np.isnan(result.kappa))
    assert result.weighted_kappa == pytest.approx(
        cohen_kappa_score(grade_a, grade_b, weights="linear"), abs=1e-12)
    confusion = [[np.sum(~binary_a & ~binary_b), np.sum(~binary_a & binary_b)],
                 [np.sum(binary_a & ~binary_b), np.sum(binary_a & binary_b)]]
    np.testing.assert_array_equal(result.confusion, confusion)
    assert result.agreement == pytest.approx(np.mean(binary_a == binary_b))
    n_a = sum(len(docs) for docs in a.values())
    n_b = sum(len(docs) for docs in b.values())
    assert (result.n_only_a, result.n_only_b) == (n_a - len(pairs), n_b - len(pairs))


def test_per_query_agreement_by_hand():
    a = {"q2": {"d1": 1, "d2": 0}, "q1": {"d1": 1, "d2": 1, "d3": 0}, "q3": {"d1": 1}}
    b = {"q1": {"d1": 1, "d2": 0, "d3": 0, "d4": 1}, "q2": {"d1": 0, "d2": 1}}
    result = judge_agreement(a, b)
    assert list(result.per_query.query_id) == ["q1", "q2"]  # q3: nothing in common
    np.testing.assert_allclose(result.per_query.value, [2 / 3, 0 / 2])
    np.testing.assert_array_equal(result.per_query.weight, [3, 2])
    # 5 pairs; a: 1 1 0 1 0, b: 1 0 0 0 1 -> po = 2/5; pa = 3/5, pb = 2/5
    # pe = 3/5 * 2/5 + 2/5 * 3/5 = 12/25; kappa = (2/5 - 12/25) / (1 - 12/25)
    assert result.kappa == pytest.approx((2 / 5 - 12 / 25) / (1 - 12 / 25))


def test_id_lists_files_and_frames_are_read_as_evaluate_run_reads_them(tmp_path):
    pd = pytest.importorskip("pandas")
    a = {"q1": ["d1", "d2"], "q2": ["d3"]}  # grade 1 each
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    frame = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d3"],
                          "rel": [1, 0, 2]})
    for b in (str(path), frame):
        result = judge_agreement(a, b)
        assert result.n_pairs == 3
        np.testing.assert_array_equal(result.confusion, [[0, 0], [1, 2]])
        assert result.weighted_kappa == pytest.approx(
            cohen_kappa_score([1, 1, 1], [1, 0, 2], weights="linear"))


def test_one_label_everywhere_gives_nan_as_scikit_learn():
    import warnings

    with warnings.catch_warnings():  # scikit-learn's warning differs by version
        warnings.simplefilter("ignore")
        expected = cohen_kappa_score([1, 1], [1, 1])
    assert np.isnan(expected)
    result = judge_agreement({"q": ["a", "b"]}, {"q": ["a", "b"]})
    assert np.isnan(result.kappa) and result.agreement == 1.0


def test_repr_is_readable():
    text = repr(judge_agreement({"q": {"a": 1, "b": 0}}, {"q": {"a": 1, "b": 1}}))
    assert text.startswith("JudgeAgreementResult(2 pairs judged by both in 1 queries; ")
    assert "confusion (relevant: grade >= 1)" in text and "a: rel" in text


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="`qrels_a` and `qrels_b` share no judged"):
        judge_agreement({"q": ["a"]}, {"q": ["b"]})
    with pytest.raises(ValueError, match="`qrels_b`: query 'q' lists document 'a' more"):
        judge_agreement({"q": ["a"]}, {"q": ["a", "a"]})
    pd = pytest.importorskip("pandas")
    twice = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    with pytest.raises(ValueError, match="`qrels_a` judges some"):
        judge_agreement(twice, {"q": ["a"]})
    with pytest.raises(ValueError, match="`relevance_level`"):
        judge_agreement({"q": ["a"]}, {"q": ["a"]}, relevance_level="1")


def test_result_class_is_exported():
    assert type(judge_agreement({"q": ["a"]}, {"q": ["a"]})) is JudgeAgreementResult
