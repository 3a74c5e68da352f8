"""
Select a ranker from click logs: naive click-nDCG against IPS-DCG
=================================================================

With clicks instead of relevance labels, the tempting way to compare
rankers is nDCG with the clicks as labels. It rewards the ranker that
imitates the logger that collected the clicks: the documents the logger
put on top were *seen*, so they were clicked. Inverse propensity scoring
(IPS) weighs each click by one over the examination probability of the
position where it happened, which removes that advantage under the
position-based model.

What you learn:

* simulate click logs from labelled data with
  :func:`skrank.datasets.simulate_clicks` (several loggers, so documents
  move between positions);
* estimate the position bias from the logs alone with
  :func:`skrank.clicks.estimate_position_bias` (intervention harvesting);
* tune :class:`skrank.QueryGroupRanker` around ``LGBMRanker`` on the clicks
  and select the candidate by naive click-nDCG@10 and by IPS-DCG@10
  (:func:`skrank.clicks.evaluate`);
* check both choices against the true nDCG@10 on the relevance labels,
  which a real click log does not have.

The data is :func:`skrank.load_digits_retrieval`: each query is a
handwritten digit, its candidates are other digits, and a candidate is
relevant when it shows the same digit.
"""

try:
    import lightgbm  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: pip install lightgbm")
    raise SystemExit(0)

# %%
# Labelled data, and loggers that never see the labels
# ----------------------------------------------------
# Three loggers rank every query's candidates by a noisy copy of one
# feature (the images' Euclidean distance, smaller first) and users click
# under the position-based model: position ``k`` is examined with
# probability ``1 / k``, a relevant candidate is then clicked, a
# non-relevant one with probability 0.1.
import numpy as np
from sklearn.model_selection import GroupShuffleSplit

import skrank
from skrank.datasets import simulate_clicks

data = skrank.load_digits_retrieval(n_queries=300, n_candidates=20, random_state=0)
X, y, qid = data.data, data.target, data.query_id
distance = X[:, data.feature_names.index("distance")]
rng = np.random.default_rng(0)
logs = [
    simulate_clicks(y, -distance + rng.normal(0, 0.3 * distance.std(), len(y)),
                    query_id=qid, n_sessions=4, noise=0.1, random_state=seed)
    for seed in range(3)
]
row = np.concatenate([log.row for log in logs])
click = np.concatenate([log.click for log in logs])
position = np.concatenate([log.position for log in logs])
session = np.concatenate([log.session_id + 10_000 * i for i, log in enumerate(logs)])
print(f"{len(click)} displayed rows in {len(np.unique(session))} sessions, "
      f"{click.sum()} clicks")

# %%
# The position bias, from the logs alone
# --------------------------------------
# A (query, candidate) pair that two loggers showed at different positions
# is a natural experiment. Intervention harvesting compares its click rates
# there; the truth here is ``1 / k``.
from skrank.clicks import estimate_position_bias

bias = estimate_position_bias(click, position, query_id=qid[row], doc_id=row,
                              method="harvest", max_position=10, n_resamples=200,
                              random_state=0)
print(bias)
print("true propensities:", np.round(1 / np.arange(1, 11), 3))

# %%
# Tune on the clicks of some queries, compare on the others
# ---------------------------------------------------------
# Each candidate is a ``QueryGroupRanker(LGBMRanker)`` trained with the
# clicks as labels (one row per displayed candidate). Half of the
# candidates also see the first logger's score, which lets them imitate
# the logger. Rows below position 10 have no estimated propensity, so the
# comparison uses the top 10 of each session.
from lightgbm import LGBMRanker

train, valid = next(GroupShuffleSplit(n_splits=1, test_size=0.4, random_state=0)
                    .split(row, click, qid[row]))
valid = valid[position[valid] <= 10]
logger_feature = -distance + rng.normal(0, 0.3 * distance.std(), len(y))


def features(rows, with_logger):
    return np.column_stack([X[rows], logger_feature[rows]]) if with_logger else X[rows]


results = []
for with_logger in (False, True):
    for num_leaves in (3, 15):
        for n_estimators in (30, 150):
            model = skrank.QueryGroupRanker(LGBMRanker(
                num_leaves=num_leaves, n_estimators=n_estimators, learning_rate=0.1,
                min_child_samples=20, n_jobs=1, verbose=-1, random_state=0))
            model.fit(features(row[train], with_logger), click[train],
                      query_id=session[train])
            score = model.predict(features(row[valid], with_logger))
            naive = skrank.ndcg_score(click[valid], score, query_id=session[valid],
                                      k=10, gain="linear", no_relevant="zero")
            ips = skrank.clicks.evaluate(
                click[valid], score, position=position[valid],
                query_id=session[valid], propensity=bias, metrics="dcg@10")["dcg@10"]
            # the truth: the model's ranking of every candidate of the
            # validation queries, scored on the labels
            queries = np.isin(qid, np.unique(qid[row[valid]]))
            true = skrank.ndcg_score(
                y[queries], model.predict(features(np.flatnonzero(queries),
                                                   with_logger)),
                query_id=qid[queries], k=10)
            results.append((with_logger, num_leaves, n_estimators, naive, ips, true))

print(f"{'logger score':<13} {'leaves':>6} {'trees':>5} {'click nDCG@10':>14} "
      f"{'IPS DCG@10':>11} {'true nDCG@10':>13}")
for with_logger, leaves, trees, naive, ips, true in results:
    print(f"{str(with_logger):<13} {leaves:>6} {trees:>5} {naive:>14.3f} {ips:>11.3f} "
          f"{true:>13.3f}")

# %%
# The two choices
# ---------------
# Each criterion picks its best candidate; the true nDCG@10 says which
# choice was better. (On other seeds the two may pick the same model: the
# point is which criterion tracks the truth.)
by_naive = max(results, key=lambda r: r[3])
by_ips = max(results, key=lambda r: r[4])
best = max(r[5] for r in results)
for label, chosen in (("naive click-nDCG@10", by_naive), ("IPS-DCG@10", by_ips)):
    print(f"selected by {label:<20} logger score={chosen[0]!s:<5} "
          f"leaves={chosen[1]:<3} trees={chosen[2]:<4} true nDCG@10 = {chosen[5]:.3f} "
          f"(best {best:.3f})")
naive_rank = np.corrcoef(np.argsort(np.argsort([r[3] for r in results])),
                         np.argsort(np.argsort([r[5] for r in results])))[0, 1]
ips_rank = np.corrcoef(np.argsort(np.argsort([r[4] for r in results])),
                       np.argsort(np.argsort([r[5] for r in results])))[0, 1]
print(f"rank correlation with the truth: naive {naive_rank:.2f}, IPS {ips_rank:.2f}")
