"""evaluate_run: qrels and a run (files, DataFrames or dicts) -> means and per-query values."""

import os
from dataclasses import dataclass, field

import numpy as np

from .._core._aggregate import QueryValues
from .._core._factorize import not_utf8
from .._core._params import (
    choice,
    COMPAT,
    COUNT,
    CUTOFF,
    FLAG,
    REAL,
    TIES,
    Rule,
    validate_params,
)
from ..metrics._diversity import UNIT_INTERVAL
from .._core._threads import Background
from .._core._threads import ahead as run_ahead
from ._ids import _byte_order
from ._join import _layout, _qrels_rows, join_and_check
from ._measures import parse_measures
from ._ndeval import diversity_name, evaluate_diversity_run
from ._pieces import NotStreamable, _pieces, stream_pieces
from ._read import as_table
from ._tables import no_shared_query
from ._trec_measures import geometric_mean

DEFAULT_MEASURES = ("map", "ndcg", "P_10", "recall_100")


@dataclass
class RunEvaluationResult:
    """What :func:`evaluate_run` returns: means and per-query values.

    Attributes
    ----------
    mean : dict
        Measure name -> value over all evaluated queries: the mean, or the
        sum for trec_eval's counts (``num_ret``, ``num_rel``,
        ``num_rel_ret``), as trec_eval prints them on its ``all`` lines.
    per_query : dict
        Measure name -> :class:`~skrank.QueryValues` ``(query_id, value,
        weight)``, as skrank's metrics return with ``aggregate=None``: each
        value beside its query's id, in the order of :attr:`query_ids`
        (``nan`` for a query left out of the mean, ``weight`` 1).
    query_ids : ndarray
        The evaluated queries' ids (strings), sorted as trec_eval sorts them.
    name : str or None
        The run's name: its file's last column (the run tag), when known.
    n_without_relevant : int
        How many evaluated queries have no relevant document. They score 0
        and count in the means of trec_eval's measures (and of skrank's
        names under the default ``no_relevant="zero"``), where
        :func:`skrank.evaluate` leaves them out by default.
    per_query_text : dict
        Measure name -> an object array of str, one a query in the order of
        :attr:`query_ids`, for trec_eval's ``relstring`` (``relstring_5``):
        the relevance of the top retrieved documents as a string. Such a
        measure has no mean, as trec_eval prints no ``all`` line for it, and
        is in neither :attr:`mean` nor :attr:`per_query`.

    Examples
    --------
    >>> from skrank import evaluate_run
    >>> result = evaluate_run({"q1": {"d1": 1}, "q2": {"d2": 1}},
    ...                       {"q1": {"d1": 2.0, "d3": 1.0}, "q2": {"d3": 1.0}},
    ...                       ["recip_rank", "num_rel_ret"])
    >>> result.mean                    # num_rel_ret: a sum, as trec_eval's "all"
    {'recip_rank': 0.5, 'num_rel_ret': 1.0}
    >>> result.per_query["recip_rank"]
    QueryValues(query_id=array(['q1', 'q2'], dtype=object), value=array([1., 0.]), weight=array([1., 1.]))
    >>> result.to_frame()           # doctest: +SKIP
              recip_rank  num_rel_ret
    query_id
    q1               1.0          1.0
    q2               0.0          0.0
    >>> evaluate_run({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 1.0, "d2": 2.0, "d3": 3.0}},
    ...              ["relstring"]).per_query_text    # d3 not judged, d2 grade 0, d1 1
    {'relstring': array(['-01'], dtype=object)}
    """

    mean: dict
    per_query: dict
    query_ids: np.ndarray
    name: str | None = None
    summed: tuple = field(default=(), repr=False)
    n_without_relevant: int = 0
    per_query_text: dict = field(default_factory=dict)
    # what evaluate_run was given (qrels, run, the ranking options), for
    # unjudged(): the user's objects, not copies
    _inputs: tuple = field(default=None, repr=False, compare=False)

    def unjudged(self, k=10):
        """The retrieved documents of each query's top ``k`` that the qrels do not judge.

        What to send to a judge (a person or an LLM) to fill the holes that
        :func:`evaluate_run`'s ``judged@k`` measures.

        Parameters
        ----------
        k : int, default=10
            How many of each query's best ranked documents to look at.

        Returns
        -------
        unjudged : dict
            ``{query_id: [doc ids]}``, the evaluated queries (those of both
            the qrels and the run) with at least one unjudged document
            among their top ``k``, in :attr:`query_ids` order; the ids in
            rank order (score descending, ties by document id, descending,
            as trec_eval ranks). Under ``ties`` other than ``"input"`` a
            block of tied scores that straddles the cutoff is listed whole,
            since each of its documents may be in the top ``k``; under
            ``compat="trec_eval"`` or ``ties="input"`` the order is one and
            the list is cut at ``k``. ``max_docs`` caps ``k``; with
            ``judged_docs_only`` nothing is unjudged. The qrels and the run
            are read again (a file is re-read).

        Examples
        --------
        >>> from skrank import evaluate_run
        >>> result = evaluate_run({"q1": ["d1"], "q2": ["d4"]},
        ...                       {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5"]},
        ...                       ["judged@2"])
        >>> result.mean
        {'judged@2': 0.5}
        >>> result.unjudged(k=2)
        {'q1': ['d2'], 'q2': ['d5']}
        """
        from ._judged import unjudged_documents

        k = COUNT.check("k", k)
        if self._inputs is None:
            raise ValueError("This result does not hold its inputs: unjudged() needs a "
                             "result of evaluate_run.")
        qrels, run, options = self._inputs
        return unjudged_documents(qrels, run, int(k), **options)

    def to_frame(self):
        """Per-query values as a pandas DataFrame (index: query id; needs pandas).

        The strings of :attr:`per_query_text` are columns too.
        """
        from .._core._optional import import_optional

        pd = import_optional("pandas", "RunEvaluationResult.to_frame()")

        # ids that are not UTF-8 stay str in an object index (see read_qrels)
        dtype = object if not_utf8(self.query_ids) else None
        columns = {name: values.value for name, values in self.per_query.items()}
        columns.update(self.per_query_text)
        return pd.DataFrame(columns,
                            index=pd.Index(self.query_ids, name="query_id", dtype=dtype))

    def __repr__(self):
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        return f"RunEvaluationResult({len(self.query_ids)} queries: {means})"


# ---------------------------------------------------------------- entry --

def _mean(values, *, sequential):
    """Mean of ``values`` (nan if empty).

    ``sequential``: added one after the other in the given order, as
    trec_eval adds its per-query values (in its query order) before dividing
    by their count; a pairwise sum can differ in the last bit, which moves a
    mean that falls on a rounding boundary of trec_eval's 4 printed decimals.
    """
    if values.shape[0] == 0:
        return float("nan")
    if sequential:
        return float(np.cumsum(values)[-1] / values.shape[0])
    return float(values.mean())


def _check_run_compat(name, value):
    """A preset name, None, or ``"ndeval"`` (the diversity measures)."""
    return value if value == "ndeval" else COMPAT.check(name, value)


@validate_params({
    "compat": Rule(_check_run_compat, COMPAT.bad), "relevance_level": REAL,
    "alpha": UNIT_INTERVAL, "beta": UNIT_INTERVAL,
    "complete_qrels": FLAG, "judged_docs_only": FLAG, "max_docs": CUTOFF,
    "ties": choice(*TIES), "no_relevant": choice("zero", "skip", "one"),
})
def evaluate_run(
    qrels,
    run,
    metrics=DEFAULT_MEASURES,
    *,
    compat=None,
    relevance_level=1,
    complete_qrels=False,
    judged_docs_only=False,
    max_docs=None,
    ties="average",
    no_relevant="zero",
    alpha=0.5,
    beta=0.5,
):
    """Evaluate a TREC run against qrels: the mean and per-query value of each measure.

    Parameters
    ----------
    qrels : str, path-like, pandas.DataFrame or dict
        Relevance judgments: a TREC qrels file (``query_id iteration doc_id
        relevance``, gzip too), a DataFrame with columns ``query_id``,
        ``doc_id``, ``relevance`` (``qid``/``docno``/``rel`` are recognised
        too), ``{query_id: {doc_id: relevance}}`` as pytrec_eval, ranx
        and ir_measures take them, or ``{query_id: [relevant doc ids]}``
        (grade 1 each; an id may appear once in a list, and a list holds
        ids only, so grades belong in the dict form).
    run : str, path-like, pandas.DataFrame or dict
        A system's results: a TREC run file (``query_id Q0 doc_id rank
        score tag``), a DataFrame with ``query_id``, ``doc_id``, ``score``
        (or ``rank`` and no score: rank 1 first, equal ranks tie),
        ``{query_id: {doc_id: score}}``, or ``{query_id: [doc ids, best
        first]}`` (no id twice in a list), which equals scores falling from
        the list's length to 1. Documents rank by score.
    metrics : str or list of str, default=("map", "ndcg", "P_10", "recall_100")
        trec_eval's names as it prints them (``num_ret``, ``num_rel``,
        ``num_rel_ret``, ``map``, ``P_10``, ``recall_10``, ``ndcg``,
        ``ndcg_cut_10``, ``map_cut_10``, ``Rprec``, ``bpref``,
        ``recip_rank``, ``success_10``, ``iprec_at_recall_0.10``), its
        ``-m`` forms (``P.5,10``; ``P`` alone for its default cutoffs), or
        skrank metric names (``ndcg@10``, ``mrr``, ``fap``, ...). Under
        ``compat="trec_eval"`` a skrank name is trec_eval's measure
        (``ndcg@10`` is ``ndcg_cut_10``, ``hits`` is ``num_rel_ret``), and a
        metric trec_eval lacks is refused; without ``compat`` each name
        keeps its own definition: a name trec_eval prints is trec_eval's
        measure (``rbp`` is trec_eval's rbp, ``ndcg`` has the linear gain),
        another name skrank's (``rbp@10``, ``ndcg@10``). trec_eval's
        ``relstring`` (``relstring.5``) is a string per query, in
        :attr:`RunEvaluationResult.per_query_text`. ``judged@k`` (also
        ir_measures' ``Judged@k``; ``judged`` for the whole list) is the
        share of each query's top ``min(k, retrieved)`` documents that the
        qrels judge (with any grade); :meth:`RunEvaluationResult.unjudged`
        lists the others. ir_measures also scores 0 a qrels query the run
        lacks, keeping it in the mean: ``complete_qrels=True`` does that.
    compat : str, default=None
        ``"trec_eval"`` reproduces trec_eval 10.0: tied scores broken by
        document id, descending, and trec_eval's rule for queries without a
        relevant document (0, kept in the mean). None: skrank's
        conventions, ``ties`` as given. Another preset of
        :func:`~skrank.describe_convention` (``"lightgbm"``, ``"ranx"``,
        ...) scores the run's lines (the retrieved documents, in file order,
        each labelled with its judgment, 0 when unjudged or below
        ``relevance_level``) with :func:`~skrank.evaluate` under that
        preset: ``metrics`` are then skrank's or the peer's names, and
        ``ties`` and ``no_relevant`` given explicitly win over the preset.
    relevance_level : float, default=1
        Judgments at or above it are relevant (trec_eval ``-l``). nDCG's
        gains are the grades themselves, as in trec_eval.
    complete_qrels : bool, default=False
        Evaluate every qrels query, a query the run lacks scoring 0
        (trec_eval ``-c``). By default only the queries of both are
        evaluated. Run queries absent from the qrels are always dropped.
    judged_docs_only : bool, default=False
        Drop the retrieved documents the qrels do not judge before ranking
        (trec_eval ``-J``).
    max_docs : int, default=None
        Keep at most this many documents per query, the best ranked
        (trec_eval ``-M``). None keeps all, as trec_eval 10.0 does by
        default (its ``max_num_docs_per_topic`` is ``MAXLONG``); TREC runs
        conventionally hold 1000.
    ties : {"average", "input", "pessimistic", "optimistic"}, default="average"
        With ``compat=None``: the expected value over the orders of tied
        scores, the input order, or the lower (higher) grade first. Ignored
        with ``compat="trec_eval"``; with another preset, the preset's
        unless given.
    alpha, beta : float in [0, 1], default=0.5
        The redundancy penalty and NRBP's patience of the intent-aware
        measures (ndeval's ``-alpha`` and ``-beta``).
    no_relevant : {"zero", "skip", "one"}, default="zero"
        What a query without a relevant document scores in the skrank
        metrics: 0 and kept in the mean (trec_eval, ranx), left out, or 1.
        trec_eval names always follow trec_eval (0); a skrank name follows
        this option, under ``compat="trec_eval"`` too.
        This default differs from :func:`skrank.evaluate`'s
        (``no_relevant="skip"``), so the two give different means on the
        same rows when some query has no relevant document: pass the
        same ``no_relevant`` to both to compare them. :attr:`RunEvaluationResult.n_without_relevant`
        counts such queries.

    Returns
    -------
    result : RunEvaluationResult
        ``result.mean[name]`` and ``result.per_query[name]`` (one value per
        query of ``result.query_ids``).

    Notes
    -----
    Judged documents the run did not retrieve count in R, the ideal DCG,
    recall, R-precision and bpref, as in trec_eval: they become rows with
    ``y_score=-inf``, skrank's mark for "judged, not retrieved".

    The intent-aware measures of :mod:`skrank.diversity` take subtopic
    qrels, ``topic subtopic docno judgment`` (the second column is the
    subtopic), and ndeval's names as it prints them (``alpha-nDCG@20``,
    ``nERR-IA@20``, ``NRBP``, ``nNRBP``, ``MAP-IA``, ``P-IA@10``,
    ``strec@10``, any cutoff) or skrank's (``alpha_ndcg@20``). They are
    asked for alone. ``compat="ndeval"`` ranks as ``ndeval -traditional``
    (score descending, ties by docno descending) and averages over the
    topics of both files, or every qrels topic with ``complete_qrels=True``
    (``-c``); otherwise ``ties`` applies (the exact expectation by default).

    Examples
    --------
    >>> from skrank import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d5": 0.1}, "q2": {"d4": 1.0}}
    >>> result = evaluate_run(qrels, run, ["map", "P_2", "num_rel"],
    ...                       compat="trec_eval")
    >>> result.mean                  # q1: AP 1/2 (d3 not retrieved), P@2 1/2
    {'map': 0.75, 'P_2': 0.5, 'num_rel': 3.0}
    >>> result.per_query["map"].value   # per query, beside .query_id
    array([0.5, 1. ])

    Id lists, as retrieval code returns them (best first), with the
    relevant ids:

    >>> evaluate_run({"q1": ["d1", "d3"], "q2": ["d4"]},
    ...              {"q1": ["d1", "d2", "d5"], "q2": ["d4"]}, ["map"]).mean
    {'map': 0.75}
    """
    listed = [metrics] if isinstance(metrics, str) else list(metrics)
    diversity = [diversity_name(name) is not None for name in listed]
    if compat == "ndeval" or (listed and all(diversity)):
        if not all(diversity):
            raise ValueError(
                "With compat='ndeval' or ndeval's measures, ask only for intent-aware "
                "measures (alpha-nDCG@20, ERR-IA@20, NRBP, MAP-IA, P-IA@10, strec@10, "
                "...); evaluate the others in another call."
            )
        query_ids, per_query, mean = evaluate_diversity_run(
            qrels, run, listed, compat=compat, complete_qrels=complete_qrels,
            max_docs=max_docs, ties=ties, no_relevant=no_relevant, alpha=alpha,
            beta=beta, relevance_level=relevance_level,
        )
        return RunEvaluationResult(mean, per_query, query_ids)
    if compat not in (None, "trec_eval"):
        _check_preset_run_options(compat, complete_qrels, judged_docs_only, max_docs)
        explicit = _explicit_run_options(ties, no_relevant)
        result = _evaluate_run_preset(qrels, run, metrics, compat, relevance_level,
                                      explicit)
        result._inputs = (qrels, run, dict(ties=explicit.get("ties", "average")))
        return result
    result = _evaluate_run(
        qrels, run, metrics, compat=compat, relevance_level=relevance_level,
        complete_qrels=complete_qrels, judged_docs_only=judged_docs_only,
        max_docs=max_docs, ties=ties, no_relevant=no_relevant,
    )
    result._inputs = (qrels, run, dict(compat=compat, ties=ties, max_docs=max_docs,
                                       judged_docs_only=judged_docs_only))
    return result


def _explicit_run_options(ties, no_relevant):
    """The options a preset must not override: those not at evaluate_run's defaults."""
    explicit = {}
    if ties != "average":
        explicit["ties"] = ties
    if no_relevant != "zero":
        explicit["no_relevant"] = no_relevant
    return explicit


def _check_preset_run_options(compat, complete_qrels, judged_docs_only, max_docs):
    """trec_eval's -c, -J and -M have no meaning for another peer: refused."""
    given = [flag for flag, on in (("complete_qrels (-c)", complete_qrels),
                                   ("judged_docs_only (-J)", judged_docs_only),
                                   ("max_docs (-M)", max_docs is not None)) if on]
    if given:
        raise ValueError(
            f"{', '.join(given)}: trec_eval's options, which compat={compat!r} does "
            "not take (it scores the run's lines as they are); use "
            "compat='trec_eval' or None."
        )


def run_rows(qrels, run, relevance_level=1):
    """``(y_true, y_score, query_id, tag)``: a run's lines as rows, labelled by the qrels.

    Rows are the run's lines of the queries the qrels hold, in file order;
    ``y_true`` is the line's judgment (0 when unjudged, negative or below
    ``relevance_level``).
    """
    qrels = as_table(qrels, "qrels", "qrels")
    run = as_table(run, "run", "run")
    run_query = run.queries_in(qrels)
    keep = run_query >= 0  # as trec_eval: run queries the qrels lack are dropped
    if not keep.any():
        raise no_shared_query(qrels, run)
    qrels_row = _qrels_rows(run, qrels, run_query, keep)
    rows = np.flatnonzero(keep)
    judged = qrels_row[rows]
    grade = np.where(judged >= 0, qrels.value[np.maximum(judged, 0)], 0.0)
    y_true = np.where(grade >= relevance_level, grade, 0.0)
    return y_true, run.value[rows], run.query_labels[run.query[rows]], run.tag


def _evaluate_run_preset(qrels, run, metrics, compat, relevance_level, explicit):
    """A run scored as a peer scores it: its lines as rows, through ``evaluate``."""
    from ..metrics._evaluate import evaluate

    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    from ._judged import parse_judged

    for name in metrics:
        if isinstance(name, str) and parse_judged(name) is not None:
            raise ValueError(f"Measure {name!r} needs the qrels beside the run: use "
                             f"compat=None or 'trec_eval', not {compat!r}.")
    y_true, y_score, query_id, tag = run_rows(qrels, run, relevance_level)
    options = dict(query_id=query_id, metrics=metrics, compat=compat, **explicit)
    per_query = evaluate(y_true, y_score, aggregate=None, **options)
    mean = evaluate(y_true, y_score, **options)
    query_ids = next(iter(per_query.values())).query_id
    _, codes = np.unique(query_id, return_inverse=True)
    n_without = int((np.bincount(codes, weights=y_true > 0) == 0).sum())
    return RunEvaluationResult(mean, per_query, query_ids, name=tag,
                         n_without_relevant=n_without)


def _evaluate_run(qrels, run, metrics, *, compat, relevance_level, complete_qrels,
                  judged_docs_only, max_docs, ties, no_relevant, stream=False):
    """:func:`evaluate_run`'s work; ``stream`` reads a run file grouped by query in pieces."""
    measures = list({m.name: m for m in parse_measures(metrics, compat)}.values())
    # two files are read side by side: the qrels on a thread (pyarrow's
    # parser releases the GIL) while this one checks and parses the run.
    # The qrels' errors come first, as if they were read first
    both_files = not stream and all(isinstance(f, (str, os.PathLike)) for f in (qrels, run))
    if both_files:
        reading = Background(as_table, qrels, "qrels", "qrels", compat)
        try:
            run_table = as_table(run, "run", "run", compat)
        except ValueError:
            reading.result()  # a qrels error is raised first
            raise
        qrels = reading.result()
    else:
        qrels = as_table(qrels, "qrels", "qrels", compat)
    if compat == "trec_eval":
        relevance_level = float(int(relevance_level))  # trec_eval reads -l with atol
    if len(qrels) == 0:
        raise ValueError(f"{qrels.source}: the qrels hold no judgment.")
    options = dict(relevance_level=relevance_level, complete_qrels=complete_qrels,
                   judged_docs_only=judged_docs_only, max_docs=max_docs, compat=compat,
                   ties=ties)
    if stream:
        pieces = stream_pieces(qrels, run, complete_qrels=complete_qrels)
        if pieces is not None:
            try:
                return _measure(pieces, measures, options, no_relevant, pieces.tag,
                                in_file_order=True)
            except NotStreamable:  # read whole: grouped or not, the same numbers
                pass
    if not both_files:
        run_table = as_table(run, "run", "run", compat)
    if len(run_table) == 0:
        raise ValueError(f"{run_table.source}: the run holds no retrieved document.")
    pieces, in_file_order = _pieces(qrels, run_table, complete_qrels=complete_qrels)
    tag = run_table.tag
    del run_table  # the pieces hold the run now: what they let go of is freed
    # the pieces of a run grouped by query are ranges of its lines: each
    # one's run side is worked out a piece ahead. Other runs' pieces take
    # copies of lines from all over the run, and one more piece in hand
    # would raise the peak (shuffled 2e6 lines: +13 MB, against trec_eval's
    # 175 MB)
    return _measure(pieces, measures, options, no_relevant, tag, in_file_order=in_file_order,
                    ahead=in_file_order)


def _measure(pieces, measures, options, no_relevant, tag, *, in_file_order, ahead=False):
    """Lay out and measure each piece; the per-query values in trec_eval's order, the means.

    With ``ahead``, one thread joins each piece with its qrels and checks
    its run for duplicates (:func:`~skrank.io._join.join_and_check`) a
    piece ahead of the layout and the measures on this thread, which then
    finds the join done and the ids' words ready for its tie-break.
    Without (a stream, which holds one piece at a time, and runs not
    grouped by query), each layout joins its piece beside it.
    """
    values_of = {name: [] for name, *_ in measures}
    query_ids, n_without_relevant = [], 0
    pieces = run_ahead(join_and_check, pieces) if ahead else ((p, None) for p in pieces)
    for (qrels_piece, run_piece, query_order, run_query), joined in pieces:
        parts = _layout(qrels_piece, run_piece, query_order=query_order, run_query=run_query,
                        joined=joined, **options)
        del qrels_piece, run_piece
        no_rel = parts.binary.n_relevant == 0
        n_without_relevant += int(no_rel.sum())
        query_ids.append(parts.binary.query_ids)
        for measure in measures:
            if measure.text:  # strings (relstring): no fill, no mean
                values_of[measure.name].append(measure.kernel(parts))
                continue
            # + 0.0: a -0.0 (1 - 1 in a kernel) prints as 0.0000, as trec_eval's
            values = np.asarray(measure.kernel(parts), dtype=np.float64) + 0.0
            if measure.fill:  # a name of skrank's: no_relevant applies
                fill = {"zero": 0.0, "one": 1.0, "skip": np.nan}[no_relevant]
                values = np.where(no_rel, fill, values)
            values_of[measure.name].append(values)
        parts.checked()  # a duplicate document raises here, before any output
        del parts
    query_ids = np.concatenate(query_ids)
    # pieces that come in file order: trec_eval's order is by query id
    order = _byte_order(query_ids) if in_file_order else slice(None)
    query_ids = query_ids[order]
    mean, per_query, summed, text = {}, {}, [], {}
    for measure in measures:
        name = measure.name
        values = np.concatenate(values_of.pop(name))[order]
        if measure.text:
            text[name] = values
            continue
        per_query[name] = QueryValues(query_ids, values, np.ones(values.shape[0]))
        # a trec_eval measure's nan (its own 0 / 0, as Rndcg's) stays in the mean, as there
        kept = values if measure.trec else values[~np.isnan(values)]
        if measure.summed:
            summed.append(name)
            mean[name] = float(kept.sum())
        elif measure.geometric:  # trec_eval's gm_map, gm_bpref
            mean[name] = geometric_mean(kept)
        else:
            mean[name] = _mean(kept, sequential=measure.trec)
    return RunEvaluationResult(mean, per_query, query_ids, name=tag,
                               summed=tuple(summed), n_without_relevant=n_without_relevant,
                               per_query_text=text)


# the names of skrank 0.1.0.dev's first faces: result classes now end in Result
RunEvaluation = RunEvaluationResult
