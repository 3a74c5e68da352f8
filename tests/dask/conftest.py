"""Dask is an optional dependency (in the test extra): skip this folder without it."""

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
