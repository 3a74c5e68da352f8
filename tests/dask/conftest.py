"""Dask is an optional dependency (in the test extra): skip this folder without it."""

import pytest

from .._needs import needs

needs("dask.dataframe")
needs("distributed")
