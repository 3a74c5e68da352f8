"""Unknown metric names get suggestions that keep the cutoff."""

import pytest

from skrank import evaluate, get_scorer
from skrank.metrics._registry import parse_metric_name


@pytest.mark.parametrize(
    "name, suggestion",
    [
        ("p@10", "'precision@10'"),
        ("P@10", "'precision@10'"),
        ("prec@5", "'precision@5'"),
        ("r@20", "'recall@20'"),
        ("ap@100", "'map@100'"),
        ("rr", "'mrr'"),
        ("ndgc@5", "'ndcg@5'"),
        ("recal@20", "'recall@20'"),
        ("P_10", "'precision@10'"),          # trec_eval's spelling
        ("ndcg_cut_10", "'ndcg@10'"),
        ("mrr10", "'mrr@10'"),
        ("auc", "'gauc'"),
        ("success@1", "'hit_rate@1'"),
    ],
)
def test_unknown_names_suggest_the_known_name(name, suggestion):
    with pytest.raises(ValueError, match=f"Did you mean {suggestion}"):
        parse_metric_name(name)


def test_a_suggestion_drops_a_cutoff_the_metric_does_not_take():
    with pytest.raises(ValueError, match="Did you mean 'gauc'") as info:
        parse_metric_name("auc@10")
    assert "gauc@10" not in str(info.value)


def test_scorers_and_evaluate_pass_the_suggestion_on():
    with pytest.raises(ValueError, match="Did you mean 'precision@10'"):
        get_scorer("p@10")
    with pytest.raises(ValueError, match="Did you mean 'precision@10'"):
        evaluate([1, 0], [2, 1], metrics=["p@10"])


def test_aliases_are_only_suggested_never_accepted():
    with pytest.raises(ValueError, match="Unknown metric name 'p@10'"):
        parse_metric_name("p@10")
