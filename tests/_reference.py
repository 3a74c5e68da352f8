"""Brute-force reference implementations of every skrank metric.

Written to be obviously correct, not fast: plain Python, one explicit sort per
query, explicit loops.  ``tests/test_reference.py`` compares the public,
vectorised functions of :mod:`skrank` with these on small random inputs.

Ties (``ties="average"``) are handled by brute force: the rows of each block
of equal ``y_score`` are put in every order (``itertools.permutations`` per
block, ``itertools.product`` over blocks), the metric is computed on every
complete ordering and the values are averaged, each ordering counting once.
(Dedupe is unnecessary: every block permutation is equally likely, so repeated
relevance sequences keep their right multiplicity.)  ``ties="input"`` uses a
stable sort, so rows with equal scores keep their input order;
``"pessimistic"`` (``"optimistic"``) sorts equal scores by ascending
(descending) relevance, then input order.

Every function takes the keywords of the public function it mirrors and
returns the (weighted) mean over queries as a Python float, or, with
``per_query=True``, a dict ``{query_id: value}`` (``nan`` for a query left
out).  ``ref_query_weights`` and ``ref_gauc_query_weights`` give the
matching per-query weights.

Shared rules (SPEC.md sections 1-2):

* A row is relevant when ``y_true > 0``; ``R`` is a query's relevant rows.
* Query weight = mean of the query's row weights (1 without ``sample_weight``).
* 2-D input ``(n_queries, n_items)`` with ``query_id=None``: one query per row,
  query ids ``0 .. n_queries - 1``, ``sample_weight`` one weight per query.
* ``no_relevant``: a query with no relevant row is left out (``"skip"``),
  scores 0 (``"zero"``) or 1 (``"one"``), or raises ``ValueError``
  (``"error"``).  Nothing left to average gives ``nan``.
"""

import itertools
import math

import numpy as np

MAX_ORDERINGS = 50_000

TIES = ("average", "input", "pessimistic", "optimistic")
NO_RELEVANT = ("skip", "zero", "one", "error")
GAINS = ("exponential", "linear")
DISCOUNTS = ("log2", "position")
PRECISION_NORMALIZE = ("k", "min")
ONE_CLASS = ("skip", "zero")
NORMALIZE = ("relevant", "min", "retrieved")
TIE_BLOCKS = ("expected", "threshold")
WEIGHTING = ("samples", "uniform")

__all__ = [
    "ref_dcg",
    "ref_ndcg",
    "ref_average_precision",
    "ref_reciprocal_rank",
    "ref_precision_at_k",
    "ref_recall_at_k",
    "ref_fbeta_at_k",
    "ref_r_precision",
    "ref_hit_rate",
    "ref_hits",
    "ref_fap",
    "ref_fap_curve",
    "ref_gauc",
    "ref_query_weights",
    "ref_gauc_query_weights",
    "orderings",
]


# --------------------------------------------------------------------------
# Input handling: split the rows into queries
# --------------------------------------------------------------------------


class _Query:
    """One query: its rows in input order."""

    def __init__(self, qid, relevance, score, weight):
        self.qid = qid
        self.relevance = relevance  # list of float, input order
        self.score = score  # list of float, input order
        self.weight = weight  # list of float (row weights), input order

    @property
    def n_relevant(self):
        return sum(1 for rel in self.relevance if rel > 0)

    @property
    def query_weight(self):
        return sum(self.weight) / len(self.weight)


def _floats(values):
    return [float(v) for v in values]


def _exact(values):
    """Scores as exactly comparable Python values (never rounded to float64).

    Integers of any size stay Python ints, datetime64/timedelta64 become
    their integer ticks, longdouble stays numpy longdouble scalars.
    """
    values = np.asarray(values)
    if values.dtype.kind in "mM":
        return values.view(np.int64).tolist()
    if values.dtype.kind == "f" and values.dtype.itemsize > 8:
        return list(values)
    return values.tolist()


def _split_queries(y_true, y_score, query_id, sample_weight):
    """Return the queries, in ascending order of query id."""
    y_true = np.asarray(y_true)
    y_score = np.asarray(y_score)
    if y_true.shape != y_score.shape:
        raise ValueError("y_true and y_score differ in shape")
    if y_true.ndim == 2:
        if query_id is not None:
            raise ValueError("2-D input together with query_id")
        n_queries, n_items = y_true.shape
        if sample_weight is None:
            query_weights = [1.0] * n_queries
        else:
            query_weights = _floats(np.asarray(sample_weight).tolist())
            if len(query_weights) != n_queries:
                raise ValueError("2-D sample_weight needs one weight per row")
        return [
            _Query(
                i,
                _floats(y_true[i].tolist()),
                _exact(y_score[i]),
                [query_weights[i]] * n_items,
            )
            for i in range(n_queries)
        ]
    if y_true.ndim != 1:
        raise ValueError("y_true must be 1-D or 2-D")
    relevance = _floats(y_true.tolist())
    score = _exact(y_score)
    n = len(relevance)
    if n == 0:
        raise ValueError("empty input")
    if sample_weight is None:
        weight = [1.0] * n
    else:
        weight = _floats(np.asarray(sample_weight).tolist())
        if len(weight) != n:
            raise ValueError("sample_weight has the wrong length")
    if query_id is None:
        return [_Query(0, relevance, score, weight)]
    ids = np.asarray(query_id).tolist()
    if len(ids) != n:
        raise ValueError("query_id has the wrong length")
    rows_of = {}
    for row, qid in enumerate(ids):  # rows stay in input order
        rows_of.setdefault(qid, []).append(row)
    return [
        _Query(
            qid,
            [relevance[r] for r in rows_of[qid]],
            [score[r] for r in rows_of[qid]],
            [weight[r] for r in rows_of[qid]],
        )
        for qid in sorted(rows_of)
    ]


# --------------------------------------------------------------------------
# Orderings of one query
# --------------------------------------------------------------------------


def orderings(score, ties="average", relevance=None):
    """Yield every ranking of one query as a list of row positions, rank 1 first.

    ``ties="input"`` yields the one stable ordering; ``ties="average"`` yields
    every ordering obtained by permuting the rows inside each tie block;
    ``"pessimistic"`` / ``"optimistic"`` yield the one ordering with the tied
    rows by ascending / descending ``relevance`` (a list like ``score``).
    """
    _check_option("ties", ties, TIES)
    order = sorted(range(len(score)), key=lambda i: -score[i])  # stable
    if ties == "input":
        yield order
        return
    if ties in ("pessimistic", "optimistic"):
        sign = 1 if ties == "pessimistic" else -1
        yield sorted(order, key=lambda i: (-score[i], sign * relevance[i]))  # stable
        return
    blocks = []
    for i in order:
        if blocks and score[blocks[-1][-1]] == score[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    n_orderings = 1
    for block in blocks:
        n_orderings *= math.factorial(len(block))
    if n_orderings > MAX_ORDERINGS:
        raise ValueError(
            f"{n_orderings} orderings of tied rows: too many for brute force, "
            "use a smaller input"
        )
    for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [i for block in combo for i in block]


def _expected(query, ties, metric):
    """Mean of ``metric(ranked_relevance)`` over the orderings of a query."""
    total = 0.0
    count = 0
    for order in orderings(query.score, ties, query.relevance):
        total += metric([query.relevance[i] for i in order])
        count += 1
    return total / count


# --------------------------------------------------------------------------
# Metrics of one complete ranking (a list of relevance values, rank 1 first)
# --------------------------------------------------------------------------


def _cutoff(ranked, k):
    """The k the definition uses: k itself, or the length of the list."""
    return len(ranked) if k is None else k


def _hits(ranked, k):
    """Relevant rows among the top k (k=None: all rows)."""
    return sum(1 for rel in ranked[:k] if rel > 0)


def _n_relevant(ranked):
    return sum(1 for rel in ranked if rel > 0)


def _gain(rel, gain):
    if gain == "exponential":
        return 2.0**rel - 1.0
    return rel


def _discount(rank, discount):
    return 1.0 / math.log2(rank + 1) if discount == "log2" else 1.0 / rank


def _dcg_of(ranked, k, gain, discount="log2"):
    total = 0.0
    for i, rel in enumerate(ranked[:k]):
        rank = i + 1
        total += _gain(rel, gain) * _discount(rank, discount)
    return total


def _ndcg_of(ranked, k, gain, discount="log2"):
    ideal = sorted(ranked, reverse=True)
    return _dcg_of(ranked, k, gain, discount) / _dcg_of(ideal, k, gain, discount)


def _precision_of(ranked, k, normalize="k"):
    if normalize == "min":  # min(k, n): the query's rows when k exceeds them
        return _hits(ranked, k) / min(_cutoff(ranked, k), len(ranked))
    return _hits(ranked, k) / _cutoff(ranked, k)


def _recall_of(ranked, k):
    return _hits(ranked, k) / _n_relevant(ranked)


def _fbeta_of(ranked, k, beta):
    if _hits(ranked, k) == 0:
        return 0.0
    p = _precision_of(ranked, k)
    r = _recall_of(ranked, k)
    return (1 + beta**2) * p * r / (beta**2 * p + r)


def _average_precision_of(ranked, k, normalize):
    hits = 0
    total = 0.0
    for i, rel in enumerate(ranked[:k]):
        rank = i + 1
        if rel > 0:
            hits += 1
            total += hits / rank  # P@rank
    n_relevant = _n_relevant(ranked)
    if normalize == "relevant":
        denominator = n_relevant
    elif normalize == "min":
        denominator = min(_cutoff(ranked, k), n_relevant)
    else:  # "retrieved"
        denominator = hits
    if denominator == 0:
        return 0.0
    return total / denominator


def _reciprocal_rank_of(ranked, k):
    for i, rel in enumerate(ranked[:k]):
        if rel > 0:
            return 1.0 / (i + 1)
    return 0.0


def _r_precision_of(ranked):
    n_relevant = _n_relevant(ranked)
    return _hits(ranked, n_relevant) / n_relevant


def _hit_rate_of(ranked, k):
    return 1.0 if _hits(ranked, k) > 0 else 0.0


def _harmonic(f, ap, beta):
    """FAP's combination of F and AP; 0 when both are 0."""
    if f == 0 and ap == 0:
        return 0.0
    return (1 + beta**2) * f * ap / (beta**2 * f + ap)


# --------------------------------------------------------------------------
# Per-query values, no_relevant policy, weighted mean
# --------------------------------------------------------------------------


def _check_option(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}, got {value!r}.")


def _check_k(name, k):
    if k is None:
        return
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"`{name}` must be a positive integer or None, got {k!r}.")


def _per_query(queries, no_relevant, query_value, undefined=None):
    """{qid: value} with the no_relevant policy applied; nan = left out.

    ``undefined(query)`` says which queries the policy applies to: by
    default those with no relevant row.
    """
    _check_option("no_relevant", no_relevant, NO_RELEVANT)
    if undefined is None:
        undefined = lambda query: query.n_relevant == 0  # noqa: E731
    values = {}
    for query in queries:
        if undefined(query):
            if no_relevant == "error":
                raise ValueError(
                    f"`no_relevant`='error': query {query.qid!r} has no relevant row."
                )
            values[query.qid] = {"skip": math.nan, "zero": 0.0, "one": 1.0}[
                no_relevant
            ]
        else:
            values[query.qid] = query_value(query)
    return values


def _weighted_mean(values, weights):
    """Weighted mean of the non-nan values; nan when none is left."""
    numerator = 0.0
    denominator = 0.0
    n_used = 0
    for qid, value in values.items():
        if math.isnan(value):
            continue
        numerator += weights[qid] * value
        denominator += weights[qid]
        n_used += 1
    if n_used == 0 or denominator == 0:
        return math.nan
    return numerator / denominator


def _evaluate(y_true, y_score, query_id, sample_weight, ties, no_relevant,
              per_query, query_value, undefined=None):
    _check_option("ties", ties, TIES)
    queries = _split_queries(y_true, y_score, query_id, sample_weight)
    values = _per_query(queries, no_relevant, query_value, undefined)
    if per_query:
        return values
    weights = {q.qid: q.query_weight for q in queries}
    return _weighted_mean(values, weights)


def ref_query_weights(y_true, y_score=None, *, query_id=None, sample_weight=None):
    """{qid: weight} of the per-query metrics: mean of the query's row weights."""
    if y_score is None:
        y_score = np.zeros(np.shape(y_true))
    queries = _split_queries(y_true, y_score, query_id, sample_weight)
    return {q.qid: q.query_weight for q in queries}


# --------------------------------------------------------------------------
# Public reference functions
# --------------------------------------------------------------------------


def ref_dcg(y_true, y_score, *, k=None, gain="exponential", discount="log2",
           query_id=None,
            ties="average", no_relevant="skip", sample_weight=None,
            per_query=False):
    """DCG@k = sum_{i<=k} gain(rel_i) / log2(i + 1)."""
    _check_k("k", k)
    _check_option("gain", gain, GAINS)
    _check_option("discount", discount, DISCOUNTS)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _dcg_of(r, k, gain, discount)),
    )


def ref_ndcg(y_true, y_score, *, k=None, gain="exponential", discount="log2",
            query_id=None,
             ties="average", no_relevant="skip", sample_weight=None,
             per_query=False):
    """nDCG@k = DCG@k / IDCG@k (IDCG: all rows of the query by relevance)."""
    _check_k("k", k)
    _check_option("gain", gain, GAINS)
    _check_option("discount", discount, DISCOUNTS)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _ndcg_of(r, k, gain, discount)),
    )


def _threshold_average_precision(query, k, normalize):
    """scikit-learn's step AP: each tie block counts once, at its last position.

    A block adds (its relevant rows) x (precision at its end); a block that
    straddles position k counts the share of its relevant rows that fits
    in the top k (each of its rows is there with equal probability), at
    position k. The denominator is R, min(k, R) or that expected hits@k.
    """
    order = sorted(range(len(query.score)), key=lambda i: -query.score[i])
    blocks = []
    for i in order:
        if blocks and query.score[blocks[-1][-1]] == query.score[i]:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    total, hits, first = 0.0, 0.0, 1
    for block in blocks:
        end = first + len(block) - 1
        relevant = sum(1 for i in block if query.relevance[i] > 0)
        if k is not None and first > k:
            break
        if k is not None and end > k:
            relevant = relevant * (k - first + 1) / len(block)
            end = k
        hits += relevant
        if relevant > 0:
            total += relevant * hits / end
        first += len(block)
    denominator = {"relevant": query.n_relevant,
                   "min": query.n_relevant if k is None else min(k, query.n_relevant),
                   "retrieved": hits}[normalize]
    return total / denominator if denominator > 0 else 0.0


def ref_average_precision(y_true, y_score, *, k=None, normalize="relevant",
                          query_id=None, ties="average", no_relevant="skip",
                          sample_weight=None, per_query=False, tie_blocks="expected"):
    """AP@k = sum_{i<=k, rel_i>0} P@i / D, D = R, min(k, R) or hits@k.

    ``tie_blocks="threshold"`` with ``ties="average"``: scikit-learn's step
    AP (``_threshold_average_precision``); other ties rules leave no tie.
    """
    _check_k("k", k)
    _check_option("normalize", normalize, NORMALIZE)
    _check_option("tie_blocks", tie_blocks, TIE_BLOCKS)
    if tie_blocks == "threshold" and ties == "average":
        value = lambda q: _threshold_average_precision(q, k, normalize)  # noqa: E731
    else:
        value = lambda q: _expected(  # noqa: E731
            q, ties, lambda r: _average_precision_of(r, k, normalize))
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query, value)


def ref_reciprocal_rank(y_true, y_score, *, k=None, query_id=None,
                        ties="average", no_relevant="skip", sample_weight=None,
                        per_query=False):
    """1 / rank of the first relevant row within the top k, else 0."""
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _reciprocal_rank_of(r, k)),
    )


def ref_precision_at_k(y_true, y_score, *, k=None, normalize="k", query_id=None,
                       ties="average", no_relevant="skip", sample_weight=None,
                       per_query=False):
    """hits@k / k (k=None: the query's length), or hits@k / min(k, n)."""
    _check_k("k", k)
    _check_option("normalize", normalize, PRECISION_NORMALIZE)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _precision_of(r, k, normalize)),
    )


def ref_recall_at_k(y_true, y_score, *, k=None, query_id=None,
                    ties="average", no_relevant="skip", sample_weight=None,
                    per_query=False):
    """hits@k / R."""
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _recall_of(r, k)),
    )


def ref_fbeta_at_k(y_true, y_score, *, k=None, beta=1.0, query_id=None,
                   ties="average", no_relevant="skip", sample_weight=None,
                   per_query=False):
    """(1 + b^2) P@k R@k / (b^2 P@k + R@k), 0 when hits@k = 0."""
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _fbeta_of(r, k, beta)),
    )


def ref_r_precision(y_true, y_score, *, query_id=None, ties="average",
                    no_relevant="skip", sample_weight=None, per_query=False):
    """P@R, R = the query's number of relevant rows."""
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, _r_precision_of),
    )


def ref_hit_rate(y_true, y_score, *, k=None, query_id=None, ties="average",
                 no_relevant="skip", sample_weight=None, per_query=False):
    """1 if hits@k > 0 else 0."""
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: _hit_rate_of(r, k)),
    )


def ref_hits(y_true, y_score, *, k=None, query_id=None, ties="average",
             no_relevant="skip", sample_weight=None, per_query=False):
    """hits@k: the relevant rows among the top k."""
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _expected(q, ties, lambda r: float(_hits(r, k))),
    )


def _fap_of_query(query, k, beta, ties):
    """Harmonic combination of the tie-averaged F_beta@k and AP@k."""
    f = _expected(query, ties, lambda r: _fbeta_of(r, k, beta))
    ap = _expected(query, ties, lambda r: _average_precision_of(r, k, "relevant"))
    return _harmonic(f, ap, beta)


def ref_fap(y_true, y_score, *, k=None, beta=1.0, query_id=None,
            ties="average", no_relevant="skip", sample_weight=None,
            per_query=False):
    """(1 + b^2) F_b@k AP@k / (b^2 F_b@k + AP@k), 0 when both are 0.

    With ties="average" F and AP are first averaged over the orderings, then
    combined (harmonic of expectations, SPEC section 1).
    """
    _check_k("k", k)
    return _evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _fap_of_query(q, k, beta, ties),
    )


def ref_fap_curve(y_true, y_score, *, max_k=None, beta=1.0, query_id=None,
                  ties="average", no_relevant="skip", sample_weight=None):
    """(k, fap, f, ap) numpy arrays of means for k = 1 .. max_k.

    max_k=None: the length of the longest query.
    """
    _check_k("max_k", max_k)
    queries = _split_queries(y_true, y_score, query_id, sample_weight)
    if max_k is None:
        max_k = max(len(q.relevance) for q in queries)
    weights = {q.qid: q.query_weight for q in queries}
    ks, fap, f, ap = [], [], [], []
    for k in range(1, max_k + 1):
        ks.append(k)
        fap.append(_weighted_mean(
            _per_query(queries, no_relevant, lambda q: _fap_of_query(q, k, beta, ties)),
            weights,
        ))
        f.append(_weighted_mean(
            _per_query(queries, no_relevant, lambda q: _expected(
                q, ties, lambda r: _fbeta_of(r, k, beta))),
            weights,
        ))
        ap.append(_weighted_mean(
            _per_query(queries, no_relevant, lambda q: _expected(
                q, ties, lambda r: _average_precision_of(r, k, "relevant"))),
            weights,
        ))
    return np.array(ks), np.array(fap), np.array(f), np.array(ap)


# --------------------------------------------------------------------------
# Group AUC
# --------------------------------------------------------------------------


def _auc_of_query(query, ties):
    """Pairwise weighted AUC; nan when the query has only one class."""
    positives = [i for i, rel in enumerate(query.relevance) if rel > 0]
    negatives = [i for i, rel in enumerate(query.relevance) if rel == 0]
    if not positives or not negatives:
        return math.nan
    won = 0.0
    total = 0.0
    for p in positives:
        for n in negatives:
            pair_weight = query.weight[p] * query.weight[n]
            total += pair_weight
            sp, sn = query.score[p], query.score[n]
            if sp > sn:
                won += pair_weight
            elif sp == sn:
                if ties == "average":
                    won += pair_weight / 2
                elif ties == "optimistic":  # the positive ranks first
                    won += pair_weight
                elif ties == "input" and p < n:  # the earlier row ranks first
                    won += pair_weight
    return won / total


def _gauc_weight(query, weighting):
    if weighting == "uniform":
        return 1.0
    return sum(query.weight)  # row count without sample_weight


def ref_gauc_query_weights(y_true, y_score=None, *, query_id=None,
                           sample_weight=None, weighting="samples"):
    """{qid: W_q}: row count / sum of row weights ("samples") or 1 ("uniform")."""
    _check_option("weighting", weighting, WEIGHTING)
    if y_score is None:
        y_score = np.zeros(np.shape(y_true))
    queries = _split_queries(y_true, y_score, query_id, sample_weight)
    return {q.qid: _gauc_weight(q, weighting) for q in queries}


def ref_gauc(y_true, y_score, *, query_id=None, sample_weight=None,
             ties="average", weighting="samples", one_class="skip", per_query=False):
    """sum_q W_q AUC_q / sum_q W_q over the queries with both classes.

    ``one_class="zero"``: a query with one class scores 0 and counts.
    """
    _check_option("ties", ties, TIES)
    _check_option("weighting", weighting, WEIGHTING)
    _check_option("one_class", one_class, ONE_CLASS)
    if np.ndim(y_true) == 1 and query_id is None:
        raise ValueError("`query_id` is required for 1-D input")
    queries = _split_queries(y_true, y_score, query_id, sample_weight)
    if any(rel not in (0.0, 1.0) for q in queries for rel in q.relevance):
        raise ValueError("y_true must be binary for gauc")
    values = {q.qid: _auc_of_query(q, ties) for q in queries}
    if one_class == "zero":
        values = {qid: 0.0 if math.isnan(v) else v for qid, v in values.items()}
    if per_query:
        return values
    weights = {q.qid: _gauc_weight(q, weighting) for q in queries}
    return _weighted_mean(values, weights)
