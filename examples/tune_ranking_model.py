"""
Tune a ranking model with GridSearchCV on per-query metrics
===========================================================

A ranking model is judged query by query: does it put the relevant
candidates of *each* query at the top? scikit-learn's scorers never see
query ids, so they score a test fold as one long list. This example tunes a
gradient-boosting model with ``GridSearchCV`` on three per-query metrics at
once (nDCG@10, MAP and group AUC), with folds that keep every query whole.

What you learn:

* turn on scikit-learn's metadata routing and pass query ids with
  ``GridSearchCV(...).fit(X, y, query_id=qid, groups=qid)``;
* score several skrank metrics at once and refit on one of them;
* read the results table and score the refit model on held-out queries;
* two ways to get wrong numbers without noticing: ``KFold``, which splits
  queries (the scores go up), and scoring all rows as one list.

The task is query-by-example image retrieval built from scikit-learn's
handwritten digits (:func:`skrank.load_digits_retrieval`, no download):
each query is an image, its 30 candidates are other images, and a
candidate is relevant when it shows the same digit (about 3 per query).
Each row holds features comparing the query image with the candidate.
"""


def print_table(rows, headers):
    """Print rows (lists of cells) under headers, numbers with 3 decimals."""
    cells = [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    for line in [headers, ["-" * w for w in widths], *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    print()


# %%
# Data: hold out whole queries
# ----------------------------
# ``GroupShuffleSplit`` keeps all candidates of a query on one side, so the
# held-out queries are queries the model has never seen.
import numpy as np
from sklearn.model_selection import GroupShuffleSplit

import skrank

data = skrank.load_digits_retrieval(n_queries=300, n_candidates=30, random_state=0)
X, y, qid = data.data, data.target, data.query_id
train, test = next(
    GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, y, qid)
)
print(
    f"{len(y)} rows, {len(np.unique(qid))} queries, {y.mean():.1%} relevant; "
    f"{len(np.unique(qid[train]))} queries to tune on, "
    f"{len(np.unique(qid[test]))} held out\n"
)

# %%
# Scorers that see query ids
# --------------------------
# ``skrank.get_scorer`` turns a metric name into a scorer that *requests*
# ``query_id`` through metadata routing. scikit-learn only accepts its own
# names as strings, so pass a scorer object: a list of names gives one
# multi-metric scorer, which predicts and sorts each test fold once for all
# the metrics.
import sklearn

sklearn.set_config(enable_metadata_routing=True)

names = ["ndcg@10", "map", "gauc"]
scoring = skrank.get_scorer(names)
print("scoring:", scoring, "\n")

# %%
# Grid search with query-grouped folds
# ------------------------------------
# ``GroupKFold`` reads ``groups``; the scorers read ``query_id``. Both get
# the same array. ``refit="ndcg@10"`` picks the model with the best mean
# nDCG@10 over the folds and refits it on all the training queries.
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GridSearchCV, GroupKFold

model = HistGradientBoostingClassifier(max_iter=60, early_stopping=False,
                                       random_state=0)
grid = {"learning_rate": [0.05, 0.2], "max_leaf_nodes": [7, 31]}
search = GridSearchCV(
    model, grid, scoring=scoring, refit="ndcg@10", cv=GroupKFold(n_splits=4),
    n_jobs=2,
)
search.fit(X[train], y[train], query_id=qid[train], groups=qid[train])

results = search.cv_results_
order = np.argsort(results["rank_test_ndcg@10"])
print_table(
    [
        [results["params"][i]["learning_rate"], results["params"][i]["max_leaf_nodes"],
         results["mean_test_ndcg@10"][i], results["std_test_ndcg@10"][i],
         results["mean_test_map"][i], results["mean_test_gauc"][i],
         results["rank_test_ndcg@10"][i]]
        for i in order
    ],
    ["learning_rate", "max_leaf_nodes", "nDCG@10", "(std)", "MAP", "GAUC", "rank"],
)
print("best parameters:", search.best_params_, "\n")

# %%
# Held-out queries
# ----------------
# ``search.score`` routes the held-out ids to the refit metric. For more
# metrics, call skrank on the model's scores: :func:`skrank.evaluate`
# computes several at once. A model-free baseline ranks the candidates by
# their pixel distance to the query image.
best = search.best_estimator_
print(f"search.score on held-out queries (nDCG@10): "
      f"{search.score(X[test], y[test], query_id=qid[test]):.3f}\n")

metrics = ["ndcg@10", "map", "gauc", "mrr", "precision@5"]
distance = X[:, data.feature_names.index("distance")]
rankers = {
    "tuned model": best.predict_proba(X[test])[:, 1],
    "pixel distance": -distance[test],   # closer ranks first
}
print_table(
    [[name] + list(skrank.evaluate(y[test], score, query_id=qid[test],
                                   metrics=metrics).values())
     for name, score in rankers.items()],
    ["held-out queries"] + metrics,
)

# %%
# Query by query
# --------------
# A mean hides how the queries differ. With ``aggregate=None`` every metric
# returns one value per query. Each point below is one held-out query: above
# the diagonal, the tuned model ranks its candidates better than the pixel
# distance does. Points on the right edge are queries the distance already
# solves; the spread on the left is where learning pays.
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

per_query = {
    name: skrank.ndcg_score(y[test], score, query_id=qid[test], k=10, aggregate=None)
    for name, score in rankers.items()
}
assert (per_query["tuned model"].query_id == per_query["pixel distance"].query_id).all()
difference = per_query["tuned model"].value - per_query["pixel distance"].value
print(f"tuned model against pixel distance, nDCG@10 per held-out query: better on "
      f"{(difference > 0).mean():.0%}, equal on {(difference == 0).mean():.0%} "
      f"(mostly both perfect), worse on {(difference < 0).mean():.0%}\n")
if plt is not None:
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.scatter(per_query["pixel distance"].value, per_query["tuned model"].value,
               s=18, alpha=0.6)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("nDCG@10, pixel distance")
    ax.set_ylabel("nDCG@10, tuned model")
    ax.set_title("Held-out queries, one point each")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "tune_ranking_model.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")

# %%
# Pitfall 1: KFold splits queries
# -------------------------------
# ``KFold`` deals the rows of every query into all folds. Each test fold
# then holds only a quarter of each query's candidates, a shorter and easier
# list to rank, and training folds see the other candidates of the same
# queries. The scores go up, and the estimate no longer says how the model
# does on new queries. Only the splitter changes below.
from sklearn.model_selection import KFold, cross_validate

rows = []
for cv, params in [
    (GroupKFold(n_splits=4), {"query_id": qid[train], "groups": qid[train]}),
    (KFold(n_splits=4, shuffle=True, random_state=0), {"query_id": qid[train]}),
]:
    scores = cross_validate(best, X[train], y[train], cv=cv, scoring=scoring,
                            params=params, n_jobs=2)
    rows.append([type(cv).__name__] + [scores[f"test_{n}"].mean() for n in names])
print_table(rows, ["splitter"] + names)

# %%
# Pitfall 2: scoring all rows as one list
# ---------------------------------------
# Without query ids a metric ranks the whole test set as one list (this is
# what ``scoring="average_precision"`` does). nDCG@10 then looks at the 10
# highest-scored rows of 2,250 and says nothing about the queries; one-list
# AP rewards scores that are comparable *across* queries, which a ranking
# never needs. skrank's scorers refuse to do this silently: they raise a
# ``ValueError`` when no query id reaches them.
rows = []
for name, score in rankers.items():
    rows.append([
        name,
        skrank.ndcg_score(y[test], score, query_id=qid[test], k=10),
        skrank.ndcg_score(y[test], score, k=10),
        skrank.average_precision_score(y[test], score, query_id=qid[test]),
        skrank.average_precision_score(y[test], score),
    ])
print_table(rows, ["held-out queries", "nDCG@10 per query", "nDCG@10 one list",
                   "MAP per query", "AP one list"])

sklearn.set_config(enable_metadata_routing=False)
