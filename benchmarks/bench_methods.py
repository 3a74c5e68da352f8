"""What the benchmark times: skrank, the floor and the peers, as Method objects.

Methods come in groups; each group runs in its own worker process (so
each tool's imports, JIT caches and allocator state stay out of the
others' memory numbers). A method has a ``task`` (what it computes, e.g.
``"ndcg@10"`` or ``"evaluate5"``) that pairs it with skrank's method for
the same task, and a ``stage``:

* ``total``: from the arrays ``y_true``, ``y_score``, ``query_id`` to the
  mean over queries, everything included (the number the targets use);
* ``convert``: only turning the arrays into the tool's input (ranx
  ``Qrels``/``Run``, trec_eval's dicts, torch tensors);
* ``compute``: only the tool's own evaluation, on converted input made by
  an untimed ``setup``.

Conventions differ between tools (ties, queries without a relevant row,
gains), so values are recorded for a look but never compared here; the
test suite cross-checks values where definitions agree.
"""

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# skrank's metrics as the issue lists them: (task, function name, keywords)
SKRANK_METRICS = (
    ("ndcg@10", "ndcg_score", {"k": 10}),
    ("dcg@10", "dcg_score", {"k": 10}),
    ("map", "average_precision_score", {}),
    ("map@10", "average_precision_score", {"k": 10}),
    ("mrr", "reciprocal_rank_score", {}),
    ("precision@10", "precision_at_k_score", {"k": 10}),
    ("recall@10", "recall_at_k_score", {"k": 10}),
    ("f1@10", "fbeta_at_k_score", {"k": 10}),
    ("fap@10", "fap_score", {"k": 10}),
    ("r_precision", "r_precision_score", {}),
    ("hit_rate@10", "hit_rate_score", {"k": 10}),
)
FAP_CURVE_MAX_K = 100
# the five metrics of evaluate(), and the same five in each peer's words
EVALUATE5 = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")
RANX_EVALUATE5 = ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]
TREC_EVALUATE5 = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.10"}
TREC_NDCG = {"ndcg_cut.10"}

GROUPS = ("skrank", "ranx", "trec_eval", "torchmetrics", "pandas", "dictloop")


@dataclass
class Method:
    name: str  # unique in a run, e.g. "ranx compute evaluate5"
    tool: str  # "floor", "skrank", "ranx", ...
    task: str  # "ndcg@10", "evaluate5", "gauc", "convert", "sort", ...
    stage: str  # "total", "convert" or "compute"
    run: Callable[[Any], Any]  # run(state) -> value
    setup: Callable[[], Any] | None = None  # untimed; its result is run's state
    numpy_only: bool = False  # all allocations seen by tracemalloc


def floor_method(arrays):
    """The physical floor: one lexsort of the same arrays, on integer codes."""
    y_score, codes = arrays["y_score"], arrays["codes"]
    return Method("floor lexsort", "floor", "sort", "total",
                  lambda state: np.lexsort((-y_score, codes)), numpy_only=True)


def build(group, arrays):
    """The methods of one group on these arrays (the floor is added by the worker)."""
    return {
        "skrank": _skrank,
        "ranx": _ranx,
        "trec_eval": _trec_eval,
        "torchmetrics": _torchmetrics,
        "pandas": _pandas,
        "dictloop": _dictloop,
    }[group](arrays)


def binary_labels(y_true):
    """GAUC needs 0/1 labels: graded data is binarised (grade > 0), untimed."""
    return (y_true > 0).astype(y_true.dtype)


# -- skrank --------------------------------------------------------------------
def _skrank(arrays):
    import skrank

    y_true, y_score, query_id = arrays["y_true"], arrays["y_score"], arrays["query_id"]
    y_binary = binary_labels(y_true)

    def metric(func, options):
        return lambda state: func(y_true, y_score, query_id=query_id, **options)

    methods = [
        Method(f"skrank {task}", "skrank", task, "total",
               metric(getattr(skrank, func), options), numpy_only=True)
        for task, func, options in SKRANK_METRICS
    ]
    methods.append(Method(
        "skrank fap_curve", "skrank", "fap_curve", "total",
        lambda state: skrank.fap_curve(y_true, y_score, query_id=query_id,
                                       max_k=FAP_CURVE_MAX_K),
        numpy_only=True))
    methods.append(Method(
        "skrank gauc", "skrank", "gauc", "total",
        lambda state: skrank.gauc_score(y_binary, y_score, query_id=query_id),
        numpy_only=True))
    methods.append(Method(
        "skrank evaluate5", "skrank", "evaluate5", "total",
        lambda state: skrank.evaluate(y_true, y_score, query_id=query_id,
                                      metrics=list(EVALUATE5)),
        numpy_only=True))
    return methods


# -- nested dicts {query: {doc: value}}, the input of ranx and trec_eval ------------
def nested_dicts(y_true, y_score, query_id):
    """{query: {doc: relevance}} and {query: {doc: score}} with string keys.

    Rows have no document id, so a row's id is its position among its
    query's rows ("d0", "d1", ...). This is a fast way to build the dicts
    (one numpy sort by query, then one dict per query); ``ranx``'s own
    ``from_df`` runs a pandas ``groupby().apply`` and is slower.
    """
    order = np.argsort(query_id, kind="stable")
    ids = query_id[order]
    new = np.empty(ids.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(ids[1:], ids[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    bounds = np.append(starts, ids.shape[0]).tolist()
    keys = [str(key) for key in ids[starts].tolist()]
    docs = [f"d{i}" for i in range(int(np.diff(bounds).max()))]
    relevance = y_true[order].tolist()
    score = y_score[order].tolist()
    qrels, run = {}, {}
    for key, begin, end in zip(keys, bounds[:-1], bounds[1:]):
        qrels[key] = dict(zip(docs, relevance[begin:end]))
        run[key] = dict(zip(docs, score[begin:end]))
    return qrels, run


# -- ranx ----------------------------------------------------------------------
def _ranx(arrays):
    import ranx

    y_true, y_score, query_id = arrays["y_true"], arrays["y_score"], arrays["query_id"]

    def convert(state=None):
        qrels, run = nested_dicts(y_true, y_score, query_id)
        return ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run)

    def compute(metrics):
        return lambda state: ranx.evaluate(state[0], state[1], metrics)

    def total(metrics):
        return lambda state: ranx.evaluate(*convert(), metrics)

    return [
        Method("ranx convert", "ranx", "convert", "convert", convert),
        Method("ranx compute ndcg@10", "ranx", "ndcg@10", "compute",
               compute("ndcg@10"), setup=convert),
        Method("ranx compute evaluate5", "ranx", "evaluate5", "compute",
               compute(RANX_EVALUATE5), setup=convert),
        Method("ranx total ndcg@10", "ranx", "ndcg@10", "total", total("ndcg@10")),
        Method("ranx total evaluate5", "ranx", "evaluate5", "total",
               total(RANX_EVALUATE5)),
    ]


# -- trec_eval (pytrec_eval) ---------------------------------------------------
def _trec_eval(arrays):
    import pytrec_eval

    y_true, y_score, query_id = arrays["y_true"], arrays["y_score"], arrays["query_id"]

    def convert(state=None):
        return nested_dicts(y_true, y_score, query_id)

    def compute(measures):
        def run(state):
            qrels, run_ = state
            per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run_)
            names = next(iter(per_query.values())).keys()
            return {name: float(np.mean([q[name] for q in per_query.values()]))
                    for name in names}
        return run

    def total(measures):
        compute_ = compute(measures)
        return lambda state: compute_(convert())

    return [
        Method("trec_eval convert", "trec_eval", "convert", "convert", convert),
        Method("trec_eval compute ndcg@10", "trec_eval", "ndcg@10", "compute",
               compute(TREC_NDCG), setup=convert),
        Method("trec_eval compute evaluate5", "trec_eval", "evaluate5", "compute",
               compute(TREC_EVALUATE5), setup=convert),
        Method("trec_eval total ndcg@10", "trec_eval", "ndcg@10", "total",
               total(TREC_NDCG)),
        Method("trec_eval total evaluate5", "trec_eval", "evaluate5", "total",
               total(TREC_EVALUATE5)),
    ]


# -- torchmetrics --------------------------------------------------------------
def _torchmetrics(arrays):
    import torch
    from torchmetrics import MetricCollection
    from torchmetrics.retrieval import (
        RetrievalAUROC,
        RetrievalMAP,
        RetrievalMRR,
        RetrievalNormalizedDCG,
        RetrievalPrecision,
        RetrievalRecall,
    )

    y_true, y_score, query_id = arrays["y_true"], arrays["y_score"], arrays["query_id"]

    def convert(state=None):
        """Tensors; ``indexes`` must be integers, so string ids are factorised."""
        if query_id.dtype.kind in "iu":
            indexes = torch.from_numpy(query_id)
        else:
            indexes = torch.from_numpy(np.unique(query_id, return_inverse=True)[1])
        return {
            "preds": torch.from_numpy(y_score),
            "graded": torch.from_numpy(y_true),
            "binary": torch.from_numpy(y_true > 0),
            "indexes": indexes,
        }

    skip = {"empty_target_action": "skip"}  # like skrank's no_relevant="skip"

    def ndcg(tensors):
        metric = RetrievalNormalizedDCG(top_k=10, **skip)
        return float(metric(tensors["preds"], tensors["graded"],
                            indexes=tensors["indexes"]))

    def evaluate5(tensors):
        values = {"ndcg@10": ndcg(tensors)}  # graded targets
        binary = MetricCollection({  # these accept binary targets only
            "map": RetrievalMAP(**skip),
            "mrr": RetrievalMRR(**skip),
            "precision@10": RetrievalPrecision(top_k=10, **skip),
            "recall@10": RetrievalRecall(top_k=10, **skip),
        })
        out = binary(tensors["preds"], tensors["binary"], indexes=tensors["indexes"])
        values.update({name: float(value) for name, value in out.items()})
        return values

    def gauc(tensors):
        metric = RetrievalAUROC(**skip)  # mean over queries, unweighted
        return float(metric(tensors["preds"], tensors["binary"],
                            indexes=tensors["indexes"]))

    return [
        Method("torchmetrics convert", "torchmetrics", "convert", "convert", convert),
        Method("torchmetrics compute ndcg@10", "torchmetrics", "ndcg@10", "compute",
               ndcg, setup=convert),
        Method("torchmetrics total ndcg@10", "torchmetrics", "ndcg@10", "total",
               lambda state: ndcg(convert())),
        Method("torchmetrics total evaluate5", "torchmetrics", "evaluate5", "total",
               lambda state: evaluate5(convert())),
        Method("torchmetrics total gauc", "torchmetrics", "gauc", "total",
               lambda state: gauc(convert())),
    ]


# -- what users write today: pandas groupby + scikit-learn, a dict loop -------------
def _pandas(arrays):
    import pandas as pd
    from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score

    y_true, y_score, query_id = arrays["y_true"], arrays["y_score"], arrays["query_id"]
    y_binary = binary_labels(y_true)

    def frame(labels):
        return pd.DataFrame({"q": query_id, "y": labels, "s": y_score})

    def gauc(state):
        """Per-query AUC of the queries with both classes, weighted by their rows."""
        def auc(g):
            if g["y"].nunique() < 2:
                return np.nan
            return roc_auc_score(g["y"], g["s"])

        groups = frame(y_binary).groupby("q")[["y", "s"]]
        per_query = groups.apply(auc)
        size = groups.size()
        keep = per_query.notna()
        return float(np.average(per_query[keep], weights=size[keep]))

    def mean_ap(state):
        def ap(g):
            relevant = g["y"] > 0
            if not relevant.any():
                return np.nan
            return average_precision_score(relevant, g["s"])

        return float(frame(y_true).groupby("q")[["y", "s"]].apply(ap).mean())

    def ndcg10(state):
        def ndcg(g):
            if len(g) < 2 or not (g["y"] > 0).any():  # sklearn needs 2 rows
                return np.nan
            return ndcg_score([g["y"].to_numpy()], [g["s"].to_numpy()], k=10)

        return float(frame(y_true).groupby("q")[["y", "s"]].apply(ndcg).mean())

    return [
        Method("pandas+sklearn gauc", "pandas+sklearn", "gauc", "total", gauc),
        Method("pandas+sklearn map", "pandas+sklearn", "map", "total", mean_ap),
        Method("pandas+sklearn ndcg@10", "pandas+sklearn", "ndcg@10", "total", ndcg10),
    ]


def _dictloop(arrays):
    from sklearn.metrics import roc_auc_score

    y_binary = binary_labels(arrays["y_true"])
    y_score, query_id = arrays["y_score"], arrays["query_id"]

    def gauc(state):
        """The GAUC loop of CTR code bases: group rows in a dict, AUC per user."""
        groups = {}
        for user, label, score in zip(query_id.tolist(), y_binary.tolist(),
                                      y_score.tolist()):
            if user not in groups:
                groups[user] = ([], [])
            groups[user][0].append(label)
            groups[user][1].append(score)
        total = weight = 0.0
        for labels, scores in groups.values():
            if 0 < sum(labels) < len(labels):
                total += len(labels) * roc_auc_score(labels, scores)
                weight += len(labels)
        return total / weight

    return [Method("dict loop gauc", "dict loop", "gauc", "total", gauc)]
