"""aggregate_run: passages rolled up to documents, checked by hand."""

import numpy as np
import pytest

from skrank import evaluate_run
from skrank.io import aggregate_run

RUN = {
    "q1": {"a#1": 0.9, "b#1": 0.8, "a#2": 0.5, "b#2": 0.7, "c#1": 0.2},
    "q2": {"c#1": 0.4, "c#2": 0.6, "a#1": 0.1},
}
DOC_OF = {"a#1": "a", "a#2": "a", "b#1": "b", "b#2": "b", "c#1": "c", "c#2": "c",
          "z#9": "z"}  # a passage no run retrieved: ignored


@pytest.mark.parametrize("method, expected", [
    ("max", {"q1": {"a": 0.9, "b": 0.8, "c": 0.2}, "q2": {"c": 0.6, "a": 0.1}}),
    ("sum", {"q1": {"b": 0.8 + 0.7, "a": 0.9 + 0.5, "c": 0.2},
             "q2": {"c": 0.4 + 0.6, "a": 0.1}}),
    ("mean", {"q1": {"b": (0.8 + 0.7) / 2, "a": (0.9 + 0.5) / 2, "c": 0.2},
              "q2": {"c": (0.4 + 0.6) / 2, "a": 0.1}}),
])
def test_dict_runs_by_hand(method, expected):
    got = aggregate_run(RUN, DOC_OF, method=method)
    assert list(got) == list(expected)
    for q in expected:
        assert list(got[q]) == list(expected[q])  # by score, descending
        for d in expected[q]:
            assert got[q][d] == pytest.approx(expected[q][d])


def test_dataframe_and_file_runs(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = [(q, p, s) for q, passages in RUN.items() for p, s in passages.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    got = aggregate_run(frame, pd.Series(DOC_OF), method="sum")
    assert list(got.columns) == ["query_id", "doc_id", "score"]
    assert list(got["query_id"]) == ["q1", "q1", "q1", "q2", "q2"]
    assert list(got["doc_id"]) == ["b", "a", "c", "c", "a"]
    np.testing.assert_allclose(got["score"], [1.5, 1.4, 0.2, 1.0, 0.1])
    path = tmp_path / "run"
    path.write_text("".join(f"{q} Q0 {p} 0 {s} t\n" for q, p, s in rows))
    assert aggregate_run(str(path), DOC_OF) == aggregate_run(RUN, DOC_OF)


def test_id_lists_and_ties():
    # positions as scores: a#1 is first of 4 (4), b#1 3, a#2 2, b#2 1
    got = aggregate_run({"q": ["a#1", "b#1", "a#2", "b#2"]}, DOC_OF, method="sum")
    assert got == {"q": {"a": 4 + 2.0, "b": 3 + 1.0}}
    tied = aggregate_run({"q": {"b#1": 1.0, "a#1": 1.0}}, DOC_OF)
    assert list(tied["q"]) == ["a", "b"]  # equal scores: by document id


def test_the_result_is_a_run_evaluate_run_reads():
    qrels = {"q1": {"b": 1}, "q2": {"a": 1}}
    max_p = evaluate_run(qrels, aggregate_run(RUN, DOC_OF), ["recip_rank"])
    sum_p = evaluate_run(qrels, aggregate_run(RUN, DOC_OF, method="sum"), ["recip_rank"])
    np.testing.assert_allclose(max_p.per_query["recip_rank"].value, [1 / 2, 1 / 2])
    np.testing.assert_allclose(sum_p.per_query["recip_rank"].value, [1 / 1, 1 / 2])


def test_a_passage_without_document_is_an_error():
    with pytest.raises(ValueError, match=r"`doc_of` has no document for 2 passage\(s\) "
                                         r"of the run: 'c#1', 'c#2'"):
        aggregate_run(RUN, {k: v for k, v in DOC_OF.items() if v != "c"})
    with pytest.raises(ValueError, match="`doc_of` must map each passage"):
        aggregate_run(RUN, ["a", "b"])
    with pytest.raises(ValueError, match="`method`"):
        aggregate_run(RUN, DOC_OF, method="median")
    with pytest.raises(ValueError, match="`run`: query 'q' lists document 'a#1' more"):
        aggregate_run({"q": ["a#1", "a#1"]}, DOC_OF)


def test_int_ids_compare_as_text():
    got = aggregate_run({1: {10: 0.5, 11: 0.7}}, {10: 7, 11: 7}, method="mean")
    assert got == {"1": {"7": pytest.approx(0.6)}}
