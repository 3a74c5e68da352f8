"""Synthetic data for every benchmark: the core matrix's configurations, and the rest.

Every script takes its data from here; the generators of one script's own
data keep that script's name in their docstring. Each is seeded, so a
script makes the same rows on every run.

The core matrix (``run.py``)
----------------------------

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

The other scripts' data
-----------------------
* :func:`shuffled_rows`: given query sizes, rows in random order, binary
  labels at one rate (``bench_fap_tail.py``);
* :func:`segment_data`: queries of equal size with a segment each
  (``bench_segments.py``);
* :func:`features_data`: a feature matrix with query ids, for fitting
  (``bench_multi_metric.py``) and :func:`grouped_features` (queries of 2 to
  60 rows, ``bench_query_group.py``);
* :func:`log_chunk` and :func:`batches`: a log written query by query, in
  chunks or in batches of whole queries (``bench_stream.py``);
* :func:`trec_files`: a TREC run and qrels with string ids, and the same
  run in the orders systems write (``bench_trec.py``);
* :func:`write_parquet`: Parquet files of (qid, label, score, item) with
  every query spread over all files (``bench_dask.py``, ``bench_spark.py``).
"""

import json
import shutil
import time
from dataclasses import dataclass

from pathlib import Path

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


# -- the other scripts' data -----------------------------------------------------------
def shuffled_rows(sizes, rate=0.2, seed=0):
    """``(y_true, y_score, query)`` for queries of ``sizes``, rows in random order.

    Binary labels at ``rate``, scores ``0.6 * label + N(0, 1)``, query ids the
    integers ``0..len(sizes)-1``.
    """
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    query = query[rng.permutation(query.shape[0])]
    y_true = (rng.random(query.shape[0]) < rate).astype(np.int64)
    y_score = 0.6 * y_true + rng.standard_normal(query.shape[0])
    return y_true, y_score, query


def segment_data(n_rows, n_queries, n_segments, seed=0):
    """``(y_true, y_score, query_id, segment)``: equal queries, a segment per query.

    Rows in random order; each query draws its rate of relevant rows from
    Beta(1, 4); int64 ids ``10**9 + 7919 * query``; segment
    ``(query * 7) % n_segments``.
    """
    rng = np.random.default_rng(seed)
    per_query = n_rows // n_queries
    query = np.repeat(np.arange(n_queries), per_query)
    rng.shuffle(query)
    query_id = 10**9 + 7919 * query
    rate = rng.beta(1, 4, n_queries)
    y_true = (rng.random(query.shape[0]) < rate[query]).astype(np.int64)
    y_score = 0.6 * y_true + rng.normal(size=query.shape[0])
    segment = (query * 7) % n_segments
    return y_true, y_score, query_id, segment


def features_data(n_rows, n_features=10, seed=0):
    """``(X, y, query_id)``: normal features, labels ``X[:, 0] + noise > 1``.

    Query ids drawn uniformly from ``n_rows // 20`` values (about 20 rows each).
    """
    rng = np.random.default_rng(seed)
    query_id = rng.integers(0, n_rows // 20, size=n_rows)
    X = rng.normal(size=(n_rows, n_features))
    y = (X[:, 0] + rng.normal(size=n_rows) > 1.0).astype(int)
    return X, y, query_id


def grouped_features(n_rows, seed=0):
    """``(X, y, query, sizes)``: queries of 2 to 60 rows in order, 20 features.

    Binary labels at a rate of about 0.1; at most ``n_rows`` rows.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 61, size=n_rows // 20)
    sizes = sizes[np.cumsum(sizes) <= n_rows]
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    X = rng.standard_normal((query.shape[0], 20))
    y = (X[:, 0] + rng.standard_normal(query.shape[0]) > 1.6).astype(np.int64)
    return X, y, query, sizes


def log_chunk(seed, start_row, n_rows, rows_per_query=10):
    """Rows ``start_row..start_row+n_rows`` of a log written query by query.

    ``(label, score, query)``: int8 labels at rate 0.2, uniform scores, query
    ids in order, ``rows_per_query`` rows each.
    """
    rng = np.random.default_rng(seed)
    rows = np.arange(start_row, start_row + n_rows)
    query = rows // rows_per_query
    label = (rng.random(n_rows) < 0.2).astype(np.int8)
    score = rng.random(n_rows)
    return label, score, query


def batches(n_batches, batch_rows, rows_per_query=10, seed=0):
    """``n_batches`` batches ``(score, label, query)`` of whole queries, in order.

    Boolean labels at rate 0.2, uniform scores.
    """
    rng = np.random.default_rng(seed)
    out = []
    for b in range(n_batches):
        query = (b * (batch_rows // rows_per_query)
                 + np.arange(batch_rows) // rows_per_query)
        label = rng.random(batch_rows) < 0.2
        out.append((rng.random(batch_rows), label, query))
    return out


def trec_files(root, n_lines, n_queries, seed=0):
    """A TREC run of ``n_lines`` lines, its qrels, and the run in three more orders.

    The run (``run.txt``) has string ids ``Q<n>`` and ``DOC-<n>``, one line
    per (query, document), rows shuffled; the qrels judge 60 retrieved and
    20 unretrieved documents per query. Returns a dict of paths: ``qrels``,
    ``run``, ``grouped`` (the lines grouped by query, stable),
    ``ranked`` (by query then score descending, with ranks) and
    ``numeric`` (ranked, queries in numeric order: Q2 before Q10).
    """
    rng = np.random.default_rng(seed)
    per_query = n_lines // n_queries
    qids = np.repeat(np.arange(n_queries), per_query)
    docs = rng.integers(0, 50_000_000, size=qids.shape[0])
    # one document per (query, doc): make the ids unique inside a query
    docs = docs + (np.arange(qids.shape[0]) % per_query) * 50_000_000
    scores = rng.normal(size=qids.shape[0]).round(4)
    shuffle = rng.permutation(qids.shape[0])
    qids, docs, scores = qids[shuffle], docs[shuffle], scores[shuffle]
    paths = {name: root / f"{name}.txt" for name in ("qrels", "run")}
    with open(paths["run"], "w") as handle:
        for q, d, s in zip(qids.tolist(), docs.tolist(), scores.tolist()):
            handle.write(f"Q{q} Q0 DOC-{d} 0 {s} bench\n")
    with open(paths["qrels"], "w") as handle:
        order = np.argsort(qids, kind="stable")
        start = np.searchsorted(qids[order], np.arange(n_queries))
        for q in range(n_queries):
            rows = order[start[q] : start[q] + 60]
            for d in docs[rows].tolist():
                handle.write(f"Q{q} 0 DOC-{d} {int(rng.random() < 0.3)}\n")
            for i in range(20):
                handle.write(f"Q{q} 0 NEW-{q}-{i} {int(rng.random() < 0.5)}\n")

    paths["grouped"] = root / "run_grouped.txt"
    with open(paths["run"]) as source, open(paths["grouped"], "w") as target:
        lines = source.readlines()
        lines.sort(key=lambda line: line.split(" ", 1)[0])  # stable: by query only
        target.writelines(lines)
        del lines
    # as systems write runs: by query, then by rank (score descending), with
    # the rank field filled in
    paths["ranked"] = root / "run_ranked.txt"
    with open(paths["grouped"]) as source, open(paths["ranked"], "w") as target:
        fields = [line.split() for line in source]
        fields.sort(key=lambda f: (f[0], -float(f[4])))
        rank, previous = 0, None
        for f in fields:
            rank = rank + 1 if f[0] == previous else 1
            previous = f[0]
            target.write(f"{f[0]} {f[1]} {f[2]} {rank} {f[4]} {f[5]}\n")
        del fields
    # the same, queries in numeric order (Q2 before Q10), as systems that
    # number their topics write them: not trec_eval's order of query ids
    paths["numeric"] = root / "run_numeric.txt"
    with open(paths["ranked"]) as source, open(paths["numeric"], "w") as target:
        lines = source.readlines()
        lines.sort(key=lambda line: int(line.split(" ", 1)[0][1:]))  # stable: ranks stay
        target.writelines(lines)
        del lines
    return paths


ROWS_PER_FILE = 1_000_000


def write_parquet(path, rows, queries, seed):
    """``rows`` rows of (qid, label, score, item) as Parquet files of ROWS_PER_FILE.

    Query ids drawn uniformly (every query spread over many files), int8
    labels ``score + noise > 1.2`` (about a fifth relevant), float64 scores
    without ties, a unique int64 item per row. Reused when the same files
    are there (returns 0.0); else returns the seconds spent writing.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = {"rows": rows, "queries": queries, "seed": seed, "per_file": ROWS_PER_FILE}
    if written_already(path, spec):
        return 0.0
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    for number, first in enumerate(range(0, rows, ROWS_PER_FILE)):
        size = min(ROWS_PER_FILE, rows - first)
        score = rng.standard_normal(size)
        label = (score + rng.standard_normal(size) > 1.2).astype(np.int8)
        table = pa.table({
            "qid": rng.integers(0, queries, size, dtype=np.int64),
            "label": label,
            "score": score,
            # a unique item id per row, which Spark's RankingMetrics needs
            "item": np.arange(first, first + size, dtype=np.int64),
        })
        pq.write_table(table, path / f"part-{number:05d}.parquet")
    mark_written(path, spec)
    return time.perf_counter() - start


def written_already(path, spec):
    """Whether ``path`` holds the files ``spec`` describes (its ``_done.json``).

    If not, the folder is emptied (made if missing) for the files to be
    written; :func:`mark_written` records them once they are.
    """
    marker = path / "_done.json"
    if marker.exists() and json.loads(marker.read_text()) == spec:
        return True
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return False


def mark_written(path, spec):
    """Record that ``path`` holds the files ``spec`` describes."""
    (path / "_done.json").write_text(json.dumps(spec))


def sparse_qrels(qrels_path, target, every=10):
    """The qrels of every ``every``-th query only (``Q0``, ``Q10``, ...): most run queries unjudged.

    trec_eval drops a run query without judgments right after reading it;
    with these qrels nine tenths of a run's lines belong to such queries.
    """
    with open(qrels_path) as source, open(target, "w") as out:
        for line in source:
            if int(line.split(" ", 1)[0][1:]) % every == 0:
                out.write(line)
    return target


def trec_eval_test_files(root, archive, copies=67):
    """trec_eval's own ``test/results.comment.test`` and its qrels, ``copies`` times over.

    Read from trec_eval's source archive (``archive``, a .tar.gz). Copy
    ``c`` renames each query ``q`` to ``q.c`` in the run and in the qrels,
    so the files hold ``copies`` times the queries: 67 copies make a run of
    2,016,700 lines and 20,167 queries, about a tenth of them judged. The
    run's document ids hold a "#" (MS MARCO passages). Returns
    ``{"qrels": ..., "run": ...}``.
    """
    import tarfile

    with tarfile.open(archive) as tar:
        members = {Path(m.name).name: m for m in tar.getmembers()
                   if "/test/" in "/" + m.name and m.isfile()}
        texts = {name: tar.extractfile(members[name]).read().decode("utf-8").splitlines()
                 for name in ("results.comment.test", "qrels.comment.test")}
    paths = {"run": root / "real_run.txt", "qrels": root / "real_qrels.txt"}
    for kind, name in (("run", "results.comment.test"), ("qrels", "qrels.comment.test")):
        split = [line.split(" ", 1) for line in texts[name] if line.strip()]
        with open(paths[kind], "w") as handle:
            for copy in range(copies):
                handle.writelines(f"{query}.{copy} {rest}\n" for query, rest in split)
    return paths

