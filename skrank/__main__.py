"""``python -m skrank`` and the ``skrank`` console script (see ``skrank --help``)."""

import sys


def main():
    """Import the command line and run it; returns the exit status.

    The command's modules keep their compiled bytecode (``__pycache__``)
    even when ``PYTHONDONTWRITEBYTECODE`` or ``python -B`` asks Python not
    to write it: without it every start of the command compiles skrank's
    modules again, about 50 ms, which is 5% of scoring a run of 2e6 lines.
    pip compiles the modules of a package it installs, so this matters for
    editable installs and source checkouts. Only this import is affected:
    the setting is restored before the command runs.
    """
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        from . import io  # noqa: F401 (the modules that read and score runs)
        from .cli._cli import run
    finally:
        sys.dont_write_bytecode = saved
    return run()


if __name__ == "__main__":
    sys.exit(main())
