"""``python -m skrank``: the ``skrank`` command line (see ``skrank --help``)."""

import sys

from .io._cli import run

if __name__ == "__main__":
    sys.exit(run())
