"""p-values print in one format everywhere: ``1.0000`` beside ``0.4226``, never ``1``."""

import re

import numpy as np

import skrank
from skrank.cli._cli import main
from skrank.stats._tables import format_p_value

P_VALUE = re.compile(r"^(\d\.\d{4}|\d\.\de-\d\d|nan)$")


def test_format_p_value():
    assert format_p_value(1.0) == "1.0000"  # :.4g gave "1"
    assert format_p_value(0.42257) == "0.4226"
    assert format_p_value(0.0) == "0.0000"
    assert format_p_value(3.14e-9) == "3.1e-09"
    assert format_p_value(np.float64("nan")) == "nan"


def test_the_command_paired_table_formats_every_p_value_alike(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n")
    # run b swaps each query's two documents: the p-values are 1 (2 queries)
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d4 1 2 a\n"
                                "q2 Q0 d3 2 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d3 1 2 b\n"
                                "q2 Q0 d4 2 1 b\n")
    assert main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "a"),
                 str(tmp_path / "b"), "-m", "map", "-m", "P_1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("measure  run_a"))
    columns = lines[header].split()
    p_columns = [i for i, name in enumerate(columns) if name.startswith("p_")]
    assert [columns[i] for i in p_columns] == ["p_rand", "p_rand_holm", "p_t", "p_t_holm"]
    rows = [line.split() for line in lines[header + 2:] if line.strip()]
    assert len(rows) == 2  # map and P_1, one pair
    cells = [row[i] for row in rows for i in p_columns]
    assert all(P_VALUE.match(cell) for cell in cells), cells
    assert "1.0000" in cells


def test_compare_repr_formats_p_values_alike():
    y = [1, 0, 1, 0, 1, 0]
    result = skrank.compare(y, {"a": [2, 1, 2, 1, 2, 1], "b": [1, 2, 1, 2, 2, 1]},
                            query_id=[0, 0, 1, 1, 2, 2], metrics=["map"],
                            n_resamples=50, random_state=0)
    last = repr(result).splitlines()[-1].split()
    assert all(P_VALUE.match(cell) for cell in last[-2:]), last
