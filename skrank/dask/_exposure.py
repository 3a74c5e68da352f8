"""expected_exposure over a Dask DataFrame: a shuffle by query, then per-query sums.

Expected exposure is a sum over each query's rows, so every partition that
holds whole queries computes its queries' values with the in-memory
:func:`skrank.fairness.expected_exposure`, and a tree reduction merges the
partial means (the same plan as :func:`skrank.dask.evaluate`).
"""

from .._core._aggregate import PartialMean, finish_mean, partial_mean
from .._core._params import FLAG, FRACTION, choice, validate_params
from .._core._quiet import quiet_dask
from ..fairness._exposure import USER_MODELS, UTILITY, expected_exposure as _in_memory
from ..metrics._plan import ROW
from ._frame_input import check_dask_frame, frame_input
from ._shuffle import PARTIAL_COLUMNS, merge_partials, partials_frame, whole_queries

MEASURES = ("ee_l", "ee_d", "ee_r")


def _partials(frame, *, columns, on_index, restore_order, options):
    """Chunk of the reduction: the partial means of EE-L, EE-D, EE-R."""
    import pandas as pd

    if restore_order:  # ties="input": the frame's row order
        frame = frame.sort_values(ROW, kind="stable")
    if frame.shape[0] == 0:
        rows = [PartialMean(0.0, 0.0, 0.0, 0)] * len(MEASURES)
        return partials_frame(rows, 0, pd)
    y_true, y_score, query_id, sample_weight = columns
    ids = frame.index.to_numpy() if on_index else frame[query_id].to_numpy()
    per_query = _in_memory(
        frame[y_true].to_numpy(), frame[y_score].to_numpy(), query_id=ids,
        sample_weight=None if sample_weight is None else frame[sample_weight].to_numpy(),
        aggregate=None, **options,
    )
    rows = []
    for name in MEASURES:
        values = per_query[name]
        undefined = values.value != values.value  # nan: no target (no relevant row)
        rows.append(partial_mean(values.value, values.weight, undefined=undefined,
                                 query_ids=values.query_id))
    return partials_frame(rows, frame.shape[0], pd)


@validate_params({
    "user_model": choice(*USER_MODELS),
    "patience": FRACTION,
    "utility": UTILITY,
    "complete": FLAG,
    "ties": choice("average", "input"),
})
def expected_exposure(
    df,
    *,
    y_true="label",
    y_score="score",
    query_id="qid",
    sample_weight=None,
    user_model="gerr",
    patience=0.5,
    utility=0.5,
    complete=False,
    ties="average",
    partitioned_by_query="auto",
):
    """Expected exposure (EE-L, EE-D, EE-R) over a Dask DataFrame, query by query.

    The same numbers as :func:`skrank.fairness.expected_exposure` on the
    same rows (to rounding): one shuffle by query id, the in-memory kernel
    on each partition, a tree reduction of partial sums.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per (query, item), in the columns named below.
    y_true : str, default="label"
        Column of relevance grades (non-negative).
    y_score : str, default="score"
        Column of scores; within a query, higher scores rank first.
    query_id : str, default="qid"
        Column (or the name of the index) holding each row's query id.
    sample_weight : str, default=None
        Column of row weights; a query weighs the mean of its rows' weights.
    user_model : {"gerr", "rbp"}, default="gerr"
    patience : float, default=0.5
    utility : float, default=0.5
    complete : bool, default=False
        As for :func:`skrank.fairness.expected_exposure`.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expectation over the orders of rows with
        equal scores. ``"input"``: they keep the frame's row order.
    partitioned_by_query : {"auto", True, False}, default="auto"
        Whether every query's rows already sit in one partition (the
        shuffle is then skipped), as for :func:`skrank.dask.evaluate`.

    Returns
    -------
    measures : dict
        ``{"ee_l": float, "ee_d": float, "ee_r": float}``: means over queries.

    See Also
    --------
    skrank.fairness.expected_exposure : the same on in-memory arrays.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import skrank.dask
    >>> rows = pd.DataFrame({"qid": [1, 1, 1, 2, 2],
    ...                      "label": [1, 1, 0, 1, 0],
    ...                      "score": [3, 2, 1, 1, 1]})
    >>> df = dd.from_pandas(rows, npartitions=2)        # query 1 spans both
    >>> ee = skrank.dask.expected_exposure(df)
    >>> {name: round(value, 4) for name, value in ee.items()}
    {'ee_l': 0.3691, 'ee_d': 1.0098, 'ee_r': 0.7656}

    Query 2's tied rows are in either order: the relevant row gets
    (1 + 0.5) / 2, the other (0.25 + 1) / 2; its EE-L is
    (1 - 0.75)**2 + 0.625**2 = 0.453125, and query 1's (1, 0.25, 0.0625)
    against (0.625, 0.625, 0) is 0.28515625, a mean of 0.3691.
    """
    check_dask_frame(df, "skrank.fairness.expected_exposure",
                     needed_by="skrank.dask.expected_exposure")
    frame, on_index, partitioned, _ = frame_input(
        df, [("y_true", y_true), ("y_score", y_score), ("sample_weight", sample_weight)],
        query_id=query_id, partitioned_by_query=partitioned_by_query,
    )
    frame, on_index, restore_order = whole_queries(frame, query_id, on_index,
                                                   partitioned, ties)
    import pandas as pd

    options = dict(user_model=user_model, patience=patience, utility=utility,
                   complete=complete, ties=ties)
    empty = partials_frame([PartialMean(0.0, 0.0, 0.0, 0)], 0, pd)
    chunk = dict(columns=(y_true, y_score, query_id, sample_weight), on_index=on_index,
                 restore_order=restore_order, options=options)
    with quiet_dask():
        merged = frame.reduction(_partials, aggregate=merge_partials, meta=empty,
                                 chunk_kwargs=chunk).compute()
    if int(merged["n_rows"].iloc[0]) == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    return {
        name: finish_mean(PartialMean(*row))
        for name, row in zip(MEASURES, merged[PARTIAL_COLUMNS].itertuples(index=False))
    }
