"""
Query ids from a DataFrame column, without metadata routing
===========================================================

Metadata routing is the general way to hand query ids to scorers, but it is
a global switch some code bases cannot flip. skrank's scorers have a second
route: when no ``query_id`` reaches them, they read the ids from a column of
a pandas DataFrame ``X``, ``"qid"`` by default (XGBoost's rankers use the
same column name). The model must not learn from that column, so the
pipeline drops it first.

What you learn:

* build a pipeline that drops the ``"qid"`` column with a
  ``ColumnTransformer``;
* run ``cross_validate`` and ``GridSearchCV`` with routing **off**, the
  splitter getting ``groups=X["qid"]``;
* what the scorer says when it gets no query ids at all;
* the pitfalls of this route.

Needs pandas. The data: query-by-example retrieval on scikit-learn's
handwritten digits (:func:`skrank.load_digits_retrieval`, no download).
"""

try:
    import pandas  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: pip install pandas")
    raise SystemExit(0)


def print_table(rows, headers):
    """Print rows (lists of cells) under headers, numbers with 3 decimals."""
    cells = [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    for line in [headers, ["-" * w for w in widths], *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    print()


# %%
# A DataFrame with a "qid" column
# -------------------------------
import sklearn

import skrank

assert not sklearn.get_config()["enable_metadata_routing"]   # the default

data = skrank.load_digits_retrieval(n_queries=200, n_candidates=30, as_frame=True)
X, y = data.data, data.target
print(X.iloc[:3, :5], "\n")

# %%
# A pipeline that drops the column
# --------------------------------
# ``remainder="passthrough"`` keeps every other column. The scorer receives
# the untransformed test rows, ``"qid"`` included, and reads the ids there.
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

model = make_pipeline(
    ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"),
    StandardScaler(),
    LogisticRegression(max_iter=1000),
)

# %%
# cross_validate with routing off
# -------------------------------
# With routing off, ``groups=`` goes straight to ``GroupKFold``.
from sklearn.model_selection import GroupKFold, cross_validate

names = ["ndcg@10", "map", "gauc"]
scoring = skrank.get_scorer(names)   # one scorer, one predict per fold
scores = cross_validate(model, X, y, groups=X["qid"], cv=GroupKFold(n_splits=5),
                        scoring=scoring)
print_table(
    [[f"fold {i}"] + [scores[f"test_{m}"][i] for m in names] for i in range(5)]
    + [["mean"] + [scores[f"test_{m}"].mean() for m in names]],
    ["cross_validate"] + names,
)

# %%
# GridSearchCV with routing off
# -----------------------------
# Parameters of a pipeline step are named ``<step>__<parameter>``.
from sklearn.model_selection import GridSearchCV

search = GridSearchCV(
    model, {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}, scoring=scoring,
    refit="ndcg@10", cv=GroupKFold(n_splits=5),
).fit(X, y, groups=X["qid"])
results = search.cv_results_
print_table(
    [[params["logisticregression__C"], results["mean_test_ndcg@10"][i],
      results["mean_test_map"][i], results["mean_test_gauc"][i]]
     for i, params in enumerate(results["params"])],
    ["C", "ndcg@10", "map", "gauc"],
)
print("best:", search.best_params_, "\n")

# %%
# The grid as a curve
# -------------------
# The search's ``cv_results_`` hold every metric for every ``C``: the mean
# over the five folds, and the spread between them (one standard deviation)
# as a band. Here the curves are nearly flat: the regularisation matters far
# less than the spread between folds. The metrics' levels differ because
# they ask different things: group AUC judges every relevant-irrelevant
# pair, nDCG@10 only the top of each list.
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

if plt is not None:
    import numpy as np

    C = np.array([params["logisticregression__C"] for params in results["params"]])
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in names:
        mean, std = results[f"mean_test_{name}"], results[f"std_test_{name}"]
        ax.plot(C, mean, marker="o", label=name)
        ax.fill_between(C, mean - std, mean + std, alpha=0.2)
    ax.set_xscale("log")
    ax.set_xlabel("C of LogisticRegression (log scale)")
    ax.set_ylabel("mean over 5 query-grouped folds")
    ax.set_title("GridSearchCV with query ids from the qid column")
    ax.legend(loc="upper center", ncol=3)
    ax.set_ylim(None, ax.get_ylim()[1] + 0.04)
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "query_id_column.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")

# %%
# No query ids: a clear error, not a silent one-list score
# --------------------------------------------------------
# Given a numpy array (or a DataFrame without the column) and no routed
# ids, the scorer explains both ways to pass them. In a search the error
# would become ``nan`` scores and a warning (``error_score=np.nan``, the
# default); ``error_score="raise"`` shows it while debugging.
fitted = search.best_estimator_
print("Demonstration: scoring a numpy X with no query ids. The ValueError "
      "below is expected; it is what this section shows, not a failure:")
try:
    scoring(fitted[-2:], X.drop(columns="qid").to_numpy(), y)
except ValueError as error:
    print("ValueError (expected):", error, "\n")

# %%
# Pitfalls of the column route
# ----------------------------
# * Forgetting to drop the column lets the model train on the query id.
# * The fitted pipeline needs a ``"qid"`` column at predict time too (any
#   value: it is dropped).
# * ``permutation_importance`` shuffles ``"qid"`` like any column, and
#   scorers then read shuffled ids: leave it out of the importances.
# * A different column name: ``skrank.make_ranking_scorer("map",
#   query_id_column="user_id")``.
new_rows = X.iloc[:5].assign(qid=-1)
print("scores of 5 new rows:", fitted.predict_proba(new_rows)[:, 1].round(3))
