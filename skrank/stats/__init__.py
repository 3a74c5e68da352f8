"""Comparing systems query by query: paired tests and confidence intervals."""

from ._compare import compare

__all__ = ["compare"]
