"""RankingAccumulator: metric state to update batch by batch, merge and finish.

The state is what :func:`skrank.dask.evaluate` already reduces, plus the rows
of the queries still open:

* **closed queries** are scored as soon as they are known to be complete, by
  the very layout and kernels :func:`evaluate` uses
  (:func:`~skrank.metrics._evaluate.metric_query_values`), and reduced to one
  mergeable :class:`~skrank._core._aggregate.PartialMean` per metric; their
  rows are let go;
* **open queries** keep their rows, in arrival order (``ties="input"``
  follows it). When every metric only reads the top k
  (:data:`TOP_K_STEMS` with a cutoff), an open query keeps only its rows
  scored at least as high as its k-th row (the whole tie block at the
  boundary) and a summary of the rest: their number, weight sum, relevant
  count and their k largest grades, which is all the ideal DCG, R and the
  query weight need. The summary enters the layout as rows scored ``-inf``
  (judged, never retrieved), which never fall inside a cutoff.
"""

import warnings

import numpy as np

from .._core._aggregate import (
    apply_no_relevant,
    check_aggregate_options,
    finish_mean,
    merge_partial_means,
    partial_mean,
    PartialMean,
    QueryValues,
)
from .._core._factorize import factorize
from .._core._layout import TIES
from .._core._params import RANKING_OPTIONS
from .._core._validation import (
    describe,
    to_array,
    check_bool,
    check_option,
    check_relevance,
    check_sample_weight,
    check_score,
    tensor_cast_hint,
)
from ._calls import call_metric
from ._evaluate import (
    metric_names,
    MetricRequest,
    _options_by_metric,
    metric_query_values,
    split_options,
)
from ._contiguous import (
    CompletedIds,
    check_not_completed,
    check_runs_differ,
    codes as _codes,
    grouped_by_first_row,
    run_ids as _run_ids,
)
from ._open_rows import Rows, concat_ids, concat_rows, member, rank_rows, top_k_rows
from ._registry import METRICS, parse_metric_name

#: metrics whose value with a cutoff k reads only the top k rows of a query,
#: its relevant count R, its k largest grades (ideal DCG) and its weight
#: (the registry's ``top_k_only``)
TOP_K_STEMS = frozenset(stem for stem, spec in METRICS.items() if spec.top_k_only)
# open rows past which the top-k-only state is compacted (then twice what was kept)
_COMPACT_MIN_ROWS = 1 << 16


def to_host_array(name, values):
    """``values`` as a numpy array in host memory, whatever library made it.

    * PyTorch tensors (and anything with ``detach``, ``cpu`` and ``numpy``
      methods), on CPU or GPU: ``values.detach().cpu().numpy()``, one copy
      to host memory per call; torch itself is never imported.
    * pandas, polars and other Series: their ``to_numpy``.
    * Anything else numpy reads (lists, numpy arrays, objects with
      ``__array__`` or the buffer protocol, such as JAX arrays): numpy's
      ``asarray``.
    * Other Array API objects with ``__dlpack__`` on the CPU:
      ``numpy.from_dlpack``. Arrays on another device (CuPy, ...) must be
      moved to the host first (CuPy: ``.get()``); the error says so.
    """
    if all(hasattr(values, attr) for attr in ("detach", "cpu", "numpy")):
        try:
            return values.detach().cpu().numpy()
        except TypeError as exc:  # a dtype numpy lacks, such as torch.bfloat16
            raise ValueError(
                f"`{name}` could not be read as a numpy array ({exc})"
                f"{tensor_cast_hint(name, values)}."
            ) from exc
    try:
        return to_array(name, values)
    except (TypeError, ValueError) as exc:
        if hasattr(values, "__dlpack__"):
            try:
                return np.from_dlpack(values)
            except (TypeError, ValueError, RuntimeError, BufferError):
                pass
        raise ValueError(
            f"`{name}` could not be read as a numpy array ({describe(values)}); "
            "arrays on a GPU must be moved to host memory first (CuPy: .get(), "
            f"JAX: numpy.asarray). {exc}"
        ) from exc


class RankingAccumulator:
    """Ranking metrics computed batch by batch, in bounded memory, mergeable.

    Feed rows with :meth:`update` as they come (a validation loop's
    batches, chunks of a file larger than memory, partitions of a cluster),
    combine accumulators with :meth:`merge`, and read :meth:`result`: the
    same mapping as :func:`evaluate` on all the rows at once, whatever the
    batching, also when a query's rows arrive in several updates or in
    accumulators merged later.

    Parameters
    ----------
    metrics : str or list of str, default=None
        Metric names, as for :func:`evaluate` (``"ndcg@10"``, ``"map"``,
        ``"mrr"``, ...). None: :func:`evaluate`'s default metrics.
    contiguous : bool, default=False
        Whether the rows of each query arrive together (a log written in
        query order, a TREC run grouped by query): a new query id then
        completes the query before it, which is scored and let go at once.
        Only the first and the last query seen stay open (so that a query
        cut between two accumulators is joined by :meth:`merge`). An id
        that comes back after another query, in the same update or a later
        one, raises a ValueError: the accumulator keeps the id of every
        completed query for this (8 bytes per numeric id, a set entry per
        string id; see Notes).
    keep_per_query : bool, default=False
        Whether completed queries also keep their per-query values, for
        :meth:`per_query` (memory grows with the number of queries; without
        it, with the number of open queries only).
    **options : dict
        What they mean in :func:`evaluate`: ``ties``, ``no_relevant`` and
        the metric options (``gain="linear"``, ``normalize="min"``,
        ``beta=2.0``, ...).

    Attributes
    ----------
    metrics : list of str
        The metric names, in the order :meth:`result` returns them.
    n_rows_ : int
        Rows given to :meth:`update` (and merged in) so far.

    See Also
    --------
    evaluate : the same metrics on rows held in memory at once.
    skrank.dask.evaluate : the same on a Dask DataFrame.

    Notes
    -----
    **When a query is complete.** A query's rows may arrive in any number
    of updates, in any order, until it is complete: when an update passes
    ``complete=True`` (its queries have all their rows), with
    ``contiguous=True`` when another query starts, or at :meth:`result`.
    A completed query is scored and kept as partial sums (per metric:
    weighted sum, weight sum, counts), so its rows cost no more memory.
    Rows given later under the id of a completed query form another query,
    except with ``contiguous=True``, where they raise a ValueError (also
    when :meth:`merge` meets an id completed on one side and present on the
    other; a query open on both sides was cut between them and is joined).
    To tell, a contiguous accumulator keeps the ids of its completed
    queries: integer and float ids in sorted int64/float64 arrays, 8 bytes
    each (16 MB for two million queries), strings and other ids in a Python
    set (some 60 to 100 bytes each, the id object included). To go on
    updating after merges, merge the pieces in stream order.

    **Metrics that read the largest grade of all rows.** ``err`` and
    ``pfound`` with ``max_grade=None`` turn grades above 1 into
    probabilities by the largest grade of all rows, and ``gap`` with
    ``grade_probabilities=None`` spreads its thresholds over grades 1 to
    that grade. A query scored before every row is in cannot know it, so
    with ``contiguous=True`` or ``complete=True`` these raise a ValueError
    as soon as a grade above 1 arrives: give ``max_grade`` (the top of the
    grade scale) or ``grade_probabilities``, or keep queries open until
    :meth:`result`. 0/1 labels and grades within [0, 1] need neither.

    **What an open query keeps.** All its rows, unless every metric only
    reads the top k: ``ndcg@k``, ``dcg@k``, ``map@k``, ``mrr@k``,
    ``precision@k``, ``recall@k``, ``f1@k``, ``fap@k`` and ``hit_rate@k``
    (with their kernel options). Then an open query keeps the rows scored
    at least as high as its k-th row (k the largest cutoff; the whole tie
    block at the boundary, so tie averaging stays exact) and, for the rest,
    their number and weight sum (the query weight), their relevant count
    (R: recall, MAP's normaliser, ``no_relevant``) and their k largest
    grades (the ideal DCG). Metrics without a cutoff or over the whole
    list (``map``, ``r_precision``, ``gauc``, ``bpref``, ``pr_auc``,
    ``rbp``, ``gap``...) need every row of an open query.

    **Order.** :meth:`per_query` lists queries in ascending order of id,
    as :func:`evaluate` does (a pandas Categorical's ids are read as their
    values). With ``ties="input"``, tied rows keep their arrival order;
    :meth:`merge` puts the other accumulator's rows after this one's.

    **Inputs.** Each argument of :meth:`update` may be a list, a numpy
    array, a pandas or polars Series, or a PyTorch tensor on CPU or GPU
    (moved to host memory once per update; torch is not imported by
    skrank). Other array libraries: anything ``numpy.asarray`` reads
    (``__array__``, the buffer protocol), else a CPU array with
    ``__dlpack__`` through ``numpy.from_dlpack``; move GPU arrays of other
    libraries to the host first.

    Examples
    --------
    >>> from skrank import RankingAccumulator, evaluate
    >>> acc = RankingAccumulator(["precision@2", "mrr"])
    >>> acc.update([1, 0, 0], [0.9, 0.8, 0.7], query_id=["a", "a", "b"])
    >>> acc.update([1, 1], [0.6, 0.5], query_id=["b", "c"])   # "b" goes on
    >>> acc.result()
    {'precision@2': 0.5, 'mrr': 0.8333...}
    >>> evaluate([1, 0, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5],
    ...          query_id=["a", "a", "b", "b", "c"], metrics=["precision@2", "mrr"])
    {'precision@2': 0.5, 'mrr': 0.8333...}

    Two accumulators (two workers) merge; a query may span both:

    >>> left = RankingAccumulator(["mrr"])
    >>> left.update([0, 1], [0.9, 0.8], query_id=[1, 2])
    >>> right = RankingAccumulator(["mrr"])
    >>> right.update([1, 0], [0.5, 0.95], query_id=[1, 2])
    >>> left.merge(right).result()      # query 1: RR 1/2, query 2: RR 1/2
    {'mrr': 0.5}
    """

    def __init__(self, metrics=None, *, contiguous=False, keep_per_query=False,
                 **options):
        metrics = metric_names(metrics)
        self.metrics = metrics
        self.contiguous = check_bool("contiguous", contiguous)
        self.keep_per_query = check_bool("keep_per_query", keep_per_query)
        rules = RANKING_OPTIONS  # the options evaluate checks
        self._options = {
            key: rules[key].check(key, value) if key in rules else value
            for key, value in options.items()
        }
        if "aggregate" in self._options:
            raise ValueError(
                "`aggregate` is not an option of RankingAccumulator: result() "
                "returns the means, per_query() the per-query values."
            )
        self._build()
        self.reset()

    # -- configuration -------------------------------------------------------
    def _build(self):
        options = dict(self._options)
        _refuse_conventions(options)
        ties = options.pop("ties", "average")
        no_relevant = options.pop("no_relevant", "skip")
        check_option("ties", ties, TIES)
        check_aggregate_options(no_relevant, "mean")
        parsed = [parse_metric_name(name) for name in self.metrics]
        taken = _options_by_metric(self.metrics, parsed, options)
        self._requests = []
        for name, (spec, k) in zip(self.metrics, parsed):
            kernel_options, function_options = split_options(spec, taken[name])
            self._requests.append(MetricRequest(
                name, spec, k, kernel_options, function_options, no_relevant, ties
            ))
        self._ties = ties
        self._binary = any(spec.binary for spec, _ in parsed)
        self._grade_scale = [
            (r.key, option) for r in self._requests
            for stem, option in _GRADE_SCALE_OPTIONS
            if r.spec.stem == stem
            and {**r.kernel_options, **r.function_options}.get(option) is None
        ]
        top_k = all(
            spec.stem in TOP_K_STEMS and k is not None and not r.function_options
            for r, (spec, k) in zip(self._requests, parsed)
        )
        self._top_k = max(k for _, k in parsed) if top_k else None

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_requests"]  # the registry's kernels: rebuilt from the names
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        # accumulators pickled before these were kept
        self.__dict__.setdefault("_top_grade", 0.0)
        self.__dict__.setdefault("_scored_early", False)
        self.__dict__.setdefault("_closed_ids", CompletedIds())
        self._build()

    def __repr__(self):
        return (
            f"RankingAccumulator(metrics={self.metrics!r}, "
            f"n_rows_={self.n_rows_}, open_rows={self._n_open()})"
        )

    def _same_configuration(self, other):
        return (
            isinstance(other, RankingAccumulator)
            and self.metrics == other.metrics
            and self.contiguous == other.contiguous
            and self.keep_per_query == other.keep_per_query
            and self._options == other._options
        )

    # -- public API ----------------------------------------------------------
    def reset(self):
        """Forget every row and result; the metrics and options stay."""
        self.n_rows_ = 0
        self._open = None  # Rows of open queries (plain rows, then summaries)
        self._compact_at = _COMPACT_MIN_ROWS
        self._partials = [PartialMean(0.0, 0.0, 0.0, 0) for _ in self.metrics]
        self._per_query = []  # (ids, [(values, weights) per metric]) chunks
        self._top_grade = 0.0  # the largest grade of every row so far
        self._scored_early = False  # whether queries were scored before result()
        self._closed_ids = CompletedIds()  # contiguous=True: ids of completed queries

    def update(self, y_true, y_score, *, query_id, sample_weight=None,
               complete=False):
        """Add rows: any number of times, with queries in any order.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance of each row, as for :func:`evaluate`.
        y_score : array-like of shape (n_rows,)
            Score of each row. PyTorch tensors (CPU or GPU), numpy arrays,
            pandas and polars Series, lists.
        query_id : array-like of shape (n_rows,)
            Query of each row (required): ints, strings or any hashable ids.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row; a query weighs the mean of its rows' weights.
        complete : bool, default=False
            Whether the queries of this batch now have all their rows: they
            are scored and their rows let go.

        Notes
        -----
        A batch without rows (every argument empty) changes nothing. A
        tensor of a dtype numpy lacks (``torch.bfloat16``) is refused with
        the cast to make (``.float()``).
        """
        rows = self._check_rows(y_true, y_score, query_id, sample_weight)
        complete = check_bool("complete", complete)
        if rows is None:  # an empty batch: nothing to add
            return
        n_rows = len(rows)
        closing = complete or self.contiguous
        top_grade = max(self._top_grade, float(rows.relevance.max()))
        self._check_grade_scale(top_grade, closing or self._scored_early)
        open_rows = self._open
        if complete:
            if self.contiguous:
                self._check_not_closed(_run_ids(rows.ids), "was completed in an "
                                       "earlier update")
            if open_rows is not None:
                joins = member(open_rows.ids, rows.ids)
                rows = concat_rows([open_rows.take(joins), rows])
                open_rows = open_rows.take(~joins) if not joins.all() else None
            self._close(rows)
            if self.contiguous:
                self._closed_ids.add(_run_ids(rows.ids))
            self._open = open_rows
        elif self.contiguous:
            self._update_contiguous(concat_rows([open_rows, rows]))
        else:
            self._open = concat_rows([open_rows, rows])
            self._maybe_compact()
        self.n_rows_ += n_rows
        self._top_grade = top_grade
        self._scored_early = self._scored_early or closing

    def merge(self, other):
        """Add the rows and results of another accumulator; returns ``self``.

        ``other`` must have the same metrics and options; it is left as it
        was. Merging is associative and the result does not depend on the
        order or the tree of merges (except for the order of tied rows
        under ``ties="input"``).
        """
        if not self._same_configuration(other):
            raise ValueError(
                "`other` must be a RankingAccumulator with the same metrics and "
                f"options, got {other!r}."
            )
        self._check_grade_scale(max(self._top_grade, other._top_grade),
                                self._scored_early or other._scored_early)
        if self.contiguous:
            self._check_merge_contiguous(other)
        self._partials = [
            merge_partial_means([a, b]) for a, b in zip(self._partials, other._partials)
        ]
        self._per_query = self._per_query + other._per_query
        self.n_rows_ += other.n_rows_
        # open queries stay open (with contiguous=True too: a query cut
        # between two pieces of the stream joins whatever the merge order)
        self._open = concat_rows([self._open, other._open])
        self._maybe_compact()
        self._top_grade = max(self._top_grade, other._top_grade)
        self._scored_early = self._scored_early or other._scored_early
        if self.contiguous:
            self._closed_ids = self._closed_ids.union(other._closed_ids)
            if self._open is not None:  # one run per open query
                order = grouped_by_first_row(self._open, self._open.ids)
                if order is not None:
                    self._open = self._open.take(order)
        return self

    def result(self):
        """Metric name -> weighted mean over queries, as :func:`evaluate` returns.

        Open queries are scored as they are (the accumulator is not
        changed: more rows may follow).
        """
        self._check_not_empty()
        partials = self._partials
        if self._open is not None:
            scored, _, _ = self._score(self._open, keep=False)
            partials = [merge_partial_means([a, b]) for a, b in zip(partials, scored)]
        return {name: finish_mean(p) for name, p in zip(self.metrics, partials)}

    def per_query(self):
        """Metric name -> :class:`QueryValues`, as ``evaluate(..., aggregate=None)``.

        Queries come in ascending order of id. Needs ``keep_per_query=True``.
        """
        if not self.keep_per_query:
            raise ValueError(
                "per_query() needs the per-query values of completed queries: "
                "create the accumulator with keep_per_query=True."
            )
        self._check_not_empty()
        chunks = list(self._per_query)
        partials = self._partials
        if self._open is not None:
            scored, chunk, _ = self._score(self._open, keep=True)
            chunks.append(chunk)
            partials = [merge_partial_means([a, b]) for a, b in zip(partials, scored)]
        for p in partials:
            if p.n_undefined:
                finish_mean(p)  # raises the no_relevant="error" ValueError
        ids = concat_ids([c[0] for c in chunks])
        order = np.argsort(_codes(ids), kind="stable")
        results = {}
        for i, name in enumerate(self.metrics):
            values = np.concatenate([c[1][i][0] for c in chunks])[order]
            weights = np.concatenate([c[1][i][1] for c in chunks])[order]
            results[name] = QueryValues(ids[order], values, weights)
        return results

    # -- internals -----------------------------------------------------------
    def _check_not_empty(self):
        if self.n_rows_ == 0:
            raise ValueError(
                "The accumulator has no rows: call update() before result()."
            )

    def _n_open(self):
        return 0 if self._open is None else len(self._open)

    def _check_rows(self, y_true, y_score, query_id, sample_weight):
        if query_id is None:
            raise ValueError(
                "`query_id` is required: one id per row (the rows of a query "
                "may arrive in several updates)."
            )
        relevance = to_host_array("y_true", y_true)
        score = to_host_array("y_score", y_score)
        if _empty_batch(relevance, score, query_id, sample_weight):
            return None
        relevance = check_relevance(relevance, binary=self._binary)
        score = check_score("y_score", score)
        if relevance.ndim != 1 or score.ndim != 1:
            raise ValueError(
                "`y_true` and `y_score` must be 1-D (one entry per row) for "
                f"update(), got shapes {relevance.shape} and {score.shape}."
            )
        if relevance.shape != score.shape:
            raise ValueError(
                f"`y_true` and `y_score` have different lengths: "
                f"{relevance.shape[0]} and {score.shape[0]}."
            )
        ids = query_id
        if not isinstance(ids, (list, tuple)):
            ids = to_host_array("query_id", ids)
        factorize(ids, relevance.shape[0])  # validates: length, missing ids
        ids = _as_ids(ids)
        weight = sample_weight
        if weight is not None:
            weight = to_host_array("sample_weight", weight)
        weight = check_sample_weight(weight, relevance.shape[0])
        return Rows(relevance, score, ids, weight)

    def _update_contiguous(self, rows):
        """Close every query but the first and the last runs of ids."""
        ids = rows.ids
        change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        run_ids = ids[np.r_[0, change]]
        check_runs_differ(run_ids)
        self._check_not_closed(run_ids, "was completed in an earlier update")
        if change.shape[0] < 2:  # at most two runs: both stay open
            self._open = rows
            return
        first_end, last_start = change[0], change[-1]
        closed = rows.take(slice(first_end, last_start))  # views, no copy
        kept = concat_rows([rows.take(slice(0, first_end)),
                             rows.take(slice(last_start, None))])
        scored, chunk, _ = self._score(closed, keep=self.keep_per_query)
        self._add(scored, chunk)
        self._closed_ids.add(run_ids[1:-1])
        self._open = kept

    def _check_not_closed(self, ids, how):
        check_not_completed(self._closed_ids, ids, how)

    def _check_merge_contiguous(self, other):
        """contiguous=True: a query completed on one side has no rows on the other.

        A query open on both sides is one cut between the two pieces of the
        stream, and is joined.
        """
        for done, rows in ((self._closed_ids, other._open),
                           (other._closed_ids, self._open)):
            if rows is not None:
                check_not_completed(done, _run_ids(rows.ids),
                                    "was completed in one accumulator (merge)")
        both = self._closed_ids.first_common(other._closed_ids)
        if both is not None:
            raise ValueError(
                f"contiguous=True, but query id {both!r} was "
                "completed in both accumulators (merge): with contiguous=True "
                "the rows of each query must arrive together. Use "
                "contiguous=False when pieces of the stream share queries."
            )

    def _check_grade_scale(self, top_grade, scores_early):
        """Refuse metrics reading the largest grade of all rows, when it is unknown.

        ``err`` and ``pfound`` with ``max_grade=None`` turn grades above 1
        into probabilities by the largest grade of all rows, ``gap`` with
        ``grade_probabilities=None`` spreads its thresholds over grades 1 to
        that largest grade. A query scored before :meth:`result` (``complete=True``,
        ``contiguous=True``) would use the largest grade seen so far, so
        graded rows are refused in those modes (0/1 and [0, 1] labels are
        read the same whatever comes later).
        """
        if top_grade <= 1.0 or not scores_early or not self._grade_scale:
            return
        name, option = self._grade_scale[0]
        example = "max_grade=4" if option == "max_grade" else (
            "grade_probabilities=[0.25, 0.25, 0.25, 0.25]")
        raise ValueError(
            f"{name!r} with {option}=None reads the largest grade of all rows "
            f"(a grade of {top_grade:g} has arrived), which is known only once "
            "every row is in; this accumulator scores queries before that "
            "(contiguous=True or complete=True), so its value would depend on "
            f"the batching. Give {option} for the top of the grade scale (such "
            f"as {example}), or leave queries open (contiguous=False, no "
            "complete=True) for result() to score them all at once."
        )

    def _close(self, rows):
        scored, chunk, _ = self._score(rows, keep=self.keep_per_query)
        self._add(scored, chunk)

    def _add(self, scored, chunk):
        """Add the partial sums (and per-query values) of scored queries."""
        self._partials = [
            merge_partial_means([a, b]) for a, b in zip(self._partials, scored)
        ]
        if chunk is not None:
            self._per_query.append(chunk)

    def _score(self, rows, keep):
        """Partial means of ``rows`` (whole queries), per-query values if ``keep``,
        and the number of queries."""
        ranked = None
        partials, per_metric = [], []
        for request in self._requests:
            if request.function_options:
                values, weights, ids = _function_values(request, rows)
                partials.append(partial_mean(values, weights))
                per_metric.append((values, weights))
                continue
            if ranked is None:
                ranked = rank_rows(rows, self._ties, self._binary)
            values, undefined, weights, policy = metric_query_values(
                ranked, request.spec, request.k, request.no_relevant,
                request.kernel_options,
            )
            partials.append(partial_mean(
                values, weights, undefined=undefined, query_ids=ranked.query_ids,
                no_relevant=policy,
            ))
            if keep:
                filled = np.where(undefined, np.nan, values) if policy == "error" else (
                    apply_no_relevant(values, undefined, ranked, policy)
                )
                per_metric.append((np.asarray(filled, dtype=float), weights))
            ids = ranked.query_ids
        return partials, ((ids, per_metric) if keep else None), ids.shape[0]

    def _maybe_compact(self):
        if self._top_k is None or self._n_open() < self._compact_at:
            return
        self._compact()

    def _compact(self):
        """Top-k-only metrics: open queries keep their top rows and a summary."""
        if self._top_k is None or self._open is None:
            return
        self._open = top_k_rows(self._open, self._top_k)
        self._compact_at = max(_COMPACT_MIN_ROWS, 2 * len(self._open))


#: (metric stem, option): the metric's value reads the largest grade of all
#: rows when the option is None
_GRADE_SCALE_OPTIONS = (
    ("err", "max_grade"), ("pfound", "max_grade"), ("gap", "grade_probabilities"),
)


def _empty_batch(relevance, score, query_id, sample_weight):
    """Whether update() was given no row at all (every argument empty)."""
    if relevance.shape != (0,) or score.shape != (0,) or query_id is None:
        return False
    for name, values, what in (("query_id", query_id, "id"),
                               ("sample_weight", sample_weight, "weight")):
        if values is not None and len(values):
            raise ValueError(
                f"`{name}` has {len(values)} {what}(s) but `y_true` and `y_score` "
                "are empty: give one per row."
            )
    return True


def _as_ids(ids):
    if isinstance(ids, (list, tuple)):
        from .._core._factorize import as_id_array

        return as_id_array(ids)
    ids = np.asarray(ids)
    return ids


def _refuse_conventions(options):
    """compat=, score_dtype= and retrieved=: refused, with the options to give instead."""
    from .._core._presets import PRESETS

    compat = options.pop("compat", None)
    if compat is not None:
        convention = PRESETS.get(compat)
        hint = "" if convention is None else " For compat={!r}: {}.".format(
            compat, ", ".join(f"{k}={v!r}" for k, v in convention.options.items()
                              if k not in ("score_dtype", "retrieved")))
        raise ValueError(
            "RankingAccumulator does not take `compat`: it keeps one layout for "
            "every metric, where a preset's options may differ by metric. Pass the "
            f"preset's options explicitly (see skrank.describe_convention).{hint}"
        )
    for name, default in (("score_dtype", None), ("retrieved", "all")):
        if options.pop(name, default) != default:
            raise ValueError(
                f"RankingAccumulator does not take `{name}`; convert the scores "
                "before update() (np.float32 for score_dtype='float32')."
            )


def _function_values(request, rows):
    """A metric with options its kernel does not take: its own function, per query."""
    spec = request.spec
    shared = {
        "query_id": rows.ids, "sample_weight": rows.weight, "ties": request.ties,
        "no_relevant": request.no_relevant, "aggregate": None, "k": request.k,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = call_metric(
            spec.func, rows.relevance, rows.score, shared,
            **spec.options, **request.function_options,
        )
    return np.asarray(result.value, dtype=float), result.weight, result.query_id


