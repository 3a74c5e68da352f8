"""Calls made as a fresh interpreter's first (``tests/test_fresh_process.py``).

Run as ``python -c "from tests._fresh_calls import main; main()" CALLS``
with ``CALLS`` a JSON list of ``[function, kwargs]``; prints a JSON list of
outcomes. :func:`outcome` is also what the test process computes itself,
so the two are compared with one formatting. Nothing here imports skrank
before the first call.
"""

import json
import sys


def _plain(value):
    """A result as exact text: floats by repr (a dict of them for evaluate)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, float):
        return repr(value)
    return repr(value)


def outcome(function, kwargs):
    """``{"value": ...}`` or ``{"error": "Type: message"}`` of one call.

    ``function``: a public name of ``skrank`` (``"ndcg_score"``), or
    ``"scorer"``: ``skrank.get_scorer(metrics, compat=...)`` evaluating the
    scores through :meth:`evaluate_scores`.
    """
    import skrank

    kwargs = dict(kwargs)
    y, s = kwargs.pop("y_true"), kwargs.pop("y_score")
    try:
        if function == "scorer":
            scorer = skrank.get_scorer(kwargs.pop("metrics"),
                                       compat=kwargs.pop("compat"))
            value = scorer.evaluate_scores(y, s, kwargs.pop("query_id"))
        else:
            value = getattr(skrank, function)(y, s, **kwargs)
    except Exception as exc:  # the same error in both processes is a pass
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"value": _plain(value)}


def main():
    loaded = [name for name in sys.modules if name.partition(".")[0] == "skrank"]
    if loaded:
        raise SystemExit(f"not a fresh process: {loaded} already imported")
    calls = json.loads(sys.argv[1])
    print(json.dumps([outcome(function, kwargs) for function, kwargs in calls]))
