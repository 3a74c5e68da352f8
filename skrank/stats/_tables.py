"""Small tables of results and their text: what every face of ``stats`` prints.

:class:`ComparisonTable` holds named columns and tuples of rows (no pandas
needed); the helpers format numbers, intervals and whole tables the same way
in :func:`skrank.compare`, :func:`skrank.evaluate_by` and the ``skrank``
command.
"""

import math

import numpy as np

from .._core._optional import import_optional


class ComparisonTable:
    """A small table: named columns, one tuple per row.

    Attributes
    ----------
    columns : tuple of str
        Column names.
    rows : list of tuple
        The rows, one value per column.

    Examples
    --------
    >>> from skrank import ComparisonTable
    >>> table = ComparisonTable(("system", "mean"), [("a", 0.75), ("b", 0.5)])
    >>> table.column("mean")
    [0.75, 0.5]
    >>> table
    system    mean
    a       0.7500
    b       0.5000
    """

    def __init__(self, columns, rows):
        self.columns = tuple(columns)
        self.rows = [tuple(row) for row in rows]

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def column(self, name):
        """The values of one column, as a list."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def to_dict(self):
        """``{column: list of values}``."""
        return {name: self.column(name) for name in self.columns}

    def to_frame(self):
        """The table as a pandas DataFrame (pandas is an optional dependency)."""
        pd = import_optional("pandas", "to_frame()")
        return pd.DataFrame(self.rows, columns=list(self.columns))

    def __repr__(self):
        return format_table(self.columns, self.rows)


def format_cell(value):
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "nan"
        return f"{value:.4f}" if abs(value) >= 1e-4 or value == 0 else f"{value:.1e}"
    return str(value)


def format_p_value(p):
    """A p-value as every table of skrank prints it: 4 decimals, small ones as 1.2e-07.

    One format for every column, so that ``1.0000`` stands beside ``0.4226``
    (not ``1``), and a tiny p-value keeps its digits.

    Examples
    --------
    >>> from skrank.stats._tables import format_p_value
    >>> [format_p_value(p) for p in (1.0, 0.42257, 0.0005, 1.234e-7, float("nan"))]
    ['1.0000', '0.4226', '0.0005', '1.2e-07', 'nan']
    """
    return format_cell(float(p))


def format_table(columns, rows):
    """Aligned text: text columns to the left, numbers to the right."""
    text = [isinstance(rows[0][i], str) if rows else True for i in range(len(columns))]
    cells = [list(columns)] + [[format_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if left else cell.rjust(width)
            for cell, width, left in zip(row, widths, text)
        ).rstrip()
        for row in cells
    )


def segment_label(key):
    return " & ".join(map(str, key)) if isinstance(key, tuple) else str(key)


def level_text(level):
    return f"{round(level * 100, 2):g}%"


def interval_text(low, high):
    return f"[{format_cell(low)}, {format_cell(high)}]"


def table_text(table, level):
    by = table.columns[: table.columns.index("metric")]
    ci = "CI" if level is None else f"{level_text(level)} CI"
    rows = []
    for row in table.rows:
        values = dict(zip(table.columns, row))
        rows.append((
            " & ".join(str(values[name]) for name in by), values["metric"],
            values["value"], interval_text(values["ci_low"], values["ci_high"]),
            values["n_queries"], values["n_rows"], values["note"],
        ))
    return format_table(
        (" & ".join(by), "metric", "value", ci, "queries", "rows", "note"), rows
    )


def table_frame(table, library):
    if library == "pandas":
        return table.to_frame()
    if library == "polars":
        try:
            import polars as pl
        except ImportError as exc:
            raise ImportError(
                "to_frame('polars') needs polars: install it with `pip install polars`."
            ) from exc
        return pl.DataFrame(table.to_dict())
    raise ValueError(f"`library` must be 'pandas' or 'polars', got {library!r}.")
