"""
Tune a LightGBM ranker with GridSearchCV, early stopping on held-out queries
============================================================================

``lightgbm.LGBMRanker`` learns from whole queries: its ``fit`` wants
``group=``, the sizes of contiguous blocks of rows, one block per query.
scikit-learn's ``GridSearchCV`` hands each fold its rows with per-row
metadata, and no splitter or router can turn that into block sizes.
:class:`skrank.QueryGroupRanker` bridges the two: it takes one query id per
row, sorts each fold's rows by query and fits the ranker with ``group=``.

What you learn:

* tune ``LGBMRanker`` parameters (``estimator__num_leaves``) in
  ``GridSearchCV`` with folds that keep queries whole;
* stop boosting early on held-out *queries* (never rows), watching a skrank
  metric (tie-exact nDCG@10) computed by skrank inside LightGBM;
* compare the candidates on nDCG@10, MAP and FAP@10 from one multi-metric
  scorer, and score the refit model on queries it has never seen;
* which features matter, per query, with :func:`skrank.permutation_importance`.

The data is :func:`skrank.load_digits_retrieval`: each query is a
handwritten digit, its candidates are other digits, and a candidate is
relevant when it shows the same digit.
"""

try:
    import lightgbm  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: pip install lightgbm")
    raise SystemExit(0)


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
# The rows are shuffled on purpose: the wrapper needs no sorted input.
import numpy as np
from sklearn.model_selection import GroupShuffleSplit

import skrank

data = skrank.load_digits_retrieval(n_queries=300, n_candidates=30, random_state=0)
rng = np.random.default_rng(0)
shuffle = rng.permutation(len(data.target))
X, y, qid = data.data[shuffle], data.target[shuffle], data.query_id[shuffle]
train, test = next(
    GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0).split(X, y, qid)
)
print(
    f"{len(y)} rows in random order, {len(np.unique(qid))} queries; "
    f"{len(np.unique(qid[train]))} to tune on, {len(np.unique(qid[test]))} held out\n"
)

# %%
# The ranker, wrapped
# -------------------
# ``validation_fraction=0.2`` holds out a fifth of each training fold's
# *queries* inside ``fit`` and passes them to LightGBM as ``eval_set`` with
# ``eval_group``; ``eval_metric="ndcg@10"`` makes skrank's nDCG@10 the
# metric LightGBM watches, and ``early_stopping_rounds=20`` stops when it has
# not improved for 20 rounds. On small data one thread per fit is fastest
# (LightGBM's threads only wait for each other); parallelise the search
# instead, with ``GridSearchCV(..., n_jobs=2)``.
import sklearn
from lightgbm import LGBMRanker

sklearn.set_config(enable_metadata_routing=True)

ranker = skrank.QueryGroupRanker(
    LGBMRanker(n_estimators=300, learning_rate=0.05, min_child_samples=20,
               n_jobs=1, verbose=-1, random_state=0),
    validation_fraction=0.2,
    early_stopping_rounds=20,
    eval_metric="ndcg@10",
    random_state=0,
)

# %%
# Grid search with query-grouped folds
# ------------------------------------
# With metadata routing on, the ranker requests ``query_id`` for ``fit`` and
# the scorer requests it for scoring, both by default; ``GroupKFold`` reads
# ``groups``. One array feeds all three.
from sklearn.model_selection import GridSearchCV, GroupKFold

names = ["ndcg@10", "map", "fap@10"]
grid = {"estimator__num_leaves": [7, 31], "estimator__reg_lambda": [0.0, 5.0]}
search = GridSearchCV(
    ranker, grid, cv=GroupKFold(3), scoring=skrank.get_scorer(names),
    refit="ndcg@10",
).fit(X[train], y[train], query_id=qid[train], groups=qid[train])

results = search.cv_results_
rows = [
    [params["estimator__num_leaves"], params["estimator__reg_lambda"]]
    + [results[f"mean_test_{name}"][i] for name in names]
    + [results["rank_test_ndcg@10"][i]]
    for i, params in enumerate(results["params"])
]
print_table(rows, ["num_leaves", "reg_lambda", "nDCG@10", "MAP", "FAP@10", "rank"])
print("best:", search.best_params_)
print("boosting rounds kept by early stopping in the refit:",
      search.best_estimator_.best_iteration_, "\n")

# %%
# Early stopping, round by round
# ------------------------------
# The refit model held out a fifth of its training queries (whole queries,
# never rows) and scored them with skrank's tie-exact nDCG@10 after every
# boosting round. Training stopped once 20 rounds in a row brought no
# improvement; the model keeps the best round.
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

history = search.best_estimator_.estimator_.evals_result_
curve = next(iter(history.values()))["ndcg@10"]
if plt is not None:
    fig, ax = plt.subplots(figsize=(6, 4))
    rounds = np.arange(1, len(curve) + 1)
    ax.plot(rounds, curve, label="held-out queries of the refit")
    best = search.best_estimator_.best_iteration_
    ax.axvline(best, color="grey", linestyle="--", label=f"best round ({best})")
    ax.set_xlabel("boosting round")
    ax.set_ylabel("nDCG@10 (skrank, per query)")
    ax.set_title("LGBMRanker early stopping on held-out queries")
    ax.legend()
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "tune_lightgbm_ranker.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")

# %%
# Held-out queries
# ----------------
# The refit model (all tuning queries, again with early stopping on a fifth
# of them) scored on queries it has never seen.
held_out = skrank.evaluate(
    y[test], search.predict(X[test]), query_id=qid[test], metrics=names
)
print_table([[name, value] for name, value in held_out.items()],
            ["held-out metric", "value"])

# %%
# Which features matter, per query
# --------------------------------
# scikit-learn's ``permutation_importance`` cannot receive query ids;
# skrank's shuffles one feature at a time, keeps every row in its query and
# scores nDCG@10 per query.
importance = skrank.permutation_importance(
    search.best_estimator_, X[test], y[test], query_id=qid[test],
    scoring="ndcg@10", n_repeats=3, random_state=0,
)
top = np.argsort(-importance.importances_mean)[:5]
print_table(
    [[data.feature_names[i], importance.importances_mean[i],
      importance.importances_std[i]] for i in top],
    ["feature", "nDCG@10 drop", "std"],
)
sklearn.set_config(enable_metadata_routing=False)
