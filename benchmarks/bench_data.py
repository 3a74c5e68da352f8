"""Synthetic ranking data for the benchmarks: one generator, named configurations.

A configuration is five choices, written into its name, e.g.
``1e6-q10-binary-noties-int``:

* rows: the total number of rows (1e5, 1e6, 1e7, ...);
* query sizes: ``q10`` (every query has 10 rows), ``q100`` (100 rows), or
  ``zipf``: a long-tailed mix as in click logs, sizes drawn from a Zipf law
  with exponent 1.8 truncated at 10,000 rows (mean about 12 rows; half of
  the queries have 1 or 2 rows, a few have thousands);
* labels: ``binary`` (0/1; each query draws its own rate of relevant rows
  from Beta(1, 4), mean 0.2, so some queries have none) or ``graded``
  (0..4 with probabilities .60/.20/.10/.06/.04);
* ties: ``noties`` (float64 scores: no tie in practice) or ``ties`` (scores
  rounded to multiples of 0.25, about 30 distinct values, so most queries
  have tied rows and queries of 100 rows have large tie blocks);
* ids: ``int`` (int64 ids such as user ids: 10**9 + 7919 * code, unrelated to
  the row order) or ``str`` (numpy unicode strings ``"u000123456"``).

Scores carry signal: ``score = 0.6 * relevance + N(0, 1)``. Rows are in
random order (queries are neither sorted nor contiguous), the worst case
for every tool and the usual case for logs.

Arrays saved for a run: ``y_true`` (int64), ``y_score`` (float64),
``query_id`` (int64 or ``<U10``) and ``codes`` (int64 codes 0..n_queries-1
of the same queries: what the floor, ``np.lexsort((-y_score, codes))``,
sorts; a tool given string ids must do that factorisation itself).
"""

from dataclasses import dataclass

import numpy as np

QUERY_SIZES = ("q10", "q100", "zipf")
LABELS = ("binary", "graded")
TIES = ("noties", "ties")
IDS = ("int", "str")

ZIPF_EXPONENT = 1.8
ZIPF_MAX = 10_000
GRADE_PROBABILITIES = (0.60, 0.20, 0.10, 0.06, 0.04)
TIE_STEP = 0.25


@dataclass(frozen=True)
class Config:
    rows: int
    sizes: str = "q10"
    labels: str = "binary"
    ties: str = "noties"
    ids: str = "int"

    @property
    def name(self):
        return f"{format_rows(self.rows)}-{self.shape}"

    @property
    def shape(self):
        """The name without the row count: the same data at another size."""
        return f"{self.sizes}-{self.labels}-{self.ties}-{self.ids}"


def format_rows(rows):
    """10**6 -> '1e6', 2 * 10**5 -> '2e5', 12345 -> '12345'."""
    mantissa, exponent = f"{rows:e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    if float(mantissa) * 10 ** int(exponent) == rows and "." not in mantissa:
        return f"{mantissa}e{int(exponent)}"
    return str(rows)


def parse_config(name):
    """'1e6-q10-binary-noties-int' -> Config (the inverse of Config.name)."""
    rows, sizes, labels, ties, ids = name.split("-")
    config = Config(int(float(rows)), sizes, labels, ties, ids)
    for value, allowed in ((sizes, QUERY_SIZES), (labels, LABELS), (ties, TIES),
                           (ids, IDS)):
        if value not in allowed:
            raise ValueError(f"{value!r} is not one of {allowed} in {name!r}")
    return config


def query_sizes(kind, rows, rng):
    """Sizes of the queries, summing to ``rows``."""
    if kind in ("q10", "q100"):
        size = int(kind[1:])
        sizes = np.full(rows // size, size, dtype=np.int64)
        if rows % size:
            sizes = np.append(sizes, rows % size)
        return sizes
    if kind != "zipf":
        raise ValueError(kind)
    return zipf_sizes(rows, rng)


def zipf_sizes(rows, rng, exponent=ZIPF_EXPONENT, largest=ZIPF_MAX):
    """Query sizes from a Zipf law truncated at ``largest``, summing to ``rows``."""
    chunks, total = [], 0
    while total < rows:
        draw = rng.zipf(exponent, size=max(rows // 4, 1000))
        draw = draw[draw <= largest]
        chunks.append(draw)
        total += int(draw.sum())
    sizes = np.concatenate(chunks)
    end = np.searchsorted(np.cumsum(sizes), rows)  # first query reaching rows
    sizes = sizes[: end + 1].astype(np.int64)
    sizes[-1] -= sizes.sum() - rows
    return sizes[sizes > 0]


def generate(config, seed=0):
    """The arrays of one configuration: dict of y_true, y_score, query_id, codes."""
    rng = np.random.default_rng(seed)
    sizes = query_sizes(config.sizes, config.rows, rng)
    n_queries = sizes.shape[0]
    codes = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    codes = codes[rng.permutation(config.rows)]  # rows in random order

    if config.labels == "binary":
        rate = rng.beta(1.0, 4.0, size=n_queries)
        y_true = (rng.random(config.rows) < rate[codes]).astype(np.int64)
    else:
        y_true = rng.choice(len(GRADE_PROBABILITIES), size=config.rows,
                            p=GRADE_PROBABILITIES).astype(np.int64)

    y_score = 0.6 * y_true + rng.standard_normal(config.rows)
    if config.ties == "ties":
        y_score = np.round(y_score / TIE_STEP) * TIE_STEP

    # ids unrelated to the codes' order, so no tool gets sorted ids for free
    id_of_code = rng.permutation(n_queries).astype(np.int64)
    if config.ids == "int":
        query_id = 10**9 + 7919 * id_of_code[codes]
    else:
        labels = np.array([f"u{i:09d}" for i in id_of_code.tolist()])
        query_id = labels[codes]
    return {"y_true": y_true, "y_score": y_score, "query_id": query_id, "codes": codes}


def save(arrays, directory):
    for name, array in arrays.items():
        np.save(directory / f"{name}.npy", array, allow_pickle=False)


def load(directory):
    return {
        name: np.load(directory / f"{name}.npy", allow_pickle=False)
        for name in ("y_true", "y_score", "query_id", "codes")
    }


def head(arrays, n_queries=300):
    """The rows of the first ``n_queries`` query codes: small data for warm-up."""
    keep = arrays["codes"] < n_queries
    return {name: array[keep] for name, array in arrays.items()}


def describe(arrays):
    """Facts about the data that the report shows."""
    sizes = np.bincount(arrays["codes"])
    y_true = arrays["y_true"]
    order = np.lexsort((arrays["y_score"], arrays["codes"]))
    s, c = arrays["y_score"][order], arrays["codes"][order]
    tied = np.count_nonzero((s[1:] == s[:-1]) & (c[1:] == c[:-1]))
    relevant_per_query = np.bincount(arrays["codes"], weights=y_true > 0)
    both = (relevant_per_query > 0) & (relevant_per_query < sizes)
    return {
        "rows": int(y_true.shape[0]),
        "queries": int(sizes.shape[0]),
        "query_size_mean": float(sizes.mean()),
        "query_size_max": int(sizes.max()),
        "relevant_rate": float((y_true > 0).mean()),
        "queries_without_relevant": float((relevant_per_query == 0).mean()),
        "queries_with_both_classes": float(both.mean()),
        "rows_tied_with_previous": float(tied / max(y_true.shape[0], 1)),
    }
