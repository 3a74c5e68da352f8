"""Shared by the example scripts: pyplot if matplotlib is installed, and saving a figure.

Each example that draws saves its figure to ``$SKRANK_EXAMPLE_PLOT`` (the
tests set it) or to the temporary directory, and prints where it went. The
documentation's gallery shows the same figure on the example's page.
"""

import os
import tempfile


def pyplot():
    """matplotlib.pyplot (non-interactive backend), or None with a note when absent."""
    try:
        import matplotlib
    except ImportError:
        print("(matplotlib is not installed: no figure. pip install matplotlib, "
              'or skrank\'s plot extra: pip install -e ".[plot]")')
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, name):
    """Save ``fig`` as PNG and print where it went."""
    path = os.environ.get("SKRANK_EXAMPLE_PLOT",
                          os.path.join(tempfile.gettempdir(), f"skrank_{name}.png"))
    fig.savefig(path, dpi=100)
    print(f"\nplot saved to {path}")
    print("(the figure file is the output of this section; set SKRANK_EXAMPLE_PLOT to "
          "save it elsewhere)")
