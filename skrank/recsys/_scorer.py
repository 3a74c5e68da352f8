"""Scorers of recommendation lists for model selection: make_recsys_scorer.

A model scores (user, item) rows; :class:`RecsysScorer` takes each test
fold's rows, makes each user's top-k list from the model's scores and
computes a beyond-accuracy metric of the lists. The history (training
interactions) is the scorer's own state, given once when it is made: it is
the same for every fold and every candidate model. The fold's users and
items arrive by metadata routing (``query_id``, ``item_id``) or from the
columns of a DataFrame ``X`` (``"qid"``, ``"item_id"``) that the model's
pipeline drops, as for the ranking scorers.
"""

import inspect

import numpy as np
from sklearn.utils.metadata_routing import UNCHANGED

from .._core._frames import column as frame_column
from .._core._validation import check_option
from ..model_selection._query_ids import QueryScorer, check_query_id_column, no_column_clause
from ..model_selection._response import RESPONSE_METHODS, ranking_scores
from ._names import RECSYS_METRICS, parse_recsys_name
from ._serendipity import serendipity_score

class RecsysScorer(QueryScorer):
    """A scikit-learn scorer of a beyond-accuracy metric of recommendation lists.

    Make one with :func:`make_recsys_scorer`. On a test fold, each user's
    ``k`` rows with the highest model scores are their list, and the
    metric is computed on the lists (``y`` is not read: these metrics do
    not use relevance; except by ``"serendipity"``, which reads ``y`` as
    each row's relevance). Combine it with an accuracy scorer in a ``scoring``
    dict and choose the model with a ``refit`` callable (see the user
    guide, :ref:`recsys`).

    Parameters
    ----------
    metric : str
        ``"novelty"``, ``"catalog_coverage"`` (``"coverage"``),
        ``"distributional_coverage"`` (``"entropy"``), ``"popularity"``
        (``"arp"``), ``"tail_share"`` (``"aplt"``), ``"gini"``,
        ``"intra_list_diversity"`` (``"ild"``; ``item_features`` or the
        history among the options) or ``"serendipity"``, with an optional
        cutoff ``"@k"``.
    options : dict, default=None
        Options of the metric's function, fixed for every call
        (``history_item_id``, ``k``, ``compat``, ...).
    item_id_column : str, int or None, default="item_id"
        Column of a DataFrame ``X`` read for the item ids when none are
        routed. None: never read a column.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for the user ids when none are
        routed. None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the scores, as for
        :class:`skrank.RankingScorer`.

    Examples
    --------
    >>> from skrank.recsys import RecsysScorer
    >>> scorer = RecsysScorer("novelty@10", {"history_item_id": [1, 1, 2]})
    >>> scorer.evaluate_scores(None, [0.9, 0.1], [7, 7], item_id=[1, 2])
    {'novelty@10': 1.0}
    """

    _metadata = ("query_id", "item_id")

    def __init__(self, metric, options=None, *, item_id_column="item_id",
                 query_id_column="qid", response_method="auto"):
        self.name = metric
        stem, k = parse_recsys_name(metric)
        self._func = RECSYS_METRICS[stem]
        options = dict(options or {})
        if k is not None:
            if options.get("k", k) != k:
                raise ValueError(f"`metric` {metric!r} fixes k={k}, but k={options['k']} "
                                 "was given too.")
            options["k"] = k
        takes = inspect.signature(self._func).parameters
        loose = sorted(set(options) - set(takes))
        if loose:
            raise ValueError(f"{self._func.__name__} takes no option {loose[0]!r}.")
        self._options = options
        self.item_id_column = check_query_id_column(item_id_column)
        self.query_id_column = check_query_id_column(query_id_column)
        self.response_method = check_option("response_method", response_method,
                                            RESPONSE_METHODS)
        self._init_requests()

    @property
    def options(self):
        """A copy of the metric's fixed options."""
        return dict(self._options)

    @property
    def greater_is_better(self):
        """True: the scorer returns the metric as it is (for ARP and Gini,
        lower means less popularity bias; use them as constraints)."""
        return True

    def __call__(self, estimator, X, y_true=None, sample_weight=None, query_id=None,
                 item_id=None, **kwargs):
        """Score a fitted estimator's lists on the (user, item) rows ``X``.

        Parameters
        ----------
        estimator : object
            A fitted estimator scoring (user, item) rows.
        X : array-like or DataFrame of shape (n_rows, n_features)
            The test rows.
        y_true : array-like, default=None
            Read only by ``"serendipity"``: each row's relevance.
        sample_weight : array-like, default=None
            Not read.
        query_id, item_id : array-like of shape (n_rows,), default=None
            The user and the item of each row. None: read the
            ``query_id_column`` / ``item_id_column`` of a DataFrame ``X``,
            else a ``ValueError``.
        **kwargs : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        score : float
        """
        if kwargs:
            raise TypeError(f"{self!r} got unexpected metadata {sorted(kwargs)}; it "
                            "accepts `query_id`, `item_id` and `sample_weight`.")
        given = {}
        for name, value in (("query_id", query_id), ("item_id", item_id)):
            column = getattr(self, f"{name}_column")
            if value is None and column is not None:
                value = frame_column(X, column)
            if value is None:
                raise ValueError(
                    f"{self!r} needs `{name}`, the {'user' if name == 'query_id' else 'item'}"
                    " of each row: pass it by metadata routing (params={" f"'{name}': ...}})"
                    + no_column_clause(X, column, f"{name}_column") + "."
                )
            given[name] = value
        y_score = ranking_scores(estimator, X, response_method=self.response_method)
        return self.evaluate_scores(y_true, y_score, given["query_id"],
                                    item_id=given["item_id"])[self.name]

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None, *, item_id):
        """The scorer's value on given scores, without a model: ``{name: value}``."""
        options = self._options
        if self._func is serendipity_score and y_true is not None and "relevant" not in options:
            options = {**options, "relevant": np.asarray(y_true)}
        value = self._func(np.asarray(item_id), np.asarray(y_score), query_id=query_id,
                           **options)
        return {self.name: float(value)}

    def set_score_request(self, *, query_id=UNCHANGED, item_id=UNCHANGED,
                          sample_weight=UNCHANGED):
        """Set which metadata the scorer requests (works with routing on or off).

        Parameters
        ----------
        query_id, item_id, sample_weight : bool, None or str, default=UNCHANGED
            As for :meth:`skrank.RankingScorer.set_score_request`; a string
            is an alias (``query_id="groups"``).

        Returns
        -------
        self : RecsysScorer

        Examples
        --------
        >>> from skrank.recsys import make_recsys_scorer
        >>> scorer = make_recsys_scorer("coverage@5").set_score_request(query_id="groups")
        >>> scorer.get_metadata_routing().score.requests["query_id"]
        'groups'
        """
        return self._set_requests(query_id=query_id, item_id=item_id,
                                  sample_weight=sample_weight)

    def _accept_sample_weight(self):
        return False

    def __repr__(self):
        shown = ", ".join(f"{name}=..." if name.startswith("history")
                          or name in ("catalog", "item_features")
                          else f"{name}={value!r}" for name, value in self._options.items()
                          if not (name == "k" and "@" in self.name))
        return f"make_recsys_scorer({self.name!r}{', ' if shown else ''}{shown})"


def make_recsys_scorer(metric, *, item_id_column="item_id", query_id_column="qid",
                       response_method="auto", **options):
    """Make a scikit-learn scorer of a beyond-accuracy metric of recommendation lists.

    Parameters
    ----------
    metric : str
        A metric name with an optional cutoff: ``"novelty@10"``,
        ``"coverage@10"`` (catalog coverage), ``"entropy@10"``
        (distributional coverage), ``"arp@10"`` (popularity), ``"aplt@10"``
        (tail share), ``"gini@10"``.
    item_id_column, query_id_column : str, int or None
        Columns of a DataFrame ``X`` read for the item and user ids when
        none are routed (defaults ``"item_id"`` and ``"qid"``).
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the scores.
    **options : dict
        Options of the metric's function, fixed for every fold: the history
        (``history_item_id=``, ``history_query_id=``), ``catalog=``,
        ``n_items=``, ``compat=``, ...

    Returns
    -------
    scorer : RecsysScorer

    Examples
    --------
    >>> from skrank.recsys import make_recsys_scorer
    >>> make_recsys_scorer("novelty@10", history_item_id=[1, 2, 2])
    make_recsys_scorer('novelty@10', history_item_id=...)
    """
    return RecsysScorer(metric, options, item_id_column=item_id_column,
                        query_id_column=query_id_column, response_method=response_method)
