"""Brute-force references for the toolbox metrics (bpref, RBP, GAP, weighted AP,
precision-recall curves, PR AUC, rank correlations).

Plain Python, written to be obvious: one query at a time, one explicit
ordering at a time. ``ties="average"`` is the mean over every ordering of
tied rows (``_reference.orderings``), each ordering counting once.

Every ``*_of`` function takes one complete ranking: a list of row indices
(rank 1 first) into the query's own lists.
"""

import math

import numpy as np

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
