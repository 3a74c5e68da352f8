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
  with ``GridSearchCV``, scoring every candidate by naive click-nDCG@10
  (:func:`skrank.get_scorer`) and by IPS-DCG@10
  (:func:`skrank.clicks.get_scorer`), and select by each;
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

bias = estimate_position_bias(click, position, list_id=session, query_id=qid[row],
                              doc_id=row, method="harvest", max_position=10,
                              n_resamples=200, random_state=0)
print(bias)
print("true propensities:", np.round(1 / np.arange(1, 11), 3))

# %%
# Tune with GridSearchCV, scored two ways
# ---------------------------------------
# Each candidate is a ``QueryGroupRanker(LGBMRanker)`` trained with the
# clicks as labels (one row per displayed candidate, each session one
# list). Half of the candidates also see a logger's score, which lets them
# imitate the logger; a ``ColumnTransformer`` drops or keeps that column.
#
# Two scorers judge every candidate on held-out queries: nDCG@10 with the
# clicks as labels (the naive way) and IPS-DCG@10 from
# :func:`skrank.clicks.get_scorer`. With metadata routing on, the session
# ids reach both scorers and the ranker (``query_id``: each session is one
# ranked list for the naive scorer and the ranker) and the IPS scorer
# (``list_id``: the displayed list), and the logged ``position`` reaches
# the IPS scorer. The ranker would take ``position``
# too and train position-debiased; here it trains on the raw clicks
# (``set_fit_request(position=False)``), so that only the selection
# differs.
#
# The search validates on one split of the *queries* (``cv`` takes any
# list of (train, test) row indices): the candidates train on every
# displayed row of 60% of the queries and are scored on the top 10 of each
# session of the others, since rows below position 10 have no estimated
# propensity. ``GroupKFold`` over the queries works the same, with more
# fits.
import sklearn
from lightgbm import LGBMRanker
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

sklearn.set_config(enable_metadata_routing=True)

train, valid = next(GroupShuffleSplit(n_splits=1, test_size=0.4, random_state=0)
                    .split(row, click, qid[row]))
valid = valid[position[valid] <= 10]
logger_feature = -distance + rng.normal(0, 0.3 * distance.std(), len(y))
n_features = X.shape[1]


def features(rows):
    return np.column_stack([X[rows], logger_feature[rows]])


ranker = skrank.QueryGroupRanker(LGBMRanker(
    learning_rate=0.1, min_child_samples=20, n_jobs=1, verbose=-1, random_state=0))
model = make_pipeline(
    ColumnTransformer([("logger", "drop", [n_features])], remainder="passthrough"),
    ranker.set_fit_request(position=False),
)
grid = {
    "columntransformer__logger": ["drop", "passthrough"],
    "querygroupranker__estimator__num_leaves": [3, 15],
    "querygroupranker__estimator__n_estimators": [30, 150],
}
scoring = {
    "naive": skrank.make_ranking_scorer("ndcg@10", gain="linear", no_relevant="zero"),
    "ips": skrank.clicks.get_scorer("dcg@10", propensity=bias),
}
search = GridSearchCV(model, grid, cv=[(train, valid)], scoring=scoring,
                      refit=False, error_score="raise")
search.fit(features(row), click, query_id=session, list_id=session, position=position)

# %%
# The truth, which a real click log does not have
# -----------------------------------------------
# Each candidate, fitted on the training queries' clicks as in the search,
# ranks every candidate document of the validation queries; nDCG@10 on the
# relevance labels says how good that ranking really is.
queries = np.isin(qid, np.unique(qid[row[valid]]))
results = []
for i, params in enumerate(search.cv_results_["params"]):
    fitted = sklearn.clone(model).set_params(**params).fit(
        features(row[train]), click[train], query_id=session[train])
    true = skrank.ndcg_score(
        y[queries], fitted.predict(features(np.flatnonzero(queries))),
        query_id=qid[queries], k=10)
    results.append((
        params["columntransformer__logger"] == "passthrough",
        params["querygroupranker__estimator__num_leaves"],
        params["querygroupranker__estimator__n_estimators"],
        search.cv_results_["mean_test_naive"][i],
        search.cv_results_["mean_test_ips"][i],
        true,
    ))

print(f"{'logger score':<13} {'leaves':>6} {'trees':>5} {'click nDCG@10':>14} "
      f"{'IPS DCG@10':>11} {'true nDCG@10':>13}")
for with_logger, leaves, trees, naive, ips, true in results:
    print(f"{str(with_logger):<13} {leaves:>6} {trees:>5} {naive:>14.3f} {ips:>11.3f} "
          f"{true:>13.3f}")

# %%
# The two choices
# ---------------
# Each criterion picks its best candidate (``search.cv_results_``'s
# ``rank_test_naive`` and ``rank_test_ips``); the true nDCG@10 says which
# choice was better. (On other seeds the two may pick the same model: the
# point is which criterion tracks the truth.)
by_naive = results[int(np.argmin(search.cv_results_["rank_test_naive"]))]
by_ips = results[int(np.argmin(search.cv_results_["rank_test_ips"]))]
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
sklearn.set_config(enable_metadata_routing=False)
