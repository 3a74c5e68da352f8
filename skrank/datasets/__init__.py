"""Data sets that ship with skrank's dependencies (nothing is downloaded)."""

from ._digits import load_digits_retrieval

__all__ = ["load_digits_retrieval"]
