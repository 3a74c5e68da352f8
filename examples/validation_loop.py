"""
Ranking metrics in a validation loop
====================================

A model trained with mini-batches is validated with mini-batches too: the
validation set goes through the model one batch at a time, and the metrics
must be accumulated across batches. :class:`skrank.RankingAccumulator`
keeps that state: ``update`` it with each batch (PyTorch tensors are read as
they are, on CPU or GPU), read ``result()`` at the end of the epoch, and
``reset()`` it for the next one. Queries whose rows are all in the batch are
scored at once and let go (``complete=True``), so memory does not grow with
the validation set, unlike metrics that keep every row until the end.

This script trains a small linear scorer for a few epochs, with PyTorch when
it is installed and with plain numpy otherwise, validates it after every
epoch, and checks that the accumulated metrics equal :func:`skrank.evaluate`
on the whole validation set.
"""

# %%
# Data: queries of 20 candidates, relevance from hidden features
# ----------------------------------------------------------------
import numpy as np

rng = np.random.default_rng(0)
n_features, per_query = 8, 20
true_weights = rng.normal(size=n_features)


def make_queries(n_queries, first_id):
    """Features, graded relevance (0-2) and the query id of every row."""
    n_rows = n_queries * per_query
    features = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    signal = features @ true_weights + rng.normal(scale=1.5, size=n_rows)
    relevance = np.digitize(signal, [1.5, 3.0])  # 0, 1 or 2
    query_id = first_id + np.arange(n_rows) // per_query
    return features, relevance, query_id


train = make_queries(400, first_id=0)
valid = make_queries(200, first_id=10_000)
print(f"{len(train[2])} training rows, {len(valid[2])} validation rows")

# %%
# A model and its training step, in PyTorch or numpy
# --------------------------------------------------
# Both learn a linear score with a logistic loss on "relevant or not".
try:
    import torch
except ImportError:
    torch = None
    print("torch is not installed: the loop runs on numpy arrays")

if torch is not None:
    torch.manual_seed(0)
    model = torch.nn.Linear(n_features, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_function = torch.nn.BCEWithLogitsLoss()

    def as_batch(features, relevance, query_id):
        return (torch.from_numpy(features), torch.from_numpy(relevance),
                torch.from_numpy(query_id))

    def train_step(features, relevance):
        optimizer.zero_grad()
        loss = loss_function(model(features).squeeze(-1), (relevance > 0).float())
        loss.backward()
        optimizer.step()

    def predict(features):
        with torch.no_grad():
            return model(features).squeeze(-1)

else:
    weights = np.zeros(n_features)

    def as_batch(features, relevance, query_id):
        return features, relevance, query_id

    def train_step(features, relevance):
        global weights
        probability = 1 / (1 + np.exp(-(features @ weights)))
        gradient = features.T @ (probability - (relevance > 0)) / len(relevance)
        weights = weights - 0.05 * gradient

    def predict(features):
        return features @ weights


def batches(data, queries_per_batch):
    """Batches of whole queries, as a query-grouped data loader yields them."""
    rows = queries_per_batch * per_query
    for start in range(0, len(data[2]), rows):
        yield as_batch(*(column[start:start + rows] for column in data))


# %%
# The loop: train, then validate with an accumulator
# --------------------------------------------------
# The accumulator is made once; ``reset()`` empties it for each epoch. Each
# validation batch holds whole queries, so ``complete=True`` scores them
# at once: the accumulator then holds a few sums, never the rows.
from skrank import RankingAccumulator

metrics = ["ndcg@10", "map@10", "mrr", "recall@5"]
accumulator = RankingAccumulator(metrics)
history = []
for epoch in range(1, 6):
    for features, relevance, _ in batches(train, queries_per_batch=16):
        train_step(features, relevance)
    accumulator.reset()
    for features, relevance, query_id in batches(valid, queries_per_batch=25):
        accumulator.update(relevance, predict(features), query_id=query_id,
                           complete=True)
    scores = accumulator.result()
    history.append(scores)
    print(f"epoch {epoch}: " + "  ".join(f"{k} {v:.4f}" for k, v in scores.items()))

# %%
# The same numbers as one call on the whole validation set
# ---------------------------------------------------------
# The batching changes nothing: :func:`skrank.evaluate` on all the
# validation rows at once gives the last epoch's values (to rounding).
from skrank import evaluate

features, relevance, query_id = valid
all_scores = np.concatenate([
    np.asarray(predict(batch[0])) for batch in batches(valid, queries_per_batch=25)
])
at_once = evaluate(relevance, all_scores, query_id=query_id, metrics=metrics)
for name in metrics:
    print(f"{name:>9}: accumulated {history[-1][name]:.6f}, at once {at_once[name]:.6f}")
    assert abs(history[-1][name] - at_once[name]) < 1e-9

# %%
# Two workers, one result
# -----------------------
# Under data parallelism each worker validates its own share of the
# batches. The accumulators pickle, so they travel to one process, where
# ``merge`` adds them up; a query split between workers would be joined too
# (without ``complete=True`` its rows wait for the merge).
import pickle

workers = [RankingAccumulator(metrics), RankingAccumulator(metrics)]
for i, (features, relevance, query_id) in enumerate(batches(valid, queries_per_batch=25)):
    workers[i % 2].update(relevance, predict(features), query_id=query_id)
received = [pickle.loads(pickle.dumps(worker)) for worker in workers]
merged = received[0].merge(received[1])
print("merged from two workers:",
      "  ".join(f"{k} {v:.4f}" for k, v in merged.result().items()))

# %%
# Validation curves
# -----------------
import os
import tempfile

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

if plt is not None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    epochs = np.arange(1, len(history) + 1)
    for name in metrics:
        ax.plot(epochs, [scores[name] for scores in history], marker="o", label=name)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation metric")
    ax.set_xticks(epochs)
    ax.legend(loc="lower right")
    ax.set_title("Metrics accumulated over validation batches")
    fig.tight_layout()
    # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
    # documentation shows the figure itself), else to a new temporary
    # folder: never into the folder the script is run from
    plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
    if plot_path is None:
        folder = tempfile.mkdtemp(prefix="skrank-")
        plot_path = os.path.join(folder, "validation_loop.png")
    if plot_path:
        fig.savefig(plot_path, dpi=100)
        print(f"\nplot saved to {plot_path}")
