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
import time

import numpy as np


def make_data(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 61, size=n_rows // 20)
    sizes = sizes[np.cumsum(sizes) <= n_rows]
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    X = rng.standard_normal((query.shape[0], 20))
    y = (X[:, 0] + rng.standard_normal(query.shape[0]) > 1.6).astype(np.int64)
    return X, y, query, sizes


def seconds(func):
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1e5", "1e6"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)

    import lightgbm
    import sklearn

    import skrank
    from skrank.model_selection._query_group import QueryGroupRanker, _QueryLayout

    params = {"n_estimators": args.trees, "n_jobs": args.threads, "verbose": -1}
    print(f"skrank {skrank.__version__}, lightgbm {lightgbm.__version__}, "
          f"scikit-learn {sklearn.__version__}; {params}; minimum of {args.repeats} "
          "runs\n")
    header = ("rows", "queries", "ids", "bare fit s", "wrapper fit s", "ratio",
              "sort+take s")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for size in args.sizes:
        X0, y0, query, sizes = make_data(int(float(size)))
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

            bare_s = wrapped_s = sort_s = np.inf
            for _ in range(args.repeats):  # alternate, so both see the same machine
                bare_s = min(bare_s, seconds(bare))
                wrapped_s = min(wrapped_s, seconds(wrapped))
                sort_s = min(sort_s, seconds(overhead))
            np.testing.assert_allclose(  # the same model
                ranker.predict(X),
                lightgbm.LGBMRanker(**params)
                .fit(X, y, group=sizes).predict(X),
                rtol=1e-9,
            )
            print(f"{query.shape[0]:,} | {sizes.shape[0]:,} | {kind} | {bare_s:.3f} | "
                  f"{wrapped_s:.3f} | {wrapped_s / bare_s:.3f} | {sort_s:.4f}")


if __name__ == "__main__":
    main()
