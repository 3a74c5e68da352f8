"""Brute-force references for the toolbox metrics (bpref, RBP, GAP, PR AUC,
ERR, pFound, set F-beta, scikit-learn's label ranking metrics; weighted AP,
precision-recall curves, rank correlations).

Plain Python, written to be obvious: one query at a time, one explicit
ordering at a time. ``ties="average"`` is the mean over every ordering of
tied rows (``_reference.orderings``), each ordering counting once.

Most ``*_of`` functions take one complete ranking: a list of row indices
(rank 1 first) into the query's own lists; the label ranking ones take a
query's relevance and scores (their ties count against, with no ordering).
The ``ref_<name>`` functions at the end mirror the public functions.
"""

import math

import numpy as np

from . import _reference as _ref
from ._reference import orderings


def split_queries(query_id, n_rows):
    """{query id: [row, ...]} in ascending id order, rows in input order."""
    ids = [0] * n_rows if query_id is None else np.asarray(query_id).tolist()
    rows_of = {}
    for row, qid in enumerate(ids):
        rows_of.setdefault(qid, []).append(row)
    return {qid: rows_of[qid] for qid in sorted(rows_of)}


def expected_per_query(metric, y_score, query_id, ties="average", **row_arrays):
    """{qid: mean over the orderings of metric(ranking, **query's row lists)}.

    ``metric(order, **lists)`` gets the ranking as indices into the query's
    lists (``score`` and every array of ``row_arrays``, restricted to the
    query). A metric returning None marks the query undefined (nan).
    """
    y_score = [float(v) for v in np.asarray(y_score).tolist()]
    out = {}
    for qid, rows in split_queries(query_id, len(y_score)).items():
        lists = {name: [array[r] for r in rows] for name, array in row_arrays.items()}
        score = [y_score[r] for r in rows]
        values = [metric(order, **lists) for order in orderings(score, ties)]
        if any(v is None for v in values):
            out[qid] = math.nan
        else:
            out[qid] = sum(values) / len(values)
    return out


def weighted_mean(values, weights):
    """Mean of the non-nan values of two {qid: value} dicts."""
    pairs = [(v, weights[q]) for q, v in values.items() if not math.isnan(v)]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else math.nan


def query_weights(sample_weight, query_id, n_rows):
    if sample_weight is None:
        sample_weight = [1.0] * n_rows
    sample_weight = [float(w) for w in sample_weight]
    return {
        qid: sum(sample_weight[r] for r in rows) / len(rows)
        for qid, rows in split_queries(query_id, n_rows).items()
    }


# ---------------------------------------------------------------- bpref ----


def bpref_of(order, y, judged):
    """trec_eval's bpref of one ranking; None when no judged relevant row."""
    ranked = [(y[i] > 0, judged[i]) for i in order]
    n_rel = sum(1 for rel, j in ranked if j and rel)
    n_non = sum(1 for rel, j in ranked if j and not rel)
    if n_rel == 0:
        return None
    total = 0.0
    non_so_far = 0
    for rel, j in ranked:
        if not j:
            continue
        if rel:
            if non_so_far > 0:
                total += 1.0 - min(non_so_far, n_rel) / min(n_rel, n_non)
            else:
                total += 1.0
        else:
            non_so_far += 1
    return total / n_rel


# ------------------------------------------------------------------ RBP ----


def rbp_of(order, y, judged, *, p, k=None, gain="binary"):
    if not any(y[i] > 0 and judged[i] for i in order):
        return None
    total = 0.0
    for position, i in enumerate(order[:k]):
        if judged[i]:
            g = (1.0 if y[i] > 0 else 0.0) if gain == "binary" else float(y[i])
            total += g * p**position
    return (1 - p) * total


def rbp_residual_of(order, y, judged, *, p, k=None):
    if not any(y[i] > 0 and judged[i] for i in order):
        return None
    shown = order[:k]
    unknown = sum(p**position for position, i in enumerate(shown) if not judged[i])
    return (1 - p) * unknown + p ** len(shown)


# ------------------------------------------------------------------ GAP ----


def gap_of(order, y, *, g, k=None):
    """Robertson, Kanoulas & Yilmaz (2010), as printed: a double sum over ranks.

    delta(m, n) = sum_{j <= min(r_m, r_n)} g_j; numerator
    sum_{n <= k, r_n > 0} (1/n) sum_{m <= n} delta(m, n); denominator
    sum_{n: r_n > 0} sum_{j <= r_n} g_j.
    """
    grades = [int(y[i]) for i in order]

    def cumulative(grade):
        return sum(g[j - 1] for j in range(1, grade + 1))

    numerator = 0.0
    for n in range(1, len(grades) + 1):
        if k is not None and n > k:
            break
        if grades[n - 1] == 0:
            continue
        inner = sum(
            cumulative(min(grades[m - 1], grades[n - 1])) for m in range(1, n + 1)
        )
        numerator += inner / n
    denominator = sum(cumulative(r) for r in grades if r > 0)
    if denominator == 0:
        return None
    return numerator / denominator


# ----------------------------------------------------------- weighted AP ----


def weighted_ap_of(order, y, w, *, k=None):
    relevant_weight = sum(w[i] for i in order if y[i] > 0)
    if relevant_weight == 0:
        return None
    hits = 0
    total = 0.0
    for position, i in enumerate(order):
        if y[i] > 0:
            hits += 1
            if k is None or position < k:
                total += w[i] * hits / (position + 1)
    return total / relevant_weight


# ------------------------------------------------------------ PR curves ----


def pr_auc_of(order, y):
    """Trapezoids between the points (R@i, P@i), i = 0..n, with (0, 1) at i = 0."""
    n_rel = sum(1 for i in order if y[i] > 0)
    if n_rel == 0:
        return None
    area = 0.0
    hits = 0
    previous = (0.0, 1.0)
    for position, i in enumerate(order, start=1):
        hits += y[i] > 0
        point = (hits / n_rel, hits / position)
        area += (point[0] - previous[0]) * (point[1] + previous[1]) / 2
        previous = point
    return area


def threshold_points(y, score):
    """(recall, precision) after each group of equal scores, best first."""
    n_rel = sum(1 for v in y if v > 0)
    points = []
    seen = hits = 0
    for s in sorted(set(score), reverse=True):
        group = [i for i in range(len(y)) if score[i] == s]
        seen += len(group)
        hits += sum(1 for i in group if y[i] > 0)
        points.append((hits / n_rel, hits / seen))
    return points


def interpolated_precision(points, level):
    """Max precision over the points whose recall reaches ``level`` (0 if none)."""
    return max((p for r, p in points if r >= level), default=0.0)


# ---------------------------------------------------------- correlation ----


def midranks(values):
    """Ranks 1..n, ties sharing their mean rank."""
    ranks = [0.0] * len(values)
    for i, v in enumerate(values):
        below = sum(1 for u in values if u < v)
        equal = sum(1 for u in values if u == v)
        ranks[i] = below + (equal + 1) / 2
    return ranks


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def kendall_tau_b(x, y):
    n = len(x)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tied_x += 1
            elif dy == 0:
                tied_y += 1
            elif dx * dy > 0:
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt(
        (concordant + discordant + tied_x) * (concordant + discordant + tied_y)
    )
    if denominator == 0:
        return math.nan
    return (concordant - discordant) / denominator


# ------------------------------------------- the public functions' twins ----
# Each ``ref_<name>`` below takes the keywords of the public function it
# mirrors and returns the weighted mean over queries, or with
# ``per_query=True`` a dict {query id: value} (nan: left out), as the
# functions of ``_reference.py`` do, on the same machinery: one explicit
# sort per ordering of tied rows, the mean over the orderings.


def _as_lists(ranked):
    """A ranked relevance list (nan: unjudged) as bpref_of / rbp_of arguments."""
    order = list(range(len(ranked)))
    y = [0.0 if math.isnan(rel) else rel for rel in ranked]
    judged = [not math.isnan(rel) for rel in ranked]
    return order, y, judged


def _with_unjudged(y_true, unjudged):
    """y_true with unjudged rows marked nan (neither relevant nor judged)."""
    y_true = np.asarray(y_true, dtype=float)
    if unjudged is None:
        return y_true
    return np.where(np.asarray(unjudged, dtype=bool), np.nan, y_true)


def ref_bpref(y_true, y_score, *, unjudged=None, query_id=None, sample_weight=None,
              ties="average", no_relevant="skip", per_query=False):
    """trec_eval's bpref (``bpref_of``), the mean over the orderings of tied rows."""
    return _ref._evaluate(
        _with_unjudged(y_true, unjudged), y_score, query_id, sample_weight, ties,
        no_relevant, per_query,
        lambda q: _ref._expected(q, ties, lambda r: bpref_of(*_as_lists(r))),
    )


def ref_rbp(y_true, y_score, *, p=0.8, k=None, gain="binary", unjudged=None,
            query_id=None, sample_weight=None, ties="average", no_relevant="skip",
            per_query=False):
    """(1 - p) sum_{i <= k} gain_i p^(i - 1) over the judged rows (``rbp_of``)."""
    _ref._check_k("k", k)

    def value(ranked):
        order, y, judged = _as_lists(ranked)
        return rbp_of(order, y, judged, p=p, k=k, gain=gain)

    return _ref._evaluate(
        _with_unjudged(y_true, unjudged), y_score, query_id, sample_weight, ties,
        no_relevant, per_query, lambda q: _ref._expected(q, ties, value),
    )


def ref_gap(y_true, y_score, *, grade_probabilities=None, k=None, query_id=None,
            sample_weight=None, ties="average", no_relevant="skip", per_query=False):
    """Graded AP as printed in the paper (``gap_of``).

    ``grade_probabilities=None``: uniform over the grades 1 .. the largest
    grade of the whole input. A query whose denominator is 0 (no row reaches
    a threshold of positive probability) is undefined.
    """
    _ref._check_k("k", k)
    top = int(np.max(y_true))
    g = ([1 / top] * top if top > 0 else []) if grade_probabilities is None \
        else [float(v) for v in grade_probabilities]

    def undefined(query):
        return gap_of(list(range(len(query.relevance))), query.relevance, g=g) is None

    return _ref._evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _ref._expected(
            q, ties, lambda r: gap_of(list(range(len(r))), r, g=g, k=k)),
        undefined,
    )


def ref_pr_auc(y_true, y_score, *, query_id=None, sample_weight=None,
               ties="average", no_relevant="skip", per_query=False):
    """Trapezoids under the points (R@i, P@i) (``pr_auc_of``)."""
    return _ref._evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _ref._expected(q, ties, lambda r: pr_auc_of(list(range(len(r))), r)),
    )


def _stop_probability(y_true, max_grade):
    """{grade: the probability that a row of this grade stops the user}.

    ``max_grade=None``: the grade itself when every grade of the input is
    within [0, 1], else (2^g - 1) / 2^g_max with g_max the input's largest.
    """
    top = float(np.max(y_true))
    if max_grade is None and top <= 1:
        return lambda grade: grade
    g_max = top if max_grade is None else max_grade
    return lambda grade: (2.0**grade - 1) / 2.0**g_max


def _cascade_of(ranked, k, stop, weight, read_on):
    """sum_{i <= k} weight(i) * P(the user reaches rank i and stops there).

    Past a row that did not stop them the user reads on with probability
    ``read_on``: ERR weighs rank i by 1 / i and always reads on; pFound
    weighs every rank 1 and reads on with probability ``decay``.
    """
    total, reaching = 0.0, 1.0
    for i, grade in enumerate(ranked[:k], start=1):
        total += weight(i) * reaching * stop(grade)
        reaching *= (1 - stop(grade)) * read_on
    return total


def ref_err(y_true, y_score, *, k=None, max_grade=None, query_id=None,
            sample_weight=None, ties="average", no_relevant="skip", per_query=False):
    """ERR@k = sum_{i <= k} (1 / i) R_i prod_{j < i} (1 - R_j)."""
    _ref._check_k("k", k)
    stop = _stop_probability(y_true, max_grade)
    return _ref._evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _ref._expected(q, ties, lambda r: _cascade_of(r, k, stop, lambda i: 1 / i, 1.0)),
    )


def ref_pfound(y_true, y_score, *, k=None, decay=0.85, max_grade=None, query_id=None,
               sample_weight=None, ties="average", no_relevant="skip", per_query=False):
    """pFound@k = sum_{i <= k} R_i prod_{j < i} (1 - R_j) decay."""
    _ref._check_k("k", k)
    stop = _stop_probability(y_true, max_grade)
    return _ref._evaluate(
        y_true, y_score, query_id, sample_weight, ties, no_relevant, per_query,
        lambda q: _ref._expected(
            q, ties, lambda r: _cascade_of(r, k, stop, lambda i: 1.0, decay)),
    )


def ref_set_fbeta(y_true, y_pred, *, beta=1.0, query_id=None, sample_weight=None,
                  no_relevant="skip", per_query=False):
    """(1 + b^2) TP / (b^2 R + returned) of the rows with y_pred 1; 0 when TP = 0."""

    def value(query):
        pairs = list(zip(query.relevance, query.score))
        tp = sum(1 for rel, pred in pairs if rel > 0 and pred == 1)
        returned = sum(1 for _, pred in pairs if pred == 1)
        if tp == 0:
            return 0.0
        return (1 + beta**2) * tp / (beta**2 * query.n_relevant + returned)

    return _ref._evaluate(y_true, y_pred, query_id, sample_weight, "input",
                          no_relevant, per_query, value)


# scikit-learn's label ranking metrics, one query at a time, from their
# definitions: "at least as high" is s_i >= s_j, so a tie counts against.


def coverage_of(rel, score):
    relevant = [j for j in range(len(rel)) if rel[j] > 0]
    if not relevant:
        return 0.0
    return float(max(sum(1 for s in score if s >= score[j]) for j in relevant))


def label_ranking_loss_of(rel, score):
    relevant = [j for j in range(len(rel)) if rel[j] > 0]
    other = [i for i in range(len(rel)) if rel[i] <= 0]
    if not relevant or not other:
        return 0.0
    wrong = sum(1 for j in relevant for i in other if score[i] >= score[j])
    return wrong / (len(relevant) * len(other))


def lrap_of(rel, score):
    relevant = [j for j in range(len(rel)) if rel[j] > 0]
    if not relevant or len(relevant) == len(rel):
        return 1.0
    total = 0.0
    for j in relevant:
        above = [i for i in range(len(rel)) if score[i] >= score[j]]
        total += sum(1 for i in above if rel[i] > 0) / len(above)
    return total / len(relevant)


def _label_ranking(of, y_true, y_score, query_id, sample_weight, per_query):
    """Every query counts (no no_relevant policy), weighed by its mean row weight."""
    queries = _ref._split_queries(y_true, y_score, query_id, sample_weight)
    values = {q.qid: of(q.relevance, q.score) for q in queries}
    if per_query:
        return values
    return _ref._weighted_mean(values, {q.qid: q.query_weight for q in queries})


def ref_coverage_error(y_true, y_score, *, query_id=None, sample_weight=None,
                       per_query=False):
    """Rows scored at least as high as the lowest-scored relevant row (0: none)."""
    return _label_ranking(coverage_of, y_true, y_score, query_id, sample_weight,
                          per_query)


def ref_label_ranking_loss(y_true, y_score, *, query_id=None, sample_weight=None,
                           per_query=False):
    """Share of (relevant, other) pairs with the other row at least as high."""
    return _label_ranking(label_ranking_loss_of, y_true, y_score, query_id,
                          sample_weight, per_query)


def ref_label_ranking_average_precision(y_true, y_score, *, query_id=None,
                                        sample_weight=None, per_query=False):
    """Mean over relevant rows of relevant / all rows at least as high."""
    return _label_ranking(lrap_of, y_true, y_score, query_id, sample_weight, per_query)
