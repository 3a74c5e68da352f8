"""The quick suite of ``run.py --against``: each case's data and its timed call.

A case is made in two places. The parent (``guard.py``) calls
:func:`prepare` once per run: it writes the case's arrays (or files) into a
data folder, from ``bench_data``'s (and ``bench_clicks``') generators. A
child process, started with ``PYTHONPATH`` on one tree, calls
:func:`build` to load them and get a function of no argument: the call
that is timed. The same code runs for both trees; only ``skrank`` differs.

Sizes aim at a few tenths of a second per call on a quiet 2-core machine,
enough to time and small enough for several rounds on both trees in
minutes; Spark runs on 1e7 rows of Parquet. ``full=True`` (``--full``)
runs the TREC command on bench_trec's 2e6-line run.
"""

import inspect
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import bench_data  # noqa: E402

#: kinds of process: "python" cases share one child per (tree, round), "spark"
#: has its own (one JVM), "trec" cases are the command itself, one process each
PYTHON_CASES = ("evaluate", "evaluate_topk", "evaluate_by", "compare", "gridsearch",
                "clicks", "position_bias", "dask")
TREC_LAYOUTS = ("shuffled", "grouped", "ranked", "numeric", "unjudged")
SPARK_CASES = ("spark",)
NAMES = PYTHON_CASES + ("trec",) + SPARK_CASES

# bench_trec's measures, as `skrank evaluate -m` takes them
TREC_MEASURES = ["map", "P_10", "ndcg_cut_10", "recall_1000", "recip_rank", "bpref"]
SPARK_FOUR = ["ndcg@10", "map", "precision@10", "recall@10"]


def sizes(full):
    """Rows (or lines) of each data set, quick or ``--full``."""
    return {
        "evaluate": 1_000_000,  # bench_data's base case, 1e5 queries
        "evaluate_topk": 2_000_000,  # ndcg@10 alone: q10-binary-ties-int, grouped
        "evaluate_by": (300_000, 30_000),  # rows, queries; 20 segments, 1,000 resamples
        "compare": (100_000, 10_000),  # two systems, 500 resamples
        "gridsearch": 300_000,  # 2 features, 3 splits x 2 settings, 5 metrics
        "clicks": 1_000_000,  # per-row propensity array
        "position_bias": (200_000, 1_000),  # rows, queries of 10 documents; EM
        "dask": 500_000,  # 4 partitions, synchronous scheduler
        "trec": (2_000_000, 2_000) if full else (200_000, 200),  # lines, queries
        # a Spark child's time is mostly the JVM's start: 1e7 rows cost about
        # what 1e6 do
        "spark": (10_000_000, 1_000_000),
    }


# -- the parent: write the data ----------------------------------------------------
def prepare(names, root, *, full=False, cache=None):
    """Write the data of the cases ``names`` under ``root``.

    ``cache`` is a lasting folder for the Spark Parquet files (written once,
    reused by later runs). Returns what the parent needs:
    ``{"trec": {layout: (qrels, run)}}`` when the TREC case is chosen.
    """
    size = sizes(full)
    out = {}
    root = Path(root)
    if "evaluate" in names or "dask" in names:
        for name in ("evaluate", "dask"):
            arrays = bench_data.generate(bench_data.Config(size[name]), seed=0)
            np.savez(root / f"{name}.npz", y_true=arrays["y_true"],
                     y_score=arrays["y_score"], query_id=arrays["query_id"])
    if "evaluate_topk" in names:
        import bench_topk

        config = bench_data.Config(size["evaluate_topk"], ties="ties")
        arrays = bench_topk.layout_arrays(bench_data.generate(config, seed=0), "grouped")
        np.savez(root / "evaluate_topk.npz", y_true=arrays["y_true"],
                 y_score=arrays["y_score"], query_id=arrays["query_id"])
    if "evaluate_by" in names:
        rows, queries = size["evaluate_by"]
        y_true, y_score, query_id, segment = bench_data.segment_data(rows, queries, 20)
        np.savez(root / "evaluate_by.npz", y_true=y_true, y_score=y_score,
                 query_id=query_id, segment=segment)
    if "compare" in names:
        rows, queries = size["compare"]
        y_true, y_score, query_id, _ = bench_data.segment_data(rows, queries, 1, seed=1)
        other = y_score + np.random.default_rng(2).normal(size=rows)
        np.savez(root / "compare.npz", y_true=y_true, a=y_score, b=other,
                 query_id=query_id)
    if "gridsearch" in names:
        X, y, query_id = bench_data.features_data(size["gridsearch"], n_features=2)
        np.savez(root / "gridsearch.npz", X=X, y=y, query_id=query_id)
    if "clicks" in names or "position_bias" in names:
        import bench_clicks  # its generators; it imports skrank (any tree will do)

        if "clicks" in names:
            data = bench_clicks.evaluate_data(size["clicks"])
            np.savez(root / "clicks.npz", click=data["click"], y_score=data["y_score"],
                     position=data["position"], list_id=data["query_id"])
        if "position_bias" in names:
            rows, queries = size["position_bias"]
            data = bench_clicks.em_data(rows, n_queries=queries)
            np.savez(root / "position_bias.npz", click=data["click"],
                     position=data["position"], query=data["query"], doc=data["doc"])
    if "trec" in names:
        lines, queries = size["trec"]
        files = bench_data.trec_files(root, lines, queries)
        files["sparse_qrels"] = bench_data.sparse_qrels(files["qrels"],
                                                        root / "sparse_qrels.txt")
        out["trec"] = {
            "shuffled": (files["qrels"], files["run"]),
            "grouped": (files["qrels"], files["grouped"]),
            "ranked": (files["qrels"], files["ranked"]),
            "numeric": (files["qrels"], files["numeric"]),
            "unjudged": (files["sparse_qrels"], files["run"]),
        }
    if "spark" in names:
        rows, queries = size["spark"]
        path = Path(cache or root) / f"spark-{bench_data.format_rows(rows)}"
        bench_data.write_parquet(path, rows, queries, seed=0)
        (root / "spark_path.txt").write_text(str(path))
    return out


def trec_command(python, qrels, run):
    """The TREC command on one layout, as bench_trec runs it."""
    measures = sum((["-m", m] for m in TREC_MEASURES), [])
    return [python, "-m", "skrank", "evaluate", str(qrels), str(run), *measures,
            "--compat", "trec_eval", "--format", "trec"]


# -- the child: load the data, return the call -------------------------------------
def position_bias_keywords(function, query, doc):
    """Keywords for ``estimate_position_bias`` that this revision accepts.

    Before issue 45 it took ``query_id=`` (the query); after, ``list_id=``
    (one impression: 10 rows of the data) and ``query_id=``. ``method`` is
    always passed.
    """
    parameters = inspect.signature(function).parameters
    keywords = {"doc_id": doc, "method": "em", "n_resamples": 0}
    if "list_id" in parameters:
        keywords["list_id"] = np.arange(query.shape[0]) // 10
    if "query_id" in parameters:
        keywords["query_id"] = query
    return keywords


def build(name, root):
    """A function of no argument: case ``name`` on the data under ``root``."""
    root = Path(root)
    if name == "spark":
        return _spark(Path((root / "spark_path.txt").read_text()))
    d = dict(np.load(root / f"{name}.npz"))
    import skrank
    import skrank.clicks

    if name == "evaluate":
        return lambda: skrank.evaluate(d["y_true"], d["y_score"],
                                       query_id=d["query_id"])
    if name == "evaluate_topk":
        return lambda: skrank.evaluate(d["y_true"], d["y_score"],
                                       query_id=d["query_id"], metrics=["ndcg@10"])
    if name == "evaluate_by":
        return lambda: skrank.evaluate_by(
            d["y_true"], d["y_score"], by=d["segment"], query_id=d["query_id"],
            n_resamples=1000, random_state=0)
    if name == "compare":
        return lambda: skrank.compare(
            d["y_true"], {"a": d["a"], "b": d["b"]}, query_id=d["query_id"],
            n_resamples=500, random_state=0)
    if name == "gridsearch":
        return _gridsearch(d)
    if name == "clicks":
        propensity = 1.0 / d["position"]  # a per-row array, as read from a log
        function = skrank.clicks.evaluate
        # the lists were query_id= before the click metrics' rename
        lists = ("list_id" if "list_id" in inspect.signature(function).parameters
                 else "query_id")
        return lambda: function(
            d["click"], d["y_score"], position=d["position"], **{lists: d["list_id"]},
            propensity=propensity, metrics=["dcg@10", "precision@10", "arp"])
    if name == "position_bias":
        function = skrank.clicks.estimate_position_bias
        keywords = position_bias_keywords(function, d["query"], d["doc"])
        return lambda: function(d["click"], d["position"], **keywords)
    if name == "dask":
        return _dask(d)
    raise ValueError(f"no case named {name!r}")


def _gridsearch(d):
    """GridSearchCV with skrank's multi-metric scorer and routed query ids.

    Each split fits on a tenth of the queries and scores the other nine
    tenths, so that most of the time is the scorers' (a linear model on two
    features fits in a few milliseconds); ``error_score="raise"``: a scorer
    that fails stops the case instead of scoring nan in no time.
    """
    import sklearn
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import GridSearchCV

    import skrank

    fold = d["query_id"] % 10
    splits = [(np.flatnonzero(fold == i), np.flatnonzero(fold != i)) for i in range(3)]
    scoring = skrank.get_scorer(["ndcg@10", "map", "mrr", "precision@10", "recall@10"])

    def search():
        with sklearn.config_context(enable_metadata_routing=True):
            GridSearchCV(
                LinearRegression(), {"fit_intercept": [True, False]}, cv=splits,
                scoring=scoring, refit=False, error_score="raise",
            ).fit(d["X"], d["y"], query_id=d["query_id"])

    return search


def _dask(d):
    import dask
    import dask.dataframe as dd
    import pandas as pd

    import skrank.dask

    frame = pd.DataFrame({"qid": d["query_id"], "label": d["y_true"],
                          "score": d["y_score"]})
    df = dd.from_pandas(frame, npartitions=4)

    def run():
        with dask.config.set(scheduler="synchronous"):
            return skrank.dask.evaluate(df)

    return run


_SPARK = {}


def _spark(path):
    """skrank.spark.evaluate on the Parquet files, in one local[2] session."""
    import bench_spark

    warnings.filterwarnings("ignore", "PySpark does not yet fully support",
                            FutureWarning)
    spark = _SPARK.get("session")
    if spark is None:
        spark = _SPARK["session"] = bench_spark.spark_session(2, "3g", None)
    df = spark.read.parquet(str(path))
    return lambda: bench_spark.skrank_spark(df, SPARK_FOUR)


def stop_spark():
    spark = _SPARK.pop("session", None)
    if spark is not None:
        spark.stop()
