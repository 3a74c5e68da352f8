"""What every Display shares: the lazy matplotlib import and its error."""


def import_pyplot(owner):
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra.

    ``owner`` names what needs it (``"FAPCurveDisplay.plot"``), so the
    message says which call failed.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f"{owner} needs matplotlib, an optional dependency of skrank: install "
            "it with `pip install matplotlib` (or, in a skrank checkout, "
            "`pip install -e \".[plot]\"`)."
        ) from exc
    return plt
