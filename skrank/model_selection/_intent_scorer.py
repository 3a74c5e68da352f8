"""The scorer of the intent-aware measures: query ids and 2-D intent grades routed.

A model is fitted on one relevance per row (``y``), but alpha-nDCG needs
the grade of each row for each intent: the scorer requests ``intents``
(shape (n_rows, n_intents)) besides ``query_id``, and scikit-learn's
metadata routing slices both to each test fold.
"""

import numpy as np

from .._core._validation import check_option
from ..metrics._intent_names import INTENT_DATA_OPTIONS, evaluate_intents, match_intent_name
from ._query_ids import UNCHANGED, QueryScorer, check_query_id_column
from ._response import RESPONSE_METHODS, ranking_scores


class IntentScorer(QueryScorer):
    """A scorer of intent-aware measures (:mod:`skrank.diversity`), by name.

    Made by :func:`skrank.get_scorer` for names such as ``"alpha_ndcg@10"``.
    It requests ``query_id`` and ``intents`` (the 2-D grades of the test
    rows, one column per intent) for ``score``: pass both to ``fit`` of a
    search (or in ``params`` of ``cross_validate``) with metadata routing
    on. Without routed ``intents`` a 2-D ``y`` is read as the grades.

    Parameters
    ----------
    metrics : str or list of str
        Intent-aware metric names (``"alpha_ndcg@10"``, ``"s_recall@10"``);
        a list gives ``{name: score}``.
    options : dict, default=None
        ``alpha``, ``beta``, ``relevance_level``, ``intent_weight``.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for query ids when none are routed.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores.

    Examples
    --------
    >>> from skrank import get_scorer
    >>> get_scorer("alpha_ndcg@10")
    get_scorer('alpha_ndcg@10')
    >>> get_scorer("alpha_ndcg@10").get_metadata_routing().score.requests
    {'query_id': True, 'intents': True, 'sample_weight': None}
    """

    _metadata = ("query_id", "intents")

    def __init__(self, metrics, options=None, *, query_id_column="qid",
                 response_method="auto"):
        single = isinstance(metrics, str)
        names = [metrics] if single else list(metrics)
        for name in names:
            if match_intent_name(name) is None:
                raise ValueError(f"{name!r} is not an intent-aware metric name.")
        options = dict(options or {})
        unknown = sorted(set(options) - set(INTENT_DATA_OPTIONS) - {"doc_id"})
        if unknown or "doc_id" in options:
            raise ValueError(
                f"An intent scorer takes the options alpha, beta, relevance_level and "
                f"intent_weight, got {sorted(options)}."
            )
        self._names, self._single, self._options = names, single, options
        self.query_id_column = check_query_id_column(query_id_column)
        self.response_method = check_option(
            "response_method", response_method, RESPONSE_METHODS
        )
        self._init_requests()

    @property
    def metrics(self):
        """The metric names (a str for a single-metric scorer)."""
        return self._names[0] if self._single else list(self._names)

    greater_is_better = True

    def __call__(self, estimator, X, y_true, sample_weight=None, query_id=None,
                 intents=None, **kwargs):
        """Score a fitted estimator on ``X``: the measures' means over its queries.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or DataFrame of shape (n_rows, n_features)
            The test rows.
        y_true : array-like of shape (n_rows,) or (n_rows, n_intents)
            The fitted target; the grades when 2-D and ``intents`` is None.
        sample_weight : None
            Not used by these measures (must be None).
        query_id : array-like of shape (n_rows,), default=None
            Query of each row (routed, or the ``query_id_column`` of ``X``).
        intents : array-like of shape (n_rows, n_intents), default=None
            The grade of each test row for each intent (routed).
        **kwargs : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        score : float or dict
        """
        query_id = self._fold_query_id(X, query_id, kwargs)
        y_score = ranking_scores(estimator, X, response_method=self.response_method,
                                 query_id=query_id)
        scores = self.evaluate_scores(y_true if intents is None else intents, y_score,
                                      query_id, sample_weight)
        return scores[self._names[0]] if self._single else scores

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None,
                        **metadata):
        """``{name: value}`` of given scores, ``y_true`` the 2-D intent grades.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> get_scorer("s_recall@1").evaluate_scores([[1, 0], [0, 1]], [2, 1], [7, 7])
        {'s_recall@1': 0.5}
        """
        if metadata.get("intents") is not None:
            y_true = metadata.pop("intents")
        metadata.pop("intents", None)
        query_id = self._fold_query_id(None, query_id, metadata)
        if sample_weight is not None:
            raise ValueError("The intent-aware measures take no `sample_weight`.")
        if np.ndim(y_true) != 2:
            raise ValueError(
                f"{self!r} needs the 2-D intent grades of the test rows (n_rows, "
                "n_intents): request and pass `intents` by metadata routing "
                "(search.fit(X, y, query_id=q, intents=Y) with routing on)."
            )
        return evaluate_intents(y_true, y_score, self._names, query_id=query_id,
                                no_relevant="zero", **self._options)

    def set_score_request(self, *, query_id=UNCHANGED, intents=UNCHANGED,
                          sample_weight=UNCHANGED):
        """Set which metadata the scorer requests (works with routing off too).

        Parameters
        ----------
        query_id, intents, sample_weight : bool, None or str, default=UNCHANGED
            True: receive it; a string: receive the metadata of that name;
            False: do not request it; None: error if it is passed.

        Returns
        -------
        self : IntentScorer

        Examples
        --------
        >>> from skrank import get_scorer
        >>> scorer = get_scorer("p_ia@5").set_score_request(query_id="groups")
        >>> scorer.get_metadata_routing().score.requests["query_id"]
        'groups'
        """
        return self._set_requests(query_id=query_id, intents=intents,
                                  sample_weight=sample_weight)

    def _accept_sample_weight(self):
        return False

    def __repr__(self):
        parts = [repr(self.metrics)]
        parts += [f"{key}={value!r}" for key, value in self._options.items()]
        return f"get_scorer({', '.join(parts)})"
