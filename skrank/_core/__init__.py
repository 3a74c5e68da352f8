"""skrank's engine: validation, the one sorted layout, tie expectations, aggregation.

Everything else in skrank is built on this flow::

    inputs -> _validation -> _layout.rank_queries (one sort) -> kernel -> _aggregate

It uses numpy and scipy only and imports nothing from the rest of skrank;
``_frames`` reads Series and DataFrames of any library (pandas, polars, ...)
through narwhals when it is installed, for every entry point to call.
"""
