"""Data sets that ship with skrank's dependencies (nothing is downloaded), and a
click simulator."""

from ._clicks import simulate_clicks
from ._digits import load_digits_retrieval

__all__ = ["load_digits_retrieval", "simulate_clicks"]
