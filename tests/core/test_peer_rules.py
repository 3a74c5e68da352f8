"""PeerRules: how a preset turns y_true and sample_weight into what its peer reads."""

import numpy as np
import pytest

from skrank._core._peer_rules import RULE_TEXT, RULES, PeerRules, peer_rules
from skrank._core._presets import PRESETS


def test_every_rule_of_the_table_exists_and_is_described():
    assert set(RULES) == set(RULE_TEXT)
    for convention in PRESETS.values():
        for metric in convention.metrics.values():
            assert set(metric.rules) <= set(RULES)


def test_a_metric_without_rules_has_none():
    assert peer_rules(PRESETS["lightgbm"], "ndcg") is not None
    assert peer_rules(PRESETS["spark"], "ndcg") is None
    assert peer_rules(None, "ndcg") is None


def test_border_integer_cast_and_weights():
    rules = PeerRules("x", "Peer", "m", integer_labels=True, relevant_above=0.5,
                      weighted=False)
    labels, weight = rules.apply([0.4, 0.6, 1.7, 2.0], [1, 2, 3, 4], None, {})
    # cast first (0, 0, 1, 2), then the border: 1 and 2 are above 0.5
    np.testing.assert_array_equal(labels, [0, 0, 1, 1])
    assert weight is None
    labels, weight = PeerRules("x", "Peer", "m", relevant_above=0.5).apply(
        [0.5, 0.51], [1, 2], None, {})
    np.testing.assert_array_equal(labels, [0, 1])  # strictly above
    assert weight == [1, 2]


def test_two_rows_names_the_query_in_1d_and_2d_input():
    rules = PeerRules("sklearn", "scikit-learn", "ndcg_score", rules=("two_rows",))
    rules.apply([[1, 0], [0, 1]], None, None, {})  # two items a row: fine
    with pytest.raises(ValueError, match="one item per row"):
        rules.apply([[1], [0]], None, None, {})
    with pytest.raises(ValueError, match=r"query 'b' has one row \(2 queries do\)"):
        rules.apply([1, 0, 1, 1], None, ["a", "a", "b", "c"], {})
    with pytest.raises(ValueError, match="query 5 has one row"):
        rules.apply([1, 0, 1], None, np.array([3, 3, 5]), {})
    with pytest.raises(ValueError, match="query 0 has one row"):
        rules.apply([1], None, None, {})


def test_grade_rules_follow_the_gain():
    rules = PeerRules("xgboost", "XGBoost", "ndcg",
                      rules=("exp_integer_grades", "exp_grades_up_to_31"))
    for labels in ([0.5, 0], [32, 0]):
        with pytest.raises(ValueError, match="compat='xgboost': XGBoost's ndcg"):
            rules.apply(labels, None, None, {"gain": "exponential"})
        rules.apply(labels, None, None, {"gain": "linear"})
    rules.apply([31, 0], None, None, {"gain": "exponential"})


def test_invalid_labels_get_the_usual_message():
    rules = PeerRules("x", "Peer", "m", rules=("binary",))
    with pytest.raises(ValueError, match="`y_true` must be non-negative"):
        rules.apply([-1, 0], None, None, {})
