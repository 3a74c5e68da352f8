"""
How many results should a query return? Learning the cutoff with FAP@k
======================================================================

A ranking model orders each query's candidates, but a search box, a
recommendation strip or a de-duplication tool must also decide **where to
stop**. Return too few and relevant items are missed; return too many and
the user wades through noise. This example shows how
:class:`skrank.FAPCutoffClassifier` learns that cutoff from data, by
maximising FAP@k (F-measured Average Precision) over out-of-fold rankings,
and how it compares with the usual fixed "top-k" on queries it never saw.

What you learn:

* fit the selector with query ids, read the cutoff it chose (``best_k_``)
  and the curve it maximised (``cv_results_``);
* the two kinds of cutoff: one rank ``k`` for every query, or one score
  threshold whose set size adapts to each query;
* evaluate the returned sets per query (F1 of the set, FAP of the list) on
  held-out queries, against fixed top-k baselines;
* draw the F@k, AP@k and FAP@k curves with the chosen cutoff marked.

The task is query-by-example image retrieval built from scikit-learn's
handwritten digits (:func:`skrank.load_digits_retrieval`, no download):
each query is an image, its 30 candidates are other images, and a
candidate is relevant when it shows the same digit, about 3 per query.
"""

try:
    import pandas  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: pip install pandas")
    raise SystemExit(0)

# %%
# Data: 300 queries of 30 candidates, split by query
# --------------------------------------------------
# ``GroupShuffleSplit`` keeps every query whole, so the held-out queries are
# entirely new to the model and to the cutoff.
import numpy as np
from sklearn.model_selection import GroupShuffleSplit

from skrank import load_digits_retrieval

data = load_digits_retrieval(n_queries=300, n_candidates=30, random_state=0)
X, y, query_id = data.data, data.target, data.query_id
train, test = next(
    GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0).split(
        X, y, groups=query_id
    )
)
print(
    f"{np.unique(query_id[train]).size} training queries, "
    f"{np.unique(query_id[test]).size} held-out queries, "
    f"{y.mean() * 30:.1f} relevant candidates per query on average"
)

# %%
# Learn the cutoff
# ----------------
# The inner model is a plain logistic regression on the pair features; the
# selector scores every training query with a model that did not see it
# (5 query-grouped folds), computes the mean FAP@k for every k, and keeps the
# k where it peaks. ``cutoff="score"`` instead keeps one score threshold, so
# confident queries can return more rows and doubtful ones fewer.
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skrank import FAPCutoffClassifier

model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
by_rank = FAPCutoffClassifier(model, cv=5)
by_rank.fit(X[train], y[train], query_id=query_id[train])
by_score = FAPCutoffClassifier(model, cutoff="score", cv=5)
by_score.fit(X[train], y[train], query_id=query_id[train])

print(f"\nrank cutoff:  best_k_ = {by_rank.best_k_} "
      f"(out-of-fold mean FAP@k {by_rank.best_score_:.3f})")
print(f"score cutoff: best_threshold_ = {by_score.best_threshold_:.3f} "
      f"(out-of-fold mean FAP {by_score.best_score_:.3f})")
print("out-of-fold mean FAP@k for k = 1..10:",
      np.round(by_rank.cv_results_["fap"][:10], 3))

# %%
# Compare with fixed top-k on held-out queries
# --------------------------------------------
# Every method ranks with the same refitted model; only the set returned per
# query differs. Two per-query measures, averaged over the held-out queries
# that have a relevant candidate:
#
# * **F1 of the returned set**: does the set match the relevant candidates?
# * **FAP of the returned list**: F1 of the set combined with the AP of its
#   order (:func:`skrank.fap_score` at the set's size).
import pandas as pd

from skrank import fap_score, set_fbeta_score

X_test, y_test, q_test = X[test], y[test], query_id[test]
score = by_rank.predict_proba(X_test)[:, 1]


def top_k_sets(score, query_id, k):
    """1 for the k best-scored rows of each query (rows tied with the k-th too)."""
    rank = pd.Series(score).groupby(query_id).rank(ascending=False, method="min")
    return (rank.to_numpy() <= k).astype(int)


def evaluate_sets(name, y_true, score, returned, query_id):
    """Mean per-query F1 of the set, FAP of the list cut at the set, set size."""
    fap = []
    for q in np.unique(query_id):  # each query is cut at its own set size
        rows = query_id == q
        k = int(returned[rows].sum())
        if y_true[rows].any():  # like skrank's no_relevant="skip"
            fap.append(fap_score(y_true[rows], score[rows], k=k) if k else 0.0)
    size = np.bincount(np.unique(query_id, return_inverse=True)[1], weights=returned)
    return {"method": name,
            "set F1": set_fbeta_score(y_true, returned, query_id=query_id),
            "FAP": np.mean(fap), "mean set size": size.mean()}


rows = [
    evaluate_sets(
        f"top-{k} (fixed)", y_test, score, top_k_sets(score, q_test, k), q_test
    )
    for k in (1, 3, 5, 10)
]
rows.append(
    evaluate_sets(
        f"FAPCutoffClassifier rank (k={by_rank.best_k_})",
        y_test, score, by_rank.predict(X_test, query_id=q_test), q_test,
    )
)
rows.append(
    evaluate_sets(
        "FAPCutoffClassifier score",
        y_test, by_score.predict_proba(X_test)[:, 1], by_score.predict(X_test), q_test,
    )
)
# the best fixed k *in hindsight*, chosen on the held-out queries themselves:
# an upper bound for any fixed k, not a method one could deploy
hindsight = max(
    (evaluate_sets(f"top-{k} (best in hindsight)", y_test, score,
                   top_k_sets(score, q_test, k), q_test) for k in range(1, 31)),
    key=lambda row: row["FAP"],
)
rows.append(hindsight)
table = pd.DataFrame(rows).set_index("method")
print("\nHeld-out queries (mean over queries):")
print(table.round(3).to_string())

# %%
# The curve the selector maximised
# --------------------------------
# Left: the out-of-fold curves the cutoff was chosen on. Right: the same
# curves on the held-out queries, with the learnt cutoff marked. F@k rises
# while the set gathers relevant rows and falls once it only adds noise; AP@k
# only rises; FAP@k peaks where the list should stop.
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

from skrank import FAPCurveDisplay

if plt is not None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    FAPCurveDisplay.from_estimator(by_rank, ax=left, name="out-of-fold")
    FAPCurveDisplay.from_estimator(by_rank, X_test, y_test, query_id=q_test, ax=right,
                                   name="held-out")
    left.set_title("Training queries, out of fold")
    right.set_title("Held-out queries")
    fig.suptitle("Mean F1@k, AP@k and FAP@k against the cutoff k (digits retrieval)")
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "choose_cutoff.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")
