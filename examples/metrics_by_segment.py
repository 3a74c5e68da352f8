"""
Metrics by segment, with confidence intervals over queries
==========================================================

One number rarely settles whether a ranking model is good enough. Is it
worse on mobile than on desktop? On tail queries than on head ones? And is
the gap larger than the noise of a few hundred queries?

What you learn:

* compute nDCG@10 and MAP per segment with :func:`skrank.evaluate_by`, each
  segment's value equal to :func:`skrank.evaluate` on its rows;
* read the intervals, which come from a bootstrap over **queries** (the rows
  of one query are not independent draws), stratified by segment;
* subtract the overall value or another segment, with intervals from the
  same resamples, and test two systems segment by segment with Holm's
  correction;
* draw the forest plot.

The task is query-by-example image retrieval built from scikit-learn's
handwritten digits (:func:`skrank.load_digits_retrieval`, no download): each
query is an image, its 30 candidates are other images, and a candidate is
relevant when it shows the same digit. The digits carry no device and no
traffic, so this example attaches both to the queries by simulation, and
says so where it does.
"""

# %%
# A model, scored on held-out queries
# -----------------------------------
# Train on three quarters of the queries, score the rest.
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GroupShuffleSplit

import skrank

data = skrank.load_digits_retrieval(n_queries=600, n_candidates=30, random_state=0)
X, y, qid = data.data, data.target, data.query_id
train, test = next(
    GroupShuffleSplit(n_splits=1, test_size=0.5, random_state=0).split(X, y, qid)
)
model = HistGradientBoostingClassifier(max_iter=60, random_state=0)
model.fit(X[train], y[train])
y_test, q_test = y[test], qid[test]
score = model.predict_proba(X[test])[:, 1]
print(f"{len(np.unique(q_test))} held-out queries, {len(y_test)} rows")

# %%
# Segments: a device and a traffic band per query (simulated)
# -----------------------------------------------------------
# A segment is a property of a query: every row of a query carries the same
# device and the same traffic band. Here the devices are drawn at random
# (half desktop, 40% mobile, 10% tablet), and the mobile app is made to serve
# a cheaper model, whose scores carry noise. Traffic follows a long tail:
# the 20% most frequent queries are "head", the others "tail".
rng = np.random.default_rng(0)
queries = np.unique(q_test)
device_of = dict(zip(queries, rng.choice(["desktop", "mobile", "tablet"],
                                         size=len(queries), p=[0.5, 0.4, 0.1])))
traffic = rng.zipf(1.5, size=len(queries))
head = traffic >= np.quantile(traffic, 0.8)
band_of = dict(zip(queries, np.where(head, "head", "tail")))
device = np.array([device_of[q] for q in q_test])
band = np.array([band_of[q] for q in q_test])
served = np.where(device == "mobile", score + rng.normal(0, 0.15, len(score)), score)

# %%
# nDCG@10 and MAP by device
# -------------------------
# The intervals resample whole queries within each device (1,000 resamples,
# 95%, percentile method). The overall line is :func:`skrank.evaluate` on
# all rows.
by_device = skrank.evaluate_by(y_test, served, query_id=q_test, by={"device": device},
                               metrics=["ndcg@10", "map"], random_state=0)
print(by_device)

# %%
# Each device against the overall value: the differences' intervals come
# from the same resamples (paired: a device's queries are part of the
# overall mean in every resample).
print(by_device.difference())

# %%
# By traffic band, and by both
# ----------------------------
# Segments from several columns are their combinations.
by_band = skrank.evaluate_by(y_test, served, query_id=q_test, by={"traffic": band},
                             metrics=["ndcg@10", "map"], random_state=0)
print(by_band)
both = skrank.evaluate_by(y_test, served, query_id=q_test,
                          by={"device": device, "traffic": band},
                          metrics=["ndcg@10", "map"], random_state=0)
print(both.to_frame()[["device", "traffic", "metric", "value", "ci_low", "ci_high",
                       "n_queries"]].round(3).to_string(index=False))

# %%
# Is mobile's loss real? Compare the two models within each device
# ----------------------------------------------------------------
# Mobile's interval overlaps the others: one system's intervals per segment
# cannot tell a small loss from noise. The same queries scored by the full
# model and by what each device served can: a paired test per device (each
# query against itself), with Holm's correction over the devices. Only
# mobile's difference is far from zero.
comparison = skrank.compare(y_test, {"served": served, "full model": score},
                            query_id=q_test, by={"device": device}, metrics=["ndcg@10"],
                            n_resamples=2000, random_state=0)
print(comparison)

# %%
# The forest plot
# ---------------
# One panel per metric, one row per segment, the 95% interval as a bar and
# the overall value as a dashed line.
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

if plt is not None:
    display = both.plot()
    display.figure_.suptitle("Held-out digits queries by device and traffic band")
    display.figure_.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "metrics_by_segment.png")
    if plot_path:
        display.figure_.savefig(plot_path, dpi=100)
        print(f"\nforest plot saved to {plot_path}")
