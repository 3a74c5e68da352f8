"""Passages rolled up to documents: :func:`aggregate_run` (MaxP, SumP, mean).

A retriever that ranks passages (chunks) and qrels that judge documents
(or the reverse) meet when each document takes one score from its
passages: the best (MaxP), their sum (SumP) or their mean (Dai and Callan,
SIGIR 2019).
"""

from collections.abc import Mapping

import numpy as np

from .._core._params import choice, validate_params
from ._read import as_table


def _document_labels(passages, doc_of):
    """The document of each passage label; a passage ``doc_of`` lacks is an error."""
    if hasattr(doc_of, "to_dict") and not isinstance(doc_of, Mapping):  # a pandas Series
        doc_of = doc_of.to_dict()
    if not isinstance(doc_of, Mapping):
        raise ValueError(f"`doc_of` must map each passage id to its document id (a dict or "
                         f"a pandas Series), got {type(doc_of).__name__}.")
    lookup = {str(p): str(d) for p, d in doc_of.items()}
    passages = [str(p) for p in passages]
    docs = [lookup.get(p) for p in passages]
    missing = [p for p, d in zip(passages, docs) if d is None]
    if missing:
        shown = ", ".join(repr(p) for p in missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise ValueError(f"`doc_of` has no document for {len(missing)} passage(s) of the run: "
                         f"{shown}. Map every retrieved passage to its document.")
    return np.asarray(docs, dtype=object)


@validate_params({"method": choice("max", "sum", "mean")})
def aggregate_run(run, doc_of, *, method="max"):
    """Roll a run of passages up to documents: each document scored from its passages.

    Parameters
    ----------
    run : str, path-like, pandas.DataFrame or dict
        A run of passages in a form :func:`evaluate_run` reads: a TREC run
        file, a DataFrame (``query_id``, ``doc_id``, ``score``, or ``rank``),
        ``{query_id: {passage_id: score}}`` or ``{query_id: [passage ids,
        best first]}`` (scores falling from the list's length to 1).
    doc_of : dict or pandas.Series
        ``{passage_id: doc_id}``: the document each passage comes from.
        Ids compare as text. Every passage of the run must be in it.
    method : {"max", "sum", "mean"}, default="max"
        A document's score: its best passage's (MaxP), the sum (SumP) or
        the mean of its retrieved passages' scores.

    Returns
    -------
    documents : dict or pandas.DataFrame
        A DataFrame (``query_id``, ``doc_id``, ``score``) for a DataFrame
        run, else ``{query_id: {doc_id: score}}``; each query's documents
        by score, descending (ties by document id), queries in the run's
        order. :func:`evaluate_run` takes either.

    Raises
    ------
    ValueError
        When ``doc_of`` lacks a passage of the run, naming it.

    See Also
    --------
    evaluate_run

    Notes
    -----
    Only retrieved passages count: the mean is over a document's
    retrieved passages, not all of its passages. With id lists the scores
    are positions (the first of n passages scores n), so ``"max"`` ranks a
    document by its best passage's place; ``"sum"`` and ``"mean"`` of
    positions are seldom what one wants: give scores.

    Examples
    --------
    >>> from skrank.io import aggregate_run
    >>> run = {"q1": {"a#1": 0.9, "b#1": 0.8, "a#2": 0.5, "b#2": 0.7}}
    >>> doc_of = {"a#1": "a", "a#2": "a", "b#1": "b", "b#2": "b"}
    >>> aggregate_run(run, doc_of)                  # MaxP
    {'q1': {'a': 0.9, 'b': 0.8}}
    >>> aggregate_run(run, doc_of, method="sum")    # SumP: b 1.5, a 1.4
    {'q1': {'b': 1.5, 'a': 1.4}}
    """
    table = as_table(run, "run", "run")
    if len(table) == 0:
        raise ValueError("`run` holds no retrieved passage.")
    passages = table.doc_strings()
    passage_labels, passage_codes = np.unique(passages.astype(str), return_inverse=True)
    doc_labels, doc_codes = np.unique(_document_labels(passage_labels, doc_of).astype(str),
                                      return_inverse=True)
    doc = doc_codes.ravel()[passage_codes.ravel()]
    n_docs = doc_labels.shape[0]
    key = table.query.astype(np.int64) * n_docs + doc
    keys, group = np.unique(key, return_inverse=True)
    group = group.ravel()
    if method == "max":
        score = np.full(keys.shape[0], -np.inf)
        np.maximum.at(score, group, table.value)
    else:
        score = np.bincount(group, weights=table.value, minlength=keys.shape[0])
        if method == "mean":
            score = score / np.bincount(group, minlength=keys.shape[0])
    query, doc = keys // n_docs, keys % n_docs
    # by query (the run's order), score descending, then document id
    order = np.lexsort((doc, -score, query))
    query, doc, score = query[order], doc[order], score[order]
    queries, docs = table.query_labels[query], doc_labels[doc]
    if hasattr(run, "columns"):
        from .._core._optional import import_optional

        pd = import_optional("pandas", "aggregate_run() of a DataFrame")
        return pd.DataFrame({"query_id": pd.Series(queries, dtype=object).astype(str),
                             "doc_id": pd.Series(docs, dtype=object).astype(str),
                             "score": score})
    out = {}
    for q, d, s in zip(queries.tolist(), docs.tolist(), score.tolist()):
        out.setdefault(str(q), {})[str(d)] = s
    return out
