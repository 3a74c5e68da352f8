"""How a scorer gets the query ids of a test fold, and what it says without them.

A scorer is called as ``scorer(estimator, X, y_true, **metadata)`` by
scikit-learn's model selection tools. A ranking scorer needs the query id of
every row of the test fold; it gets them in one of two ways:

* **metadata routing** (``sklearn.set_config(enable_metadata_routing=True)``):
  the scorer requests ``query_id``, so scikit-learn hands it each fold's
  slice of ``params={"query_id": qid}``;
* **a DataFrame column**: with routing off, the scorer reads the ids from a
  column of ``X`` (``"qid"`` by default) that the estimator's pipeline drops.

Without either it raises a ``ValueError`` saying why and how to pass them: it
never scores all rows as one query. :class:`QueryScorer` holds this for every
skrank scorer (the requests, ``set_score_request``, ``get_metadata_routing``
and the fold's ids); the messages are built here from what the scorer
receives (its requests, whether routing is on, the type and columns of ``X``).
"""

from numbers import Integral

from sklearn import get_config
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .._core._frames import column as frame_column, column_names
from .._core._validation import describe


def routing_on():
    return bool(get_config().get("enable_metadata_routing", False))


def _check_alias(name, alias):
    """A metadata request: True, False, None or a valid identifier (an alias)."""
    if alias is None or isinstance(alias, bool):
        return alias
    if isinstance(alias, str) and alias.isidentifier():
        return True if alias == name else alias
    raise ValueError(
        f"`{name}` must be True, False, None or a parameter name to use as an "
        f"alias (such as \"groups\"), got {describe(alias)}."
    )


def no_column_clause(X, column, option="query_id_column", what="ids"):
    """Why no ``what`` came from a column of ``X`` (a clause of an error)."""
    if column is None:
        return (
            f", and reading {what} from a column of X is disabled ({option}=None)"
        )
    if column_names(X) is not None:
        return f", and X has no column {column!r}"
    return (
        f", and X (of type {type(X).__name__}) is not a DataFrame with a "
        f"{column!r} column"
    )


def _missing_query_id_message(scorer, X):
    column = scorer.query_id_column
    routing = routing_on()
    alias = scorer._score_request.get("query_id")
    if routing:
        if alias is False or alias is None:
            why = (
                "metadata routing is on, but this scorer's request for `query_id` "
                f"is set to {alias}"
            )
        elif isinstance(alias, str):
            why = (
                f"metadata routing is on, but no `{alias}` (the alias this scorer "
                "requests `query_id` under) was passed"
            )
        else:
            why = "metadata routing is on, but no `query_id` was passed"
    else:
        why = "metadata routing is off (so no `query_id` can reach a scorer)"
    why += no_column_clause(X, column)
    col = repr("qid" if column is None else column)
    name = alias if isinstance(alias, str) else "query_id"
    if routing and (alias is False or alias is None):
        routed = (
            "metadata routing (already on): request the ids with "
            "scorer.set_score_request(query_id=True) (or query_id='groups' to "
            "reuse the splitter's groups), then pass them with the data"
        )
    elif routing:
        routed = "metadata routing (already on): pass the ids with the data"
    else:
        routed = (
            "metadata routing: call sklearn.set_config(enable_metadata_routing=True), "
            "then pass the ids with the data"
        )
    params = "'groups': qid" if name == "groups" else f"'{name}': qid, 'groups': qid"
    fit = "groups=qid" if name == "groups" else f"{name}=qid, groups=qid"
    routed += (
        f": cross_validate(model, X, y, cv=GroupKFold(), scoring=scorer, "
        f"params={{{params}}}) or GridSearchCV(model, grid, "
        f"cv=GroupKFold(), scoring=scorer).fit(X, y, {fit})"
    )
    frame = (
        "a DataFrame column: give X as a pandas or polars DataFrame with a column "
        f"{col} holding the ids (make_ranking_scorer(..., query_id_column={col}) "
        "names another) and drop that column in the model's pipeline: "
        f"make_pipeline(ColumnTransformer([('qid', 'drop', [{col}])], "
        "remainder='passthrough'), model)"
    )
    permutation = (
        "skrank.permutation_importance(model, X, y, query_id=qid, scoring=scorer), "
        "which scores each query and never shuffles the ids"
    )
    ways = (
        "Pass them in one of two ways:\n"
        f"  1. {routed};\n"
        f"  2. {frame}.\n"
        "(sklearn.inspection.permutation_importance cannot route metadata: use "
        f"{permutation}.)\n"
    )
    return (
        f"{scorer!r} needs the query id of every row to score each query "
        f"separately, and got none: {why}. {ways}"
        "Without query ids a metric scores all rows as ONE ranked list; to do "
        "that on purpose, pass the same id for every row "
        "(query_id=np.zeros(len(y)))."
    )


def check_query_id_column(column):
    """``query_id_column`` as given: a column name or None, else a ValueError."""
    if column is None or (
        isinstance(column, (str, Integral)) and not isinstance(column, bool)
    ):
        return column
    raise ValueError(
        "`query_id_column` must be a column name (a string or an integer) or "
        f"None, got {describe(column)}."
    )


class QueryScorer:
    """What every skrank scorer shares: query ids, routing requests, column.

    Subclasses set ``query_id_column`` and call ``_init_requests()``. The
    metadata a scorer requests by default are listed in ``_metadata``
    (``query_id``; the click scorer adds ``position``); ``sample_weight`` is
    accepted but not requested unless set.
    """

    _metadata = ("query_id",)

    def _init_requests(self):
        self._score_request = {name: True for name in self._metadata}
        self._score_request["sample_weight"] = None

    @property
    def metadata(self):
        """The metadata the scorer reads from each test fold (``sample_weight`` aside).

        ``("query_id",)``; a click scorer's adds ``"position"``.
        """
        return tuple(self._metadata)

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None,
                        **metadata):
        """The scorer's values of given scores, without a model: ``{name: value}``.

        What the scorer returns for a model whose scores on the rows are
        ``y_score``, as a dict keyed by metric name, each value signed as
        the scorer returns it (greater is better: a loss is negated).
        :class:`skrank.QueryGroupRanker` calls it on its held-out rows for
        a scorer given as ``eval_metric``.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance (or clicks) of each row.
        y_score : array-like of shape (n_rows,)
            The scores to evaluate; higher ranks first.
        query_id : array-like of shape (n_rows,)
            The ids the scorer groups rows by (pass them positionally: a
            click scorer's are the displayed lists).
        sample_weight : array-like of shape (n_rows,), default=None
            Row weights.
        **metadata : dict
            The other metadata the scorer reads (:attr:`metadata`: the
            click scorer's ``position``).

        Returns
        -------
        values : dict
            Metric name -> value.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not define evaluate_scores."
        )

    def _fold_query_id(self, X, query_id, metadata):
        """The test fold's query ids (routed or from the column); refuse other metadata."""
        if metadata:
            accepted = [f"`{name}`" for name in self._score_request]
            raise TypeError(
                f"{self!r} got unexpected metadata {sorted(metadata)}; it accepts "
                f"{', '.join(accepted[:-1])} and {accepted[-1]}."
            )
        if query_id is None:
            query_id = self._query_id_from_column(X)
        return query_id

    def _query_id_from_column(self, X):
        column = self.query_id_column
        ids = None if column is None else frame_column(X, column)
        if ids is not None:
            return ids
        raise ValueError(_missing_query_id_message(self, X))

    def _set_requests(self, **aliases):
        """Set the requests given (UNCHANGED: leave one as it is)."""
        for name, alias in aliases.items():
            if alias is not UNCHANGED:
                self._score_request[name] = _check_alias(name, alias)
        return self

    # -- metadata routing ----------------------------------------------------
    def set_score_request(self, *, query_id=UNCHANGED, sample_weight=UNCHANGED):
        """Set which metadata the scorer requests, for metadata routing.

        Unlike scikit-learn's scorers, this works whether routing is on or
        off; the requests take effect when routing is on.

        Parameters
        ----------
        query_id : bool, None or str, default=UNCHANGED
            True (the default request): receive ``query_id``; a string: receive
            the metadata of that name as ``query_id`` (``query_id="groups"``
            reuses the splitter's ``groups``); False: do not request it;
            None: error if it is passed.
        sample_weight : bool, None or str, default=UNCHANGED
            The same for ``sample_weight`` (None, unset, by default).

        Returns
        -------
        self : RankingScorer or MultiMetricScorer
            The scorer, changed in place.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> scorer = get_scorer("map").set_score_request(query_id="groups")
        >>> scorer.get_metadata_routing().score.requests
        {'query_id': 'groups', 'sample_weight': None}
        """
        return self._set_requests(query_id=query_id, sample_weight=sample_weight)

    def get_metadata_routing(self):
        """The metadata the scorer requests (scikit-learn metadata routing).

        Returns
        -------
        request : sklearn.utils.metadata_routing.MetadataRequest
            ``score`` requests ``query_id`` unless changed with
            :meth:`set_score_request`.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> get_scorer("ndcg@10").get_metadata_routing().score.requests
        {'query_id': True, 'sample_weight': None}
        """
        request = MetadataRequest(owner=self)
        for name, alias in self._score_request.items():
            request.score.add_request(param=name, alias=alias)
        return request

    def _routing_repr(self):
        # scikit-learn's routing error messages name the scorer with this
        return repr(self)
