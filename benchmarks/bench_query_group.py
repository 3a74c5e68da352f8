"""QueryGroupRanker's overhead against a bare LightGBM fit on pre-grouped rows.

The bare fit is what a user writes when the rows already sit query by
query: ``LGBMRanker().fit(X, y, group=sizes)``. The wrapper gets the same
rows shuffled, with one query id per row (strings or integers), and must
sort them, take the rows and fit. Both fits build the same model; the ratio
wrapper / bare is the cost of the convenience. Both run in one process,
alternating, and the minimum of ``--repeats`` runs is reported, with the
wrapper's own work (sort and row take, no fit) timed on its own.

    python benchmarks/bench_query_group.py               # 1e5 and 1e6 rows
    python benchmarks/bench_query_group.py --sizes 1e5 --repeats 3

Data: 20 float64 features, queries of 2 to 60 rows (uniform), binary labels
at rate 0.1, rows shuffled; LightGBM with ``--trees`` trees (20) of 31
leaves on ``--threads`` threads (1: a single thread is far less disturbed
by other work on the machine than LightGBM's default of all cores).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
from bench_data import grouped_features  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1e5", "1e6"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)

    import lightgbm
    import sklearn

    import skrank
    from skrank.model_selection._query_group import QueryGroupRanker, _QueryLayout

    params = {"n_estimators": args.trees, "n_jobs": args.threads, "verbose": -1}
    header = ("rows", "queries", "ids", "bare fit s", "wrapper fit s", "ratio",
              "sort+take s")
    lines = [f"skrank {skrank.__version__}, lightgbm {lightgbm.__version__}, "
             f"scikit-learn {sklearn.__version__}; {params}; minimum of {args.repeats} "
             "runs\n", " | ".join(header), " | ".join("---" for _ in header)]
    print("\n".join(lines))
    data = {"params": params, "repeats": args.repeats, "runs": []}
    for size in args.sizes:
        X0, y0, query, sizes = grouped_features(int(float(size)))
        rng = np.random.default_rng(1)
        shuffle = rng.permutation(query.shape[0])
        Xs, ys = X0[shuffle], y0[shuffle]
        # the pre-grouped rows: the shuffled rows sorted stably by query, the
        # order the wrapper fits in (LightGBM's model depends on the row order
        # inside a query, so this makes the two fits build the same model)
        grouped = np.argsort(query[shuffle], kind="stable")
        X, y = Xs[grouped], ys[grouped]
        for kind in ("int", "str"):
            ids = query[shuffle]
            if kind == "str":
                ids = np.array([f"q{q:07d}" for q in ids])
            model = lightgbm.LGBMRanker(**params)
            ranker = QueryGroupRanker(model)

            def bare():
                lightgbm.LGBMRanker(**params).fit(X, y, group=sizes)

            def wrapped():
                ranker.fit(Xs, ys, query_id=ids)

            def overhead():
                keys = skrank.model_selection._query_group._query_keys(ids, len(ids))
                layout = _QueryLayout(keys)
                Xs[layout.order], ys[layout.order]

            # alternate, so both see the same machine
            timings = bench_common.alternate(
                {"bare": bare, "wrapper": wrapped, "sort+take": overhead}, args.repeats)
            bare_s, wrapped_s, sort_s = (timings[k].best for k in timings)
            np.testing.assert_allclose(  # the same model
                ranker.predict(X),
                lightgbm.LGBMRanker(**params)
                .fit(X, y, group=sizes).predict(X),
                rtol=1e-9,
            )
            line = (f"{query.shape[0]:,} | {sizes.shape[0]:,} | {kind} | {bare_s:.3f} | "
                    f"{wrapped_s:.3f} | {wrapped_s / bare_s:.3f} | {sort_s:.4f}")
            print(line, flush=True)
            lines.append(line)
            data["runs"].append({"rows": int(query.shape[0]), "ids": kind, **{
                k: t.as_dict() for k, t in timings.items()}})
    bench_common.publish(args, "\n".join(lines), data, echo=False,
                         title="QueryGroupRanker overhead against a bare LightGBM "
                               "fit (`bench_query_group.py`)")


if __name__ == "__main__":
    main()
