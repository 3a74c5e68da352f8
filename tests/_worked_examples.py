"""Hand-worked values of every registry stem, each written as its arithmetic.

``EXAMPLES[stem]`` lists ``Example(id, y_true, y_score, kwargs, expected)``;
``tests/metrics/test_reference.py`` checks each on the stem's brute-force
reference (``_harness.REFERENCES``, which validates the reference) and on
skrank's public function (``METRICS[stem].func``). The keys are the
registry's stems; a stem without an example fails that module.

SPEC section 2's example is written once, here: one query, relevance in
score order 1, 0, 1, 1, 0, 1, 0, 0 (R = 4 relevant rows, at ranks 1, 3, 4, 6).
"""

import math
from dataclasses import dataclass, field

SPEC_REL = [1, 0, 1, 1, 0, 1, 0, 0]
SPEC_SCORE = [8, 7, 6, 5, 4, 3, 2, 1]
LOG2 = math.log2


@dataclass(frozen=True)
class Example:
    id: str
    y_true: list
    y_score: list
    kwargs: dict = field(default_factory=dict)
    expected: float = math.nan


def _spec(id, kwargs, expected):
    return Example(id, SPEC_REL, SPEC_SCORE, kwargs, expected)


# no_relevant, worked on P@k: query 2 has no relevant row
_NO_RELEVANT = ([1, 0, 0, 0], [2, 1, 2, 1])

EXAMPLES = {
    "precision": [
        _spec("P@1", {"k": 1}, 1 / 1),
        _spec("P@4", {"k": 4}, 3 / 4),
        _spec("P@8", {"k": 8}, 4 / 8),
        _spec("P@None", {}, 4 / 8),
        _spec("P@10 divides by k", {"k": 10}, 4 / 10),
        _spec("P@10 normalize min", {"k": 10, "normalize": "min"}, 4 / 8),
        Example("tied P@1", [1, 0, 0], [1, 1, 1], {"k": 1}, 1 / 3),
        Example("no_relevant skip", *_NO_RELEVANT, {"query_id": [1, 1, 2, 2], "k": 1},
                1.0),
        Example("no_relevant zero", *_NO_RELEVANT,
                {"query_id": [1, 1, 2, 2], "k": 1, "no_relevant": "zero"}, (1 + 0) / 2),
        Example("no_relevant one", *_NO_RELEVANT,
                {"query_id": [1, 1, 2, 2], "k": 2, "no_relevant": "one"}, (1 / 2 + 1) / 2),
    ],
    "recall": [
        _spec("R@4", {"k": 4}, 3 / 4),
    ],
    "f1": [  # F1 = 2PR / (P + R); F-beta = (1 + b^2) PR / (b^2 P + R)
        _spec("F1@1", {"k": 1}, 2 * (1 / 1) * (1 / 4) / (1 / 1 + 1 / 4)),
        _spec("F1@3", {"k": 3}, 2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4)),  # 4/7, not 0.62
        _spec("F1@4", {"k": 4}, 2 * (3 / 4) * (3 / 4) / (3 / 4 + 3 / 4)),
        _spec("F1@8", {"k": 8}, 2 * (4 / 8) * (4 / 4) / (4 / 8 + 4 / 4)),  # 2/3
        _spec("F2@4", {"k": 4, "beta": 2.0}, 5 * (3 / 4) * (3 / 4) / (4 * 3 / 4 + 3 / 4)),
    ],
    "r_precision": [
        _spec("R-precision", {}, 3 / 4),
    ],
    "hits": [
        _spec("hits@1", {"k": 1}, 1),  # rank 1
        _spec("hits@4", {"k": 4}, 1 + 1 + 1),  # ranks 1, 3, 4
        _spec("hits@None", {}, 4),  # every relevant row
        _spec("hits@20 past the end", {"k": 20}, 4),
        Example("graded counts y > 0", [3, 0, 1, 2], [4, 3, 2, 1], {"k": 3}, 1 + 0 + 1),
        # one tie block of 3 rows, 2 relevant: k=1 holds 2/3 of a hit on average
        Example("tied hits@1", [1, 1, 0], [5, 5, 5], {"k": 1}, 2 / 3),
        Example("tied hits@2", [1, 1, 0], [5, 5, 5], {"k": 2}, 2 * 2 / 3),
        Example("input order", [1, 1, 0], [5, 5, 5], {"k": 1, "ties": "input"}, 1),
        # two queries: 1 hit in q1's top 2, 2 in q2's: mean (1 + 2) / 2
        Example("two queries", [1, 0, 1, 1, 1, 0], [3, 2, 1, 3, 2, 1],
                {"k": 2, "query_id": [1, 1, 1, 2, 2, 2]}, (1 + 2) / 2),
        # a query without relevant row is left out by default, 0 with "zero"
        Example("no relevant skipped", [1, 0, 0, 0], [2, 1, 2, 1],
                {"k": 1, "query_id": [1, 1, 2, 2]}, 1 / 1),
        Example("no relevant zero", [1, 0, 0, 0], [2, 1, 2, 1],
                {"k": 1, "query_id": [1, 1, 2, 2], "no_relevant": "zero"}, (1 + 0) / 2),
    ],
    "map": [
        _spec("AP", {}, (1 / 1 + 2 / 3 + 3 / 4 + 4 / 6) / 4),  # 0.7708
        _spec("AP@3 relevant", {"k": 3}, (1 / 1 + 2 / 3) / 4),
        _spec("AP@3 min", {"k": 3, "normalize": "min"}, (1 / 1 + 2 / 3) / 3),
        _spec("AP@3 retrieved", {"k": 3, "normalize": "retrieved"}, (1 / 1 + 2 / 3) / 2),
        # [1, 1, 0] all tied: 110 (AP 1), 101 (AP (1 + 2/3)/2), 011 (AP (1/2 + 2/3)/2),
        # each relevance sequence from 2 of the 6 permutations.
        Example("tied AP", [1, 1, 0], [2, 2, 2], {},
                (1 + (1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 3),
        Example("tied AP input", [0, 1, 1], [2, 2, 2], {"ties": "input"},
                (1 / 2 + 2 / 3) / 2),
        # the tied relevant rows go last: 0, 1, 1 whatever their input order
        Example("tied AP pessimistic", [1, 1, 0], [2, 2, 2], {"ties": "pessimistic"},
                (1 / 2 + 2 / 3) / 2),
        # tie_blocks="threshold": one block of 4 tied rows, 2 relevant, straddles
        # k = 1; its share of relevant rows in the top 1, 2 * 1/4, counts at
        # position 1 with precision (2 * 1/4) / 1; over R = 2 ...
        Example("AP@1 threshold", [1, 1, 0, 0], [1, 1, 1, 1],
                {"k": 1, "tie_blocks": "threshold"}, (2 * 1 / 4) * ((2 * 1 / 4) / 1) / 2),
        # ... or over the expected hits@1, 2 * 1/4
        Example("AP@1 threshold retrieved", [1, 1, 0, 0], [1, 1, 1, 1],
                {"k": 1, "tie_blocks": "threshold", "normalize": "retrieved"},
                (2 * 1 / 4) * ((2 * 1 / 4) / 1) / (2 * 1 / 4)),
        # Two queries, query weight = mean of row weights: q1 weight (1+3)/2 = 2,
        # AP 1; q2 weight 1, AP (1/2) / 1.
        Example("weighted MAP", [1, 0, 0, 1], [2, 1, 2, 1],
                {"query_id": [1, 1, 2, 2], "sample_weight": [1, 3, 1, 1]},
                (2 * 1 + 1 * (1 / 2)) / (2 + 1)),
    ],
    "dcg": [
        # Binary labels: exponential gain 2^1 - 1 = 1 = linear gain.
        _spec("DCG@3", {"k": 3}, 1 / LOG2(2) + 0 / LOG2(3) + 1 / LOG2(4)),  # = 1.5
        _spec("DCG@6", {"k": 6},
              1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7)),  # ~ 2.2869
        _spec("DCG@6 position discount", {"k": 6, "discount": "position"},
              1 / 1 + 1 / 3 + 1 / 4 + 1 / 6),
        Example("graded DCG exponential", [3, 0, 2], [3, 2, 1], {},
                (2**3 - 1) / LOG2(2) + (2**2 - 1) / LOG2(4)),
        Example("graded DCG linear", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
                3 / LOG2(2) + 2 / LOG2(4)),
        Example("tied DCG@1 linear", [1, 0], [0, 0], {"k": 1, "gain": "linear"},
                (1 + 0) / 2),
    ],
    "ndcg": [
        _spec("nDCG@2", {"k": 2}, (1 / LOG2(2)) / (1 / LOG2(2) + 1 / LOG2(3))),  # ~ 0.6131
        _spec("nDCG@6", {"k": 6},
              (1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7))
              / (1 / LOG2(2) + 1 / LOG2(3) + 1 / LOG2(4) + 1 / LOG2(5))),  # ~ 0.8928
        Example("graded nDCG linear", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
                (3 / LOG2(2) + 2 / LOG2(4)) / (3 / LOG2(2) + 2 / LOG2(3))),
    ],
    "mrr": [
        _spec("RR of the SPEC example", {}, 1 / 1),
        Example("RR", [0, 0, 1, 1], [4, 3, 2, 1], {}, 1 / 3),
        Example("RR@2 misses", [0, 0, 1, 1], [4, 3, 2, 1], {"k": 2}, 0.0),
        # [1, 0] tied: orders 10 and 01.
        Example("tied RR", [1, 0], [0.5, 0.5], {}, (1 / 1 + 1 / 2) / 2),
        Example("tied RR optimistic", [0, 1], [0.5, 0.5], {"ties": "optimistic"}, 1 / 1),
    ],
    "hit_rate": [
        Example("hit@1", [0, 1], [2, 1], {"k": 1}, 0.0),
        Example("hit@2", [0, 1], [2, 1], {"k": 2}, 1.0),
    ],
    "fap": [
        # FAP (SPEC section 3): F1 = 2*3/(3+3) = 1, AP = 1.
        Example("FAP 1,1,1", [1, 1, 1], [3, 2, 1], {}, 1.0),
        # F1@5 = 2 * (3/5) * 1 / (3/5 + 1) = 0.75, AP = 1.
        Example("FAP 1,1,1,0,0", [1, 1, 1, 0, 0], [5, 4, 3, 2, 1], {},
                2 * 0.75 * 1 / (0.75 + 1)),
        Example("FAP beta=2", [1, 1, 1, 0, 0], [5, 4, 3, 2, 1], {"beta": 2.0},
                (1 + 4) * (5 * (3 / 5) * 1 / (4 * (3 / 5) + 1)) * 1
                / (4 * (5 * (3 / 5) * 1 / (4 * (3 / 5) + 1)) + 1)),
        # FAP combines the expectations: E[F1@2] = 2*1/(1+2) = 2/3 in both orders,
        # E[AP] = (1 + 1/2)/2 = 3/4; harmonic 2 * (2/3) * (3/4) / (2/3 + 3/4).
        Example("tied FAP", [1, 0], [0, 0], {}, 2 * (2 / 3) * (3 / 4) / (2 / 3 + 3 / 4)),
        # k=1: E[F1@1] = (1 + 0)/2, E[AP@1] = (1 + 0)/2, harmonic of 1/2 and 1/2.
        Example("tied FAP@1", [1, 0], [0, 0], {"k": 1}, 1 / 2),
    ],
    "gauc": [
        # AUC: positives 0.35 and 0.8 against negatives 0.1 and 0.4: 3 of 4 pairs won.
        Example("AUC", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], {"query_id": [7, 7, 7, 7]},
                3 / 4),
        # ... and a tie 0.4 vs 0.4 counts 1/2.
        Example("AUC tie", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
                {"query_id": [7, 7, 7, 7]}, (1 + 1 / 2 + 1 + 1) / 4),
        Example("AUC tie 2-D", [[0, 0, 1, 1]], [[0.1, 0.4, 0.4, 0.8]], {},
                (1 + 1 / 2 + 1 + 1) / 4),
        # Tie in input order: the positive (row 2) follows the negative (row 1).
        Example("AUC tie input", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
                {"query_id": [7, 7, 7, 7], "ties": "input"}, (1 + 0 + 1 + 1) / 4),
        # GAUC: user a AUC 1 (2 rows), user b AUC 1/2 (3 rows), user c one class.
        Example("GAUC samples", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
                {"query_id": ["a", "a", "b", "b", "b", "c"]},
                (2 * 1 + 3 * (1 / 2)) / (2 + 3)),
        Example("GAUC uniform", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
                {"query_id": ["a", "a", "b", "b", "b", "c"], "weighting": "uniform"},
                (1 + 1 / 2) / 2),
        # ... and user c (1 row) scored 0 and counted
        Example("GAUC one_class zero", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
                {"query_id": ["a", "a", "b", "b", "b", "c"], "one_class": "zero"},
                (2 * 1 + 3 * (1 / 2) + 1 * 0) / (2 + 3 + 1)),
    ],
    "set_f1": [
        # query 1 returns 2 of its 3 relevant rows and 1 other: F1 = 2*2 / (3 + 3);
        # query 2 returns nothing: F1 = 0
        Example("two queries", [1, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 0],
                {"query_id": [1, 1, 1, 1, 2, 2]}, (2 * 2 / (3 + 3) + 0) / 2),
        # F2 = 5 TP / (4 R + returned) = 5 * 2 / (4 * 3 + 3)
        Example("F2", [1, 1, 1, 0], [1, 1, 0, 1], {"beta": 2.0}, 5 * 2 / (4 * 3 + 3)),
    ],
    "bpref": [
        # relevant at ranks 1, 3, 5; judged non-relevant at 2, 4: R = 3, N = 2
        Example("bpref", [1, 0, 1, 0, 1], [5, 4, 3, 2, 1], {},
                (1 + (1 - 1 / 2) + (1 - 2 / 2)) / 3),
        # R = 1, N = 3: min(n_r, R) / min(R, N) = min(3, 1) / 1
        Example("N capped at R", [0, 0, 0, 1], [4, 3, 2, 1], {}, 0.0),
        # R = 2, N = 3: relevant after 1 and 3 non-relevant rows
        Example("R = 2, N = 3", [0, 1, 0, 0, 1], [5, 4, 3, 2, 1], {},
                ((1 - 1 / 2) + (1 - 2 / 2)) / 2),
        Example("no judged non-relevant", [1, 1], [1, 2], {}, 1.0),
        # the only non-relevant row is unjudged
        Example("unjudged non-relevant", [0, 1], [2, 1], {"unjudged": [True, False]}, 1.0),
        # one tie block: the non-relevant row is above the relevant one in half
        # the orders: (1 + (1 - 1/1)) / 2
        Example("tie", [1, 0], [1, 1], {}, (1 + (1 - 1 / 1)) / 2),
        Example("tie input", [1, 0], [1, 1], {"ties": "input"}, 1.0),
    ],
    "rbp": [
        Example("RBP p=0.8", [1, 0, 1, 1], [4, 3, 2, 1], {},
                (1 - 0.8) * (1 + 0.8**2 + 0.8**3)),
        Example("RBP@2", [1, 0, 1, 1], [4, 3, 2, 1], {"k": 2}, (1 - 0.8) * 1),
        # a perfect ranking of R relevant rows scores 1 - p**R
        Example("perfect", [1, 1, 1, 0], [4, 3, 2, 1], {"p": 0.5}, 1 - 0.5**3),
        Example("graded gains", [2, 0, 1], [3, 2, 1], {"p": 0.5, "gain": "linear"},
                0.5 * (2 + 0.25)),
        # rank 2 unjudged: counts nothing
        Example("unjudged", [1, 1, 0, 1], [4, 3, 2, 1],
                {"p": 0.5, "unjudged": [False, True, False, False]},
                0.5 * (1 + 0.5**3)),
    ],
    "gap": [
        # grades in score order 2, 0, 1, 2 with g = (0.25, 0.75): G(1)=0.25, G(2)=1
        Example("two grades", [2, 0, 1, 2], [4, 3, 2, 1],
                {"grade_probabilities": [0.25, 0.75]},
                (1.0 / 1                      # n=1: G(2)
                 + (0.25 + 0.25) / 3          # n=3: G(min(2,1)) + G(1)
                 + (1.0 + 0.25 + 1.0) / 4)    # n=4: G(2) + G(min(1,2)) + G(2)
                / (1.0 + 0.25 + 1.0)),
        # binary labels: AP, (1/2 + 2/3) / 2
        Example("binary is AP", [0, 1, 1], [3, 2, 1], {}, (1 / 2 + 2 / 3) / 2),
    ],
    "pr_auc": [
        # points (0, 1), (1/2, 1), (1/2, 1/2), (1, 2/3), (1, 1/2)
        Example("trapezoids", [1, 0, 1, 0], [4, 3, 2, 1], {},
                0.5 * (1 + 1) / 2 + 0.5 * (1 / 2 + 2 / 3) / 2),
        Example("perfect", [1, 1, 0], [3, 2, 1], {}, 1.0),
    ],
    "err": [
        # binary labels stop the user at the first relevant row: ERR = RR
        _spec("ERR of the SPEC example", {}, 1 / 1),
        # probabilities 0.5, 0, 1 at ranks 1-3: 0.5/1 + 0.5*1*0/2 + 0.5*1*1/3
        Example("graded", [0.5, 0, 1], [3, 2, 1], {}, 0.5 / 1 + 0.5 * 1 * 1 / 3),
        # max_grade 2: R = (2^g - 1) / 4 = 0, 1/4, 3/4 at ranks 1-3
        Example("max_grade", [0, 1, 2], [3, 2, 1], {"max_grade": 2},
                1 / 4 * 1 / 2 + 3 / 4 * 3 / 4 * 1 / 3),
    ],
    "pfound": [
        # the user reads on past rank i with probability (1 - R_i) * decay
        Example("graded", [0.5, 0, 1], [3, 2, 1], {},
                0.5 + (0.5 * 0.85) * 0 + (0.5 * 0.85 * 1 * 0.85) * 1),
        Example("decay 0.5@2", [0.5, 1, 1], [3, 2, 1], {"decay": 0.5, "k": 2},
                0.5 + (0.5 * 0.5) * 1),
    ],
    "coverage_error": [
        # relevant rows scored 3 and 1; rows scored >= 1: all 4
        Example("coverage", [1, 0, 1, 0], [3, 2, 1, 0], {}, 3),
        # a tie counts against: the relevant row tied with 2 others covers 3
        Example("tie", [0, 1, 0, 0], [5, 5, 5, 1], {}, 3),
        Example("no relevant row", [0, 0, 0], [3, 2, 1], {}, 0),
    ],
    "label_ranking_loss": [
        # pairs (relevant, non-relevant) in the wrong order: (1, 2) of 2 * 2
        Example("loss", [1, 0, 1, 0], [3, 2, 1, 0], {}, 1 / 4),
        Example("a tied pair is wrong", [1, 0], [7, 7], {}, 1.0),
        Example("no pair", [1, 1, 1], [1, 2, 3], {}, 0.0),
        Example("no relevant row", [0, 0, 0], [1, 2, 3], {}, 0.0),
    ],
    "label_ranking_average_precision": [
        # relevant rows at ranks 1 and 3: (1/1 + 2/3) / 2
        Example("LRAP", [1, 0, 1, 0], [3, 2, 1, 0], {}, (1 / 1 + 2 / 3) / 2),
        # two relevant rows tied with a non-relevant one: each 2/3 (not AP's average)
        Example("tie", [1, 1, 0], [4, 4, 4], {}, 2 / 3),
        Example("all relevant", [1, 1], [1, 2], {}, 1.0),
        Example("none relevant", [0, 0], [1, 2], {}, 1.0),
    ],
}
