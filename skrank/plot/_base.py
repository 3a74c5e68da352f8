"""What every Display shares: the lazy matplotlib import and its error."""

from .._core._optional import import_optional


def import_pyplot(owner):
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra.

    ``owner`` names what needs it (``"FAPCurveDisplay.plot"``), so the
    message says which call failed.
    """
    return import_optional("matplotlib.pyplot", owner)
