"""The ``skrank`` command line (``skrank evaluate``, ``skrank explain``).

The top floor: it stands on :mod:`skrank.io` (reading and scoring runs)
and :mod:`skrank.stats` (the paired tests of several runs), which is why
it is a part of its own and not a module of either. Its public face is the
command itself (``skrank --help``, ``python -m skrank``): no names here.
"""

__all__ = []
