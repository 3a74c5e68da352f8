"""Id lists in evaluate_run: ``{qid: [doc ids, best first]}`` and ``{qid: [relevant ids]}``.

Each is checked against the same data written out by hand as scores
(the list's length down to 1) and grades (1), the forms evaluate_run took
before; DataFrames of (query, doc, rank) against the same scores.
"""

import numpy as np
import pytest

from skrank import evaluate_run

MEASURES = ["map", "ndcg@3", "P_2", "recall_10", "recip_rank", "bpref", "num_rel_ret"]

RUN_LISTS = {"q1": ["d3", "d1", "d7", "d2"], "q2": ["d9", "d4"], "q3": ["d5"]}
# the same run as scores: the first of n ids scores n, the last 1
RUN_SCORES = {"q1": {"d3": 4, "d1": 3, "d7": 2, "d2": 1}, "q2": {"d9": 2, "d4": 1},
              "q3": {"d5": 1}}
QRELS_LISTS = {"q1": ["d1", "d2", "d8"], "q2": ["d4"], "q3": ["d6"]}
QRELS_GRADES = {"q1": {"d1": 1, "d2": 1, "d8": 1}, "q2": {"d4": 1}, "q3": {"d6": 1}}


def _same(a, b):
    assert list(a.query_ids) == list(b.query_ids)
    assert a.mean == b.mean
    for name in a.per_query:
        np.testing.assert_array_equal(a.per_query[name].value, b.per_query[name].value)


@pytest.mark.parametrize("compat", [None, "trec_eval"])
@pytest.mark.parametrize("qrels_form", ["lists", "grades"])
@pytest.mark.parametrize("run_form", ["lists", "scores"])
def test_id_lists_equal_scores_and_grades(compat, qrels_form, run_form):
    qrels = QRELS_LISTS if qrels_form == "lists" else QRELS_GRADES
    run = RUN_LISTS if run_form == "lists" else RUN_SCORES
    _same(evaluate_run(qrels, run, MEASURES, compat=compat),
          evaluate_run(QRELS_GRADES, RUN_SCORES, MEASURES, compat=compat))


def test_id_lists_by_hand():
    # q1: relevant d1, d2, d8 (R=3); ranked d3 d1 d7 d2 -> hits at ranks 2 and 4
    # q2: d4 at rank 2; q3: nothing relevant retrieved
    result = evaluate_run(QRELS_LISTS, RUN_LISTS, ["map", "recip_rank"])
    np.testing.assert_allclose(result.per_query["map"].value,
                               [(1 / 2 + 2 / 4) / 3, 1 / 2, 0.0])
    np.testing.assert_allclose(result.per_query["recip_rank"].value, [1 / 2, 1 / 2, 0.0])


def test_arrays_tuples_and_int_ids_are_lists():
    run = {1: np.array([3, 1, 7, 2]), 2: (9, 4)}
    qrels = {1: [1, 2], 2: np.array([4])}
    got = evaluate_run(qrels, run, ["map"])
    expected = evaluate_run({"1": {"1": 1, "2": 1}, "2": {"4": 1}},
                            {"1": {"3": 4, "1": 3, "7": 2, "2": 1}, "2": {"9": 2, "4": 1}},
                            ["map"])
    _same(got, expected)


def test_graded_qrels_with_run_lists():
    # the common RAG case: a ranked list in, an LLM's grades as the qrels
    qrels = {"q1": {"d1": 2, "d2": 1, "d9": 0}}
    got = evaluate_run(qrels, {"q1": ["d2", "d1", "d9"]}, ["ndcg@3"])
    ideal = (2**2 - 1) + (2**1 - 1) / np.log2(3)
    dcg = (2**1 - 1) + (2**2 - 1) / np.log2(3)
    assert got.mean["ndcg@3"] == pytest.approx(dcg / ideal)


def test_dataframe_of_ranks_equals_scores():
    pd = pytest.importorskip("pandas")
    rows = [(q, d, i + 1) for q, docs in RUN_LISTS.items() for i, d in enumerate(docs)]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    shuffled = frame.sample(frac=1.0, random_state=0)
    for run in (frame, shuffled, frame.rename(columns={"rank": "position"})):
        _same(evaluate_run(QRELS_GRADES, run, MEASURES),
              evaluate_run(QRELS_GRADES, RUN_SCORES, MEASURES))
    # a score column wins over a rank column (trec_eval ignores the rank)
    # (scores equal to the ranks: the last of each list first: d2, d4, d5)
    scored = frame.assign(score=frame["rank"].astype(float))
    assert evaluate_run(QRELS_GRADES, scored, ["P_1"]).mean["P_1"] == pytest.approx(2 / 3)
    assert evaluate_run(QRELS_GRADES, frame, ["P_1"]).mean["P_1"] == 0.0
    # equal ranks tie: the expected value over both orders
    tied = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "rank": [1, 1]})
    assert evaluate_run({"q": ["a"]}, tied, ["P_1"]).mean["P_1"] == pytest.approx(0.5)


def test_repeated_id_in_a_run_list_is_an_error():
    with pytest.raises(ValueError, match=r"`run`: query 'q1' lists document 'd1' more than"):
        evaluate_run(QRELS_LISTS, {"q1": ["d1", "d2", "d1"]})


def test_repeated_id_in_a_qrels_list_is_an_error():
    with pytest.raises(ValueError, match=r"`qrels`: query 'q1' lists document 'd2' more"):
        evaluate_run({"q1": ["d2", "d2"]}, RUN_LISTS)


@pytest.mark.parametrize("bad", [
    {"q1": ["d1", 2, "d3"]},         # a grade beside the ids
    {"q1": [("d1", 2), ("d2", 1)]},  # (id, grade) pairs
    {"q1": ["d1", 1.0]},             # a float grade
    {"q1": ["d1"], "q2": {"d4": 2}},  # lists and grade dicts mixed
])
def test_grades_mixed_into_qrels_lists_are_an_error(bad):
    with pytest.raises(ValueError, match=r"^`qrels`"):
        evaluate_run(bad, RUN_LISTS)


def test_a_run_list_with_scores_is_an_error():
    with pytest.raises(ValueError, match=r"`run`: query 'q1' lists \('d1', 0.9\)"):
        evaluate_run(QRELS_LISTS, {"q1": [("d1", 0.9)]})


def test_a_bad_rank_column_is_an_error():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rank": [np.nan]})
    with pytest.raises(ValueError, match="`run` has a rank"):
        evaluate_run(QRELS_LISTS, frame)
