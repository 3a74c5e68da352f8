"""Query ids of every kind: polars and pandas Series, mixed types, dates, bad ids.

Expected values come from the brute-force reference, computed on numpy ids
or on each query's rows alone.
"""

import numpy as np
import pandas as pd
import pytest

import skrank
from skrank._core._factorize import factorize

from .. import _reference as ref
from .._needs import needs

pl = needs("polars")

RNG = np.random.default_rng(7)
N = 60
Y = RNG.integers(0, 3, N)
S = np.round(RNG.normal(size=N), 1)  # rounded: some ties inside queries
INT_IDS = RNG.integers(0, 8, N)
STR_IDS = np.array([f"q{i}" for i in INT_IDS])


def _series(library, kind):
    """The ids INT_IDS as a Series of ``kind`` in ``library``."""
    if library == "polars":
        if kind == "int":
            return pl.Series(INT_IDS, dtype=pl.Int64)
        strings = pl.Series(STR_IDS.tolist(), dtype=pl.String)
        return strings if kind == "str" else strings.cast(pl.Categorical)
    if kind == "int":
        return pd.Series(INT_IDS, dtype="Int64")
    return pd.Series(STR_IDS.tolist(), dtype="string" if kind == "str" else "category")


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("kind", ["int", "str", "category"])
def test_series_ids_give_the_numbers_of_numpy_ids(library, kind):
    query_id = _series(library, kind)
    expected = ref.ref_ndcg(Y, S, k=5, query_id=INT_IDS)
    assert skrank.ndcg_score(Y, S, k=5, query_id=query_id) == pytest.approx(expected)
    expected_map = ref.ref_average_precision(Y, S, query_id=INT_IDS)
    assert skrank.average_precision_score(Y, S, query_id=query_id) == pytest.approx(
        expected_map)
    per_query = skrank.ndcg_score(Y, S, k=5, query_id=query_id, aggregate=None)
    numpy_ids = skrank.ndcg_score(Y, S, k=5, query_id=INT_IDS, aggregate=None)
    np.testing.assert_allclose(per_query.value, numpy_ids.value)  # same query order
    labels = STR_IDS if kind != "int" else INT_IDS
    assert sorted(per_query.query_id.tolist()) == sorted(set(labels.tolist()))


@pytest.mark.parametrize("library", ["pandas", "polars"])
@pytest.mark.parametrize("kind", ["int", "str", "category"])
def test_series_ids_work_in_evaluate(library, kind):
    query_id = _series(library, kind)
    result = skrank.evaluate(Y, S, query_id=query_id, metrics=["ndcg@5", "mrr"])
    assert result["ndcg@5"] == pytest.approx(ref.ref_ndcg(Y, S, k=5, query_id=INT_IDS))
    assert result["mrr"] == pytest.approx(ref.ref_reciprocal_rank(Y, S, query_id=INT_IDS))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_series_inputs_everywhere(library):
    series = pd.Series if library == "pandas" else pl.Series
    weight = RNG.uniform(0.5, 2.0, N)
    value = skrank.ndcg_score(series(Y), series(S), query_id=_series(library, "str"),
                              sample_weight=series(weight), k=3)
    assert value == pytest.approx(
        ref.ref_ndcg(Y, S, k=3, query_id=INT_IDS, sample_weight=weight))


def test_polars_frames_are_2d_input():
    y2 = Y[:12].reshape(3, 4)
    s2 = S[:12].reshape(3, 4)
    frame = pl.DataFrame({f"c{j}": y2[:, j] for j in range(4)})
    scores = pl.DataFrame({f"c{j}": s2[:, j] for j in range(4)})
    assert skrank.ndcg_score(frame, scores, no_relevant="zero") == pytest.approx(
        ref.ref_ndcg(y2, s2, no_relevant="zero"))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_missing_ids_in_a_series_are_refused(library):
    ids = [1, None, 2, 2] if library == "polars" else pd.Series([1, None, 2, 2], dtype="Int64")
    query_id = pl.Series(ids) if library == "polars" else ids
    with pytest.raises(ValueError, match="`query_id` contains missing values"):
        skrank.ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], query_id=query_id)
    strings = pl.Series(["a", None, "b", "b"]) if library == "polars" else pd.Series(
        ["a", None, "b", "b"], dtype="string")
    with pytest.raises(ValueError, match="`query_id` contains missing values"):
        skrank.ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], query_id=strings)


# -- ids that differ only in type stay apart ------------------------------------
def test_a_list_mixing_1_and_the_string_1_keeps_two_queries():
    y = [1, 0, 0, 0, 1, 0]
    s = [3, 2, 1, 3, 2, 1]
    query_id = [1, 1, 1, "1", "1", "1"]
    # per query, on its own rows: query 1 has its relevant row first (AP 1);
    # query "1" has it second (AP 1/2)
    first = ref.ref_average_precision(y[:3], s[:3])
    second = ref.ref_average_precision(y[3:], s[3:])
    assert (first, second) == (1.0, 0.5)
    assert skrank.average_precision_score(y, s, query_id=query_id) == pytest.approx(
        (first + second) / 2)
    result = skrank.average_precision_score(y, s, query_id=query_id, aggregate=None)
    assert len(result.query_id) == 2
    assert {type(v) for v in result.query_id.tolist()} == {int, str}


def test_a_tuple_of_strings_is_still_a_string_array():
    keys, labels = factorize(("b", "a", "b"), 3)
    assert labels.dtype.kind == "U"
    assert labels[keys].tolist() == ["b", "a", "b"]


def test_bytes_and_str_ids_stay_apart():
    keys, labels = factorize([b"a", "a", b"a"], 3)
    assert keys[0] == keys[2] != keys[1]


# -- unhashable ids ---------------------------------------------------------------
@pytest.mark.parametrize("bad", [[1], {"a": 1}], ids=["list", "dict"])
def test_unhashable_ids_raise_a_value_error_naming_query_id(bad):
    ids = np.empty(4, dtype=object)
    ids[:] = [bad, bad, 3, 3]
    with pytest.raises(ValueError, match="`query_id` values must be hashable") as info:
        skrank.ndcg_score([1, 0, 1, 0], [4, 3, 2, 1], query_id=ids)
    assert type(bad).__name__ in str(info.value)


def test_unhashable_ids_raise_without_pandas_too():
    import skrank._core._factorize as module

    ids = np.empty(3, dtype=object)
    ids[:] = [[1], [1], [2]]
    with pytest.raises(ValueError, match="`query_id` values must be hashable"):
        module._object_codes_without_pandas(ids)


def test_object_ids_without_pandas_follow_the_same_rules():
    import skrank._core._factorize as module

    ids = np.empty(5, dtype=object)
    ids[:] = ["b", "a", "b", 2, 1]
    codes, labels = module._object_codes_without_pandas(ids)
    assert labels[codes].tolist() == ids.tolist()  # round trip
    assert len(labels) == 4  # "b", "a", 2, 1 (mixed types: not sortable)
    ids[:] = ["b", "a", "b", "c", "a"]
    codes, labels = module._object_codes_without_pandas(ids)
    assert labels.tolist() == ["a", "b", "c"]  # ascending where orderable
    assert labels[codes].tolist() == ids.tolist()
    ids[:] = ["b", None, "b", "c", "a"]
    with pytest.raises(ValueError, match="missing values"):
        module._object_codes_without_pandas(ids)


# -- dates and durations keep their type -----------------------------------------
@pytest.mark.parametrize("unit", ["D", "s", "ns"])
def test_datetime_ids_come_back_as_datetimes(unit):
    dates = np.array(["2024-03-01", "2023-01-05", "2024-03-01", "2023-01-05"],
                     dtype=f"datetime64[{unit}]")
    result = skrank.average_precision_score([1, 0, 0, 1], [2, 1, 1, 2], query_id=dates,
                                            aggregate=None)
    assert result.query_id.dtype == dates.dtype
    np.testing.assert_array_equal(result.query_id, np.sort(np.unique(dates)))
    np.testing.assert_array_equal(result.value, [1.0, 1.0])


def test_timedelta_ids_keep_their_type_and_nat_is_missing():
    gaps = np.array([5, 5, 2, 2], dtype="timedelta64[m]")
    result = skrank.ndcg_score([1, 0, 0, 1], [2, 1, 1, 2], query_id=gaps, aggregate=None)
    assert result.query_id.dtype == gaps.dtype
    np.testing.assert_array_equal(result.query_id, gaps[[2, 0]])
    dates = np.array(["2024-03-01", "NaT"], dtype="datetime64[D]")
    with pytest.raises(ValueError, match="`query_id` contains missing values"):
        skrank.ndcg_score([1, 0], [2, 1], query_id=dates)


def test_pandas_and_polars_datetime_series_ids():
    stamps = pd.to_datetime(["2024-03-01", "2023-01-05", "2024-03-01", "2023-01-05"])
    for query_id in (pd.Series(stamps), pl.Series(stamps.to_numpy())):
        result = skrank.ndcg_score([1, 0, 0, 1], [2, 1, 1, 2], query_id=query_id,
                                   aggregate=None)
        assert result.query_id.dtype.kind == "M"
        assert result.query_id[0] == np.datetime64("2023-01-05")


# -- LightGBM-style group sizes ----------------------------------------------------
def test_group_sizes_given_as_query_id_get_the_repeat_hint():
    sizes = np.array([3, 2, 5])
    with pytest.raises(ValueError, match=r"np\.repeat\(np\.arange\(len\(sizes\)\), sizes\)"):
        skrank.ndcg_score(np.zeros(10), np.arange(10), query_id=sizes)
    # the suggested fix scores the same rows per query
    query_id = np.repeat(np.arange(len(sizes)), sizes)
    assert query_id.tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2, 2]


def test_a_length_mismatch_without_the_sizes_pattern_gets_no_hint():
    with pytest.raises(ValueError, match="`query_id` has 3 entries") as info:
        skrank.ndcg_score(np.zeros(10), np.arange(10), query_id=[1, 2, 3])
    assert "np.repeat" not in str(info.value)


@pytest.mark.parametrize("dtype", ["U", "S"])
def test_many_fixed_width_string_ids_take_the_hashed_path_exactly(dtype):
    from skrank._core._factorize import _fixed_width_codes

    rng = np.random.default_rng(0)
    names = np.array([f"id{i:05d}x" for i in rng.permutation(5000)]).astype(dtype)
    ids = names[rng.integers(0, 5000, size=1 << 17)]
    fast = _fixed_width_codes(ids)
    assert fast is not None  # the path under test ran
    codes, labels = factorize(ids, ids.shape[0])
    expected_labels, expected_codes = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))


# -- ids that are not UTF-8 ------------------------------------------------------
def _escaped_ids(n):
    """``n`` distinct ids as a file that is not UTF-8 gives them: one surrogate
    escape each (b"caf\\x80" -> "caf\\udc80", ...), in a shuffled order, twice."""
    names = [bytes([ord("c"), 0x80 + i % 128, 0x80 + i // 128]).decode("utf-8", "surrogateescape")
             for i in range(n)]
    return names + names[::-1]


@pytest.mark.parametrize("kind", ["object", "U"])
def test_ids_that_are_not_utf8_stay_distinct(kind):
    # pandas' string hash table hashes such ids through a temporary that is
    # freed too early (pandas GH 34550): pandas 2.0 gave them all one code
    ids = np.asarray(_escaped_ids(50), dtype=object if kind == "object" else None)
    codes, labels = factorize(ids, ids.shape[0])
    assert len(labels) == 50
    assert labels[codes].tolist() == ids.tolist()
    assert labels.tolist() == sorted(set(ids.tolist()))  # ascending, as other ids


def test_queries_whose_ids_are_not_utf8_are_scored_apart():
    # two queries, "caf\xe9" and "caf\xe8" as latin-1 bytes: AP 1 and AP 1/2
    ids = [b"caf\xe9".decode("utf-8", "surrogateescape")] * 2 + \
          [b"caf\xe8".decode("utf-8", "surrogateescape")] * 2
    assert skrank.average_precision_score([1, 0, 0, 1], [2, 1, 2, 1], query_id=ids) == 0.75


@pytest.mark.parametrize("strings, expected", [
    (["a", "caf\u00e9", "\u2028"], False),  # UTF-8 text, ASCII or not
    (["a", "caf\udce9"], True),  # a surrogate escape
    (np.array(["a", "caf\udce9"]), True),
    (np.array(["a", "caf\u00e9"]), False),
    ([1, None, b"\xe9", "a"], False),  # values that are not str are ignored
    ([1, "\udce9"], True),
    ([], False),
])
def test_not_utf8_finds_surrogate_escapes(strings, expected):
    from skrank._core._factorize import not_utf8

    assert not_utf8(strings) is expected


# -- the argument's name in every message ---------------------------------------------

@pytest.mark.parametrize("name, what", [
    ("query_id", "query"), ("list_id", "displayed list"), ("doc_id", "document"),
    ("slate_id", "slate"),
])
@pytest.mark.parametrize("ids", [
    [1.0, np.nan, 2.0],
    ["a", None, "b"],
    pd.Series(["a", None, "b"], dtype="category"),
    np.array(["2024-01-01", "NaT", "2024-01-02"], dtype="datetime64[D]"),
])
def test_missing_ids_name_the_argument(ids, name, what):
    message = (rf"`{name}` contains missing values \(None, NaN or NaT\), the first "
               rf"at row 1: every row needs the id of its {what}\.")
    with pytest.raises(ValueError, match=message):
        factorize(ids, 3, name=name)


@pytest.mark.parametrize("name", ["doc_id", "slate_id"])
def test_other_errors_name_the_argument(name):
    with pytest.raises(ValueError, match=rf"`{name}` has 2 entries but there are 3"):
        factorize([2, 1], 3, name=name)
    # the LightGBM hint is about query sizes: only for query ids
    with pytest.raises(ValueError) as error:
        factorize([2, 1], 3, name=name)
    assert "LightGBM" not in str(error.value)
    with pytest.raises(ValueError, match="LightGBM"):
        factorize([2, 1], 3)
    with pytest.raises(ValueError, match=rf"`{name}` must be 1-D"):
        factorize(np.zeros((3, 1)), 3, name=name)
    import skrank._core._factorize as module

    ids = np.empty(3, dtype=object)
    ids[:] = [[1], [1], [2]]
    with pytest.raises(ValueError, match=rf"`{name}` values must be hashable"):
        factorize(ids, 3, name=name)
    with pytest.raises(ValueError, match=rf"`{name}` values must be hashable"):
        module._object_codes_without_pandas(ids, name)


def test_rank_queries_names_the_ids_as_its_caller_does():
    from skrank._core._layout import rank_queries

    with pytest.raises(ValueError, match=r"`list_id` contains missing values .* row 1: "
                                         r"every row needs the id of its displayed list"):
        rank_queries([1, 0, 1], [3, 2, 1], query_id=[1, None, 2], id_name="list_id")
    with pytest.raises(ValueError, match=r"`query_id` contains missing values"):
        rank_queries([1, 0, 1], [3, 2, 1], query_id=[1, None, 2])


@pytest.mark.parametrize("kind", ["object", "U"])
def test_ids_with_a_nul_inside_stay_distinct(kind):
    # pandas 2.0 hashes a str as a C string, up to its first NUL: it gave
    # "q\0 1" and "q\0 2" one code (the floor stack's pandas)
    ids = np.asarray([f"q\0{i % 7}" for i in range(50)],
                     dtype=object if kind == "object" else None)
    codes, labels = factorize(ids, ids.shape[0])
    assert len(labels) == 7
    assert labels[codes].tolist() == ids.tolist()
    assert labels.tolist() == sorted(set(ids.tolist()))


def test_queries_whose_ids_differ_after_a_nul_are_scored_apart():
    # "a\0x": AP 1; "a\0y": AP 1/2
    ids = ["a\0x", "a\0x", "a\0y", "a\0y"]
    assert skrank.average_precision_score([1, 0, 0, 1], [2, 1, 2, 1], query_id=ids) == 0.75
    assert skrank.average_precision_score([1, 0, 0, 1], [2, 1, 2, 1],
                                          query_id=np.array(ids)) == 0.75


@pytest.mark.parametrize("strings, expected", [
    (np.array(["a\0b", "ab"]), True),
    (np.array(["ab", "a"]), False),  # numpy pads with NULs at the end: not inside
    (np.array(["a\0", "b"], dtype=object), True),  # a str's NUL is a character
    (["a", "b", 3], False),
    ([], False),
])
def test_inner_nul_finds_nul_characters_in_ids(strings, expected):
    from skrank._core._factorize import _inner_nul

    assert _inner_nul(strings) is expected
