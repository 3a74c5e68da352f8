"""Calling a metric function from the engines: with the arguments it takes.

:func:`evaluate`, the accumulator and the scorers call metric functions
they did not write (scikit-learn's label ranking metrics take no ``ties``; a
user's metric may take only ``query_id``). They call them through
:func:`call_metric`, and check a metric's options before any data arrives
with :func:`dry_run`.
"""

import inspect
import warnings


def call_metric(func, y_true, y_score, shared, /, **options):
    """``func(y_true, y_score, **shared, **options)``, ``shared`` cut to what it takes.

    ``shared`` holds what the caller hands every metric (query ids, weights,
    ``ties``, ...): ``func`` gets those its signature names (all of them if
    it takes ``**kwargs`` or has no signature to read). ``options`` are the
    metric's own, passed as they are, so that a wrong one raises.

    Examples
    --------
    >>> def hits(y_true, y_score, *, query_id):
    ...     return sum(y_true)
    >>> call_metric(hits, [1, 0, 1], [3, 2, 1],
    ...             {"query_id": [0, 0, 0], "ties": "average"})
    2
    """
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        parameters = None
    if parameters is not None and not any(
        p.kind is p.VAR_KEYWORD for p in parameters.values()
    ):
        shared = {key: value for key, value in shared.items() if key in parameters}
    return func(y_true, y_score, **shared, **options)


def dry_run(func, options):
    """Call a metric on two rows of one query, so that its own checks judge ``options``.

    Raises what the metric raises for an invalid option, in its own words;
    its warnings (about two rows) are silenced.

    Examples
    --------
    >>> from skrank import ndcg_score
    >>> dry_run(ndcg_score, {"k": 0})
    Traceback (most recent call last):
    ...
    ValueError: `k` must be a positive integer or None, got 0.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        func([1, 0], [1.0, 0.0], query_id=[0, 0], **options)
