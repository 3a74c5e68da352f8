"""
Compare ranking models with cross_validate and many per-query metrics
=====================================================================

Which model ranks best depends on what "best" means: the first relevant
result (MRR), the top of the list (nDCG@5, P@5), everything relevant found
(recall@10, MAP), or the whole ordering (group AUC). This example scores a
classifier, a regressor and a model-free baseline on all of them in one
``cross_validate`` call, with folds that keep every query whole.

What you learn:

* build a multi-metric ``scoring`` dict from skrank names;
* pass query ids to ``cross_validate`` with ``params={"query_id": qid,
  "groups": qid}`` (metadata routing);
* check one fold by hand: the score ``cross_validate`` reports is the
  skrank metric of that fold's queries;
* ``StratifiedGroupKFold`` keeps queries whole too, and balances the share
  of relevant rows between folds.

The data: query-by-example retrieval on scikit-learn's handwritten digits
(:func:`skrank.load_digits_retrieval`, shipped with scikit-learn).
"""


def print_table(rows, headers):
    """Print rows (lists of cells) under headers, numbers with 3 decimals."""
    cells = [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    for line in [headers, ["-" * w for w in widths], *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    print()


# %%
# Data and scorers
# ----------------
# One scorer per metric name; any ``@k`` cutoff works.
import sklearn

import skrank

data = skrank.load_digits_retrieval(n_queries=200, n_candidates=30, random_state=1)
X, y, qid = data.data, data.target, data.query_id

sklearn.set_config(enable_metadata_routing=True)
names = ["ndcg@5", "ndcg@10", "map", "mrr", "precision@5", "recall@10", "fap@5",
         "gauc"]
scoring = {name: skrank.get_scorer(name) for name in names}

# %%
# Three rankers
# -------------
# A binary classifier is scored by ``predict_proba[:, 1]``, a regressor by
# ``predict``. ``DistanceRanker`` has only ``fit`` and ``predict``, like the
# rankers of XGBoost and LightGBM; its ``predict`` is minus the pixel
# distance between query and candidate, so it learns nothing.
from sklearn.base import BaseEstimator
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


class DistanceRanker(BaseEstimator):
    """Ranks candidates by their distance to the query image (column 16)."""

    def fit(self, X, y=None):
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        return -X[:, 16]


models = {
    "gradient boosting": HistGradientBoostingClassifier(
        max_iter=60, learning_rate=0.2, random_state=0),
    "ridge regression": make_pipeline(StandardScaler(), Ridge(alpha=1.0)),
    "pixel distance": DistanceRanker(),
}
assert data.feature_names[16] == "distance"

# %%
# One cross_validate call per model
# ---------------------------------
from sklearn.model_selection import GroupKFold, cross_validate

cv = GroupKFold(n_splits=5)
results = {
    name: cross_validate(model, X, y, cv=cv, scoring=scoring,
                         params={"query_id": qid, "groups": qid}, n_jobs=2)
    for name, model in models.items()
}
print("mean over 5 query-grouped folds")
print_table(
    [[name] + [r[f"test_{m}"].mean() for m in names] for name, r in results.items()],
    ["model"] + names,
)

# %%
# Fold by fold
# ------------
# Each dot is one test fold of 40 queries, each bar the mean over the five.
# The three rankers are close: the learnt models lead the pixel distance by
# a few hundredths on most metrics, about as much as the folds differ from
# each other, so one fold alone would not tell them apart
# (:func:`skrank.compare` gives paired tests over the queries).
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

if plt is not None:
    import numpy as np

    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(results)
    for i, (model_name, r) in enumerate(results.items()):
        x = np.arange(len(names)) + (i - (len(results) - 1) / 2) * width
        means = [r[f"test_{m}"].mean() for m in names]
        ax.bar(x, means, width=width * 0.9, alpha=0.5, label=model_name)
        for j, m in enumerate(names):
            ax.scatter(np.full(r[f"test_{m}"].shape, x[j]), r[f"test_{m}"],
                       color="black", s=6, zorder=3)
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_ylabel("score (dots: folds; bars: mean)")
    ax.set_ylim(0, 1.15)
    ax.set_title("cross_validate with 5 query-grouped folds")
    ax.legend(loc="upper center", ncol=3)
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "cross_validate_metrics.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")

# %%
# Check one fold by hand
# ----------------------
# Refit the classifier on the first fold's training queries and score its
# test queries with skrank's functions: the numbers are the ones above.
from sklearn.base import clone

train, test = next(cv.split(X, y, groups=qid))
model = clone(models["gradient boosting"]).fit(X[train], y[train])
by_hand = skrank.evaluate(y[test], model.predict_proba(X[test])[:, 1],
                          query_id=qid[test], metrics=["ndcg@10", "map", "fap@5"])
reported = results["gradient boosting"]
assert all(by_hand[m] == reported[f"test_{m}"][0] for m in by_hand)
print_table(
    [[m, by_hand[m], reported[f"test_{m}"][0]] for m in by_hand],
    ["fold 0", "skrank by hand", "cross_validate"],
)

# %%
# StratifiedGroupKFold
# --------------------
# ``StratifiedGroupKFold`` also keeps queries whole, and in addition tries to
# give every fold the same share of relevant rows, which matters when
# queries differ a lot in how many relevant rows they have. Both give an
# honest estimate for new queries; here they agree within the spread.
from sklearn.model_selection import StratifiedGroupKFold

rows = []
for splitter in [GroupKFold(n_splits=5),
                 StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)]:
    r = cross_validate(models["gradient boosting"], X, y, cv=splitter,
                       scoring={"map": scoring["map"]},
                       params={"query_id": qid, "groups": qid}, n_jobs=2)
    rows.append([type(splitter).__name__, r["test_map"].mean(), r["test_map"].std()])
print_table(rows, ["splitter", "MAP mean", "MAP std"])

sklearn.set_config(enable_metadata_routing=False)
