"""Click logs of known position bias, one per logging design, for the estimators' tests.

Each simulator draws, for every query, its documents' relevance ``gamma``
(the logger's order puts them best first), shows the query in several
displayed lists under one design, and clicks each row with probability
``theta[position] * gamma`` (the position-based model). They return
``click, position, list_id, query_id, doc_id``, one row per displayed
document. The designs are written from their descriptions (Joachims et
al., WSDM 2017; Wang et al., WSDM 2018; Agarwal et al., WSDM 2019), not
from the estimators.
"""

import numpy as np


def _log(theta, gamma, query, order, length, rng):
    """Rows of lists showing ``gamma[query]``'s documents in ``order`` (list x slot)."""
    n_lists, width = order.shape
    slot = np.arange(width)[None, :]
    shown = slot < length[:, None]
    doc = order[shown]
    position = np.broadcast_to(slot + 1, order.shape)[shown]
    lists = np.broadcast_to(np.arange(n_lists)[:, None], order.shape)[shown]
    rows_query = query[lists]
    p_click = theta[position - 1] * gamma[rows_query, doc]
    click = (rng.random(p_click.shape[0]) < p_click).astype(np.int64)
    return click, position, lists, rows_query, doc


def _gamma(n_queries, width, rng, scale=1.0):
    """Relevance of each query's documents, best first (the logger's order)."""
    return np.sort(rng.beta(1.0, 2.0, (n_queries, width)) * scale, axis=1)[:, ::-1]


def shuffled_lists(theta, *, n_queries, n_lists, rng, lengths=None):
    """Each list a uniformly random order of its query's documents.

    ``lengths`` (one per query) makes lists of different lengths, with the
    documents of a short query more relevant than those of a long one (as
    when a rare, precise query has few good results): pooled click rates then
    compare different documents at different positions.
    """
    rng = np.random.default_rng(rng)
    width = theta.shape[0]
    lengths = np.full(n_queries, width) if lengths is None else np.asarray(lengths)
    # a short list's documents are relevant, a long list's much less so
    scale = np.where(lengths <= 1, 1.0, 1.0 / lengths)
    gamma = _gamma(n_queries, width, rng) * scale[:, None]
    query = np.repeat(np.arange(n_queries), n_lists)
    length = lengths[query]
    keys = rng.random((query.shape[0], width))
    keys[np.arange(width)[None, :] >= length[:, None]] = 2.0  # absent documents last
    order = np.argsort(keys, axis=1)
    return _log(theta, gamma, query, order, length, rng)


def shuffled_top(theta, n, *, n_queries, n_lists, rng):
    """Each list: its top ``n`` shuffled, the rest in the logger's order."""
    rng = np.random.default_rng(rng)
    width = theta.shape[0]
    gamma = _gamma(n_queries, width, rng)
    query = np.repeat(np.arange(n_queries), n_lists)
    order = np.tile(np.arange(width), (query.shape[0], 1))
    order[:, :n] = np.argsort(rng.random((query.shape[0], n)), axis=1)
    return _log(theta, gamma, query, order, np.full(query.shape[0], width), rng)


def rand_pair(theta, *, n_queries, n_lists, rng, swapped=1.0):
    """RandPair: the logger's top result swapped with one at a random lower position.

    ``swapped`` is the share of lists with the swap; the others show the
    logger's order.
    """
    rng = np.random.default_rng(rng)
    width = theta.shape[0]
    gamma = _gamma(n_queries, width, rng)
    query = np.repeat(np.arange(n_queries), n_lists)
    order = np.tile(np.arange(width), (query.shape[0], 1))
    lists = np.flatnonzero(rng.random(query.shape[0]) < swapped)
    lower = rng.integers(1, width, lists.shape[0])
    order[lists, 0], order[lists, lower] = lower, 0
    return _log(theta, gamma, query, order, np.full(query.shape[0], width), rng)


def adjacent_swaps(theta, *, n_queries, n_lists, rng):
    """Each list: the logger's order with one random pair of neighbours swapped."""
    rng = np.random.default_rng(rng)
    width = theta.shape[0]
    gamma = _gamma(n_queries, width, rng)
    query = np.repeat(np.arange(n_queries), n_lists)
    order = np.tile(np.arange(width), (query.shape[0], 1))
    first = rng.integers(0, width - 1, query.shape[0])
    rows = np.arange(query.shape[0])
    order[rows, first], order[rows, first + 1] = first + 1, first
    return _log(theta, gamma, query, order, np.full(query.shape[0], width), rng)


def deterministic(theta, *, n_queries, n_lists, rng):
    """Every list in the logger's order: no document ever moves."""
    rng = np.random.default_rng(rng)
    width = theta.shape[0]
    gamma = _gamma(n_queries, width, rng)
    query = np.repeat(np.arange(n_queries), n_lists)
    order = np.tile(np.arange(width), (query.shape[0], 1))
    return _log(theta, gamma, query, order, np.full(query.shape[0], width), rng)
