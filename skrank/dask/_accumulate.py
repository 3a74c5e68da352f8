"""Per-partition RankingAccumulators merged in a tree: evaluate() without a shuffle.

When every metric only reads the top k of a query, a partition need not
hold whole queries: its accumulator keeps, for each query, the rows that can
still be in the top k and a summary of the rest
(:class:`skrank.RankingAccumulator`), and Dask merges the accumulators in a
tree, ``split_every`` at a time. The rows that cross the network are those
top rows, not the frame.
"""

from .._core._malloc import reused_memory
from ..metrics._accumulator import TOP_K_STEMS, RankingAccumulator
from ..metrics._registry import parse_metric_name

SPLIT_EVERY = 8


def only_top_k(metrics):
    """Whether every metric reads only the top k rows (a name with a cutoff)."""
    for name in metrics:
        spec, k = parse_metric_name(name)
        if spec.stem not in TOP_K_STEMS or k is None:
            return False
    return True


@reused_memory()
def _accumulate(frame, plan):
    """One partition's accumulator (its rows in frame order)."""
    accumulator = RankingAccumulator(
        plan.metrics, ties=plan.ties, no_relevant=plan.no_relevant,
        **plan.metric_options,
    )
    if frame is not None and frame.shape[0]:
        ids = frame.index if plan.query_on_index else frame[plan.query_id]
        weight = None if plan.sample_weight is None else frame[plan.sample_weight]
        with plan.naming_rows(frame):
            accumulator.update(frame[plan.y_true], frame[plan.y_score], query_id=ids,
                               sample_weight=weight)
    return accumulator


def _merge(plan, *accumulators):
    """A new accumulator: the given ones merged in partition order.

    The order keeps ``ties="input"`` on the frame's row order; the inputs
    are left as they were (a task may run again).
    """
    merged = _accumulate(None, plan)
    for other in accumulators:
        merged.merge(other)
    return merged


def merged_accumulator(frame, plan, split_every=SPLIT_EVERY):
    """The accumulator of all of ``frame``'s rows, merged in a tree by Dask."""
    import dask

    level = [dask.delayed(_accumulate)(part, plan) for part in frame.to_delayed()]
    while len(level) > 1:
        level = [
            dask.delayed(_merge)(plan, *level[i:i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level[0].compute()
