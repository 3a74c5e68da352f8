"""One way to warn: every skrank warning names the line that called skrank.

``warnings.warn`` takes a fixed ``stacklevel``, but the depth of skrank's
frames above a warning depends on the entry point (``ndcg_score`` directly,
through ``evaluate``, a scorer inside ``cross_validate``, ...). :func:`warn`
counts the frames instead: it skips skrank's own frames, and those of the
libraries that call skrank on the user's behalf (scikit-learn, joblib,
Dask), and reports the first frame outside them, the user's line.
"""

import sys
import warnings

# modules whose frames are never "the caller": skrank and the tools that call it
_SKIPPED = ("skrank", "sklearn", "joblib", "dask", "distributed")


def _is_skipped(module):
    return any(
        module == name or module.startswith(name + ".") for name in _SKIPPED
    )


def caller_stacklevel():
    """The ``stacklevel`` of the first frame outside skrank and its callers.

    Counted from the function that calls ``warnings.warn`` (the caller of
    this function's caller is level 2). When every frame is skipped (skrank
    run as ``python -m skrank``), the outermost frame is named.
    """
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and _is_skipped(
        frame.f_globals.get("__name__", "")
    ):
        frame, level = frame.f_back, level + 1
    return level


def warn(message, category=UserWarning):
    """``warnings.warn(message, category)`` at the user's line."""
    warnings.warn(message, category, stacklevel=caller_stacklevel())
