"""Ids of any type (query, list, document, slate ids) -> sortable integer keys and
the labels they stand for."""

import numpy as np

from ._frames import pandas_categorical
from ._validation import to_array, first_position


#: What an id names, for the messages: ``"query_id"`` -> each row's "query".
_WHAT = {"query_id": "query", "list_id": "displayed list", "doc_id": "document",
         "slate_id": "slate", "group": "group"}


def _missing(mask, name):
    """The error for ids with missing values, ``mask`` marking them."""
    what = _WHAT.get(name, "group")
    return ValueError(
        f"`{name}` contains missing values (None, NaN or NaT), the first at "
        f"{first_position(mask)}: every row needs the id of its {what}. Drop those "
        "rows from every input, or give them ids of their own."
    )


def factorize(query_id, n_rows, name="query_id"):
    """Sortable integer keys and the id labels they stand for.

    Returns ``(keys, labels_or_None)``: numeric ids are used as keys as they
    are (sorting them is part of the single lexsort); other ids are factorised
    to codes with ``labels[code]`` the original id, in ascending id order
    where ids can be ordered (a pandas categorical: category order). Ids
    that differ in type (``1`` and ``"1"``) are different queries.

    Raises a ValueError naming the argument ``name`` (``"query_id"``,
    ``"list_id"``, ``"doc_id"``, ``"slate_id"``, ...) for missing or
    unhashable ids, a shape other than 1-D, or a length other than
    ``n_rows`` (with a hint when query ids look like LightGBM-style query
    sizes).
    """
    categorical = pandas_categorical(query_id)
    if categorical is not None:
        codes, categories = categorical
        _check_length(codes, n_rows, name)
        if (codes < 0).any():
            raise _missing(codes < 0, name)
        return codes.astype(np.int64), categories

    ids = as_id_array(query_id, name)
    if ids.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-D (one id per row), got shape {ids.shape}."
        )
    _check_length(ids, n_rows, name)
    kind = ids.dtype.kind
    if kind in "biu":
        return ids, None
    if kind == "f":
        if np.isnan(ids).any():
            raise _missing(np.isnan(ids), name)
        return ids, None
    if kind in "mM":  # dates and durations: factorise the integer view, keep the type
        if np.isnat(ids).any():
            raise _missing(np.isnat(ids), name)
        codes, labels = _sorted_codes(ids.view(np.int64))
        return codes, labels.view(ids.dtype)
    if kind in "US":
        return _sorted_codes(ids)
    return _object_codes(ids, name)


def as_id_array(query_id, name="query_id"):
    """``query_id`` as a numpy array that keeps ids of different types apart.

    ``np.asarray([1, "1"])`` turns both into the string ``"1"``; a list or
    tuple whose values are not all strings (or all bytes) becomes an object
    array instead.
    """
    ids = to_array(name, query_id)
    if isinstance(query_id, (list, tuple)) and ids.dtype.kind in "US":
        kind = str if ids.dtype.kind == "U" else bytes
        if not all(isinstance(value, kind) for value in query_id):
            ids = np.empty(len(query_id), dtype=object)
            ids[:] = query_id
    return ids


def not_utf8(strings):
    """True when one of ``strings`` is a str that is not UTF-8 text (holds a lone surrogate).

    Such ids come from files that are not UTF-8: the TREC readers decode
    each undecodable byte as a surrogate escape (``b"caf\\xe9"`` becomes
    ``"caf\\udce9"``), which keeps distinct bytes distinct ids. pandas
    cannot take them. Its string hash table hashes such a str through a
    temporary copy that is freed too early (pandas GH 34550), so
    ``pandas.factorize`` in pandas 2.0 gives ``"caf\\udce9"`` and
    ``"caf\\udce8"`` one code; and its pyarrow-backed strings (pandas 3)
    refuse them. Values that are not str are ignored.
    """
    if isinstance(strings, np.ndarray) and strings.dtype.kind == "U":
        points = np.ascontiguousarray(strings).view(np.uint32)
        return bool(((points & np.uint32(0xFFFFF800)) == np.uint32(0xD800)).any())
    if isinstance(strings, np.ndarray) and strings.dtype.kind != "O":
        return False
    joined = _joined(strings)
    if joined.isascii():
        return False
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_length(ids, n_rows, name):
    n_ids = ids.shape[0] if ids.ndim else 0
    if n_ids == n_rows:
        return
    hint = ""
    if (
        name == "query_id"
        and 0 < n_ids < n_rows
        and ids.ndim == 1
        and ids.dtype.kind in "iu"
        and ids.min() >= 1
        and int(ids.sum()) == n_rows
    ):
        hint = (
            f" Its {n_ids} values add up to the {n_rows} rows, as query sizes do "
            "(LightGBM's `group`): skrank needs one query id per row, such as "
            "`query_id = np.repeat(np.arange(len(sizes)), sizes)`."
        )
    raise ValueError(
        f"Inputs have different lengths: `{name}` has {n_ids} entries but "
        f"there are {n_rows} rows.{hint}"
    )


def hash_words(words, seed=None):
    """A 64-bit mix of each row of an (n, w) array of machine words (numpy only).

    ``seed`` (an int array of length n, such as query codes) enters the mix
    first. Equal rows always get equal hashes; callers check rows of equal
    hash exactly, so collisions never change a result.
    """
    mixed = np.zeros(words.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        if seed is not None:
            mixed += seed.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        for j in range(words.shape[1]):
            mixed ^= words[:, j].astype(np.uint64, copy=False)
            mixed *= np.uint64(0xBF58476D1CE4E5B9)
            mixed ^= mixed >> np.uint64(31)
    return mixed


def _inner_nul(strings):
    """True when one of ``strings`` holds a NUL character before its end.

    pandas 2.0's string hash table reads a str as a C string, up to its
    first NUL: ``pandas.factorize`` then gives ``"a\\0b"`` and ``"a\\0c"``
    one code. numpy's ``U`` arrays pad with NULs at the end: there a NUL
    followed by another character is inside the id; a Python str's
    trailing NULs are characters of it.
    """
    if isinstance(strings, np.ndarray) and strings.dtype.kind == "U":
        width = strings.dtype.itemsize // 4
        if width < 2 or not strings.size:
            return False
        points = np.ascontiguousarray(strings).view(np.uint32).reshape(-1, width)
        return bool(((points[:, :-1] == 0) & (points[:, 1:] != 0)).any())
    if isinstance(strings, np.ndarray) and strings.dtype.kind != "O":
        return False
    return "\0" in _joined(strings)  # a str's trailing NULs are characters too


def _joined(strings):
    """The str values of ``strings`` joined into one (others left out)."""
    try:
        return "".join(strings)
    except TypeError:  # not all str
        return "".join([value for value in strings if isinstance(value, str)])


def pandas_may_merge(strings):
    """Whether ``pandas.factorize`` may give two of ``strings`` one code
    (:func:`not_utf8`, :func:`_inner_nul`): those take numpy or a dict."""
    if not isinstance(strings, np.ndarray) or strings.dtype.kind == "O":
        strings = [_joined(strings)]  # one join serves both checks
    return not_utf8(strings) or _inner_nul(strings)


def _fixed_width_codes(ids):
    """Codes and labels of numpy ``U``/``S`` ids by hashing their fixed-width bytes.

    Each id is a run of machine words; a 64-bit mix of the words is
    factorised as an integer (no Python string is made), then every row is
    checked word by word against its code's first row, so a hash collision
    can never merge two ids: it returns None and the caller takes the exact
    path. Labels come back in ascending order (a sort of the distinct ids
    only). None as well for ids that need no speed (few rows) or whose
    width is not a whole number of 4-byte words.
    """
    n = ids.shape[0]
    if n < 1 << 16 or ids.dtype.itemsize % 4:
        return None
    ids = np.ascontiguousarray(ids)
    word = np.uint64 if ids.dtype.itemsize % 8 == 0 else np.uint32
    words = ids.view(word).reshape(n, -1)
    mixed = hash_words(words)
    try:
        import pandas as pd
    except ImportError:
        _, first, codes = np.unique(mixed, return_index=True, return_inverse=True)
        codes = codes.reshape(-1)
    else:
        codes, uniques = pd.factorize(mixed)
        first = np.empty(uniques.shape[0], dtype=np.int64)
        first[codes[::-1]] = np.arange(n - 1, -1, -1)  # the first row of each code
    for j in range(words.shape[1]):  # exact: every row equals its code's first row
        if not np.array_equal(words[:, j], words[first, j][codes]):
            return None
    labels = ids[first]
    order = np.argsort(labels, kind="stable")
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank[codes], labels[order]


def _sorted_codes(ids):
    """Codes and labels of orderable ids (labels ascending)."""
    if ids.dtype.kind in "US":
        fast = _fixed_width_codes(ids)
        if fast is not None:
            return fast
    try:  # hashing: ~2.4x faster than sorting the strings at 1e7 rows
        import pandas as pd
    except ImportError:
        labels, codes = np.unique(ids, return_inverse=True)
        return codes.reshape(-1).astype(np.int64, copy=False), labels
    if pandas_may_merge(ids):  # pandas' string hashing would merge such ids
        labels, codes = np.unique(ids, return_inverse=True)
        return codes.reshape(-1).astype(np.int64, copy=False), labels
    codes, labels = pd.factorize(ids, sort=True)
    return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=ids.dtype)


def _object_codes(ids, name="query_id"):
    """Codes and labels of hashable Python objects (ascending where orderable)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a test dependency
        return _object_codes_without_pandas(ids, name)
    try:
        missing = pd.isna(ids)
    except TypeError:
        missing = None
    if missing is not None and np.ndim(missing) == 1 and missing.any():
        raise _missing(missing, name)
    if pandas_may_merge(ids):  # pandas' string hashing would merge such ids: a dict
        return _object_codes_without_pandas(ids, name)
    try:
        codes, labels = pd.factorize(ids, sort=True)
    except TypeError:  # ids of mixed, unorderable types, or unhashable ones
        try:
            codes, labels = pd.factorize(ids, sort=False)
        except TypeError:
            _raise_unhashable(ids, name)
    return codes.astype(np.int64), np.asarray(labels, dtype=object)


def _object_codes_without_pandas(ids, name="query_id"):
    missing = np.fromiter(
        (v is None or (isinstance(v, float) and v != v) for v in ids), dtype=bool,
        count=ids.shape[0],
    )
    if missing.any():
        raise _missing(missing, name)
    table = {}
    try:
        codes = np.fromiter(
            (table.setdefault(v, len(table)) for v in ids), dtype=np.int64,
            count=ids.shape[0],
        )
    except TypeError:
        _raise_unhashable(ids, name)
    labels = np.empty(len(table), dtype=object)
    labels[:] = list(table)
    try:  # ascending ids where they can be ordered, else first appearance
        order = np.argsort(labels, kind="stable")
    except TypeError:
        return codes, labels
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return rank[codes], labels[order]


def _raise_unhashable(ids, name):
    bad = next(v for v in ids if not _hashable(v))
    raise ValueError(
        f"`{name}` values must be hashable, such as ints or strings; got a "
        f"{type(bad).__name__} ({bad!r:.40}). Give each "
        f"{_WHAT.get(name, 'group')} one scalar id."
    ) from None


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True


#: rows at a time when :func:`string_keys` packs the characters (in cache)
_PACK_ROWS = 1 << 15


def string_keys(ids, max_bits=40):
    """Integer keys in the ids' order, one per distinct numpy ``U`` id, with no hashing.

    The characters' bits that vary across the rows (a span per character
    position, from its lowest to its highest varying bit) are packed into
    one integer, the first character's in the highest bits: equal ids get
    equal keys, different ids different keys, and keys sort as the ids do
    (code point by code point; a bit that never varies can't change an
    order). Ids such as ``"q000123"`` pack into a few bits. Returns
    ``(keys, labels_of)``: ``labels_of(keys)`` gives back the ids of
    keys (built from the bits: the same strings, dtype and all). None when
    the spans need more than ``max_bits`` bits, or for other arrays.
    """
    if (not isinstance(ids, np.ndarray) or ids.dtype.kind != "U" or ids.ndim != 1
            or not ids.dtype.isnative or not ids.dtype.itemsize or not ids.shape[0]):
        return None
    n, width = ids.shape[0], ids.dtype.itemsize // 4
    chars = np.ascontiguousarray(ids).view(np.uint32).reshape(n, width)
    varying, fixed = _varying_bits(chars)
    plan, total = [], 0
    for column in np.flatnonzero(varying).tolist():
        bits = int(varying[column])
        low = (bits & -bits).bit_length() - 1
        plan.append((column, low, bits.bit_length() - low))
        total += plan[-1][2]
    if total > max_bits:
        return None
    keys = np.zeros(n, dtype=np.uint64)
    part = np.empty(min(n, _PACK_ROWS), dtype=np.uint64)
    for begin in range(0, n, _PACK_ROWS):  # a block at a time, in cache
        out, block = keys[begin:begin + _PACK_ROWS], chars[begin:begin + _PACK_ROWS]
        piece, at = part[:out.shape[0]], total
        for column, low, span in plan:
            at -= span
            np.copyto(piece, block[:, column], casting="unsafe")
            piece &= np.uint64(((1 << span) - 1) << low)
            if at > low:
                piece <<= np.uint64(at - low)
            elif at < low:
                piece >>= np.uint64(low - at)
            out |= piece
    dtype = ids.dtype

    def labels_of(found):
        found = np.asarray(found, dtype=np.uint64)
        rebuilt = np.repeat(fixed[np.newaxis, :], found.shape[0], axis=0)
        at = total
        for column, low, span in plan:
            at -= span
            mask = (1 << span) - 1
            rebuilt[:, column] &= np.uint32(~(mask << low) & 0xFFFFFFFF)
            value = (found >> np.uint64(at)) & np.uint64(mask)
            rebuilt[:, column] |= (value << np.uint64(low)).astype(np.uint32)
        return rebuilt.reshape(-1).view(dtype)

    return keys.view(np.int64), labels_of


def _varying_bits(chars):
    """Per column of ``chars``: the bits that differ between rows, and the first row's."""
    n, width = chars.shape
    rows = 512  # rows folded side by side: reductions along long rows are fast
    full = n - n % rows
    wide = chars[:full].reshape(-1, rows * width)
    ones = np.vstack([np.bitwise_or.reduce(wide, axis=0).reshape(rows, width),
                      chars[full:]]) if full else chars
    zeros = np.vstack([np.bitwise_and.reduce(wide, axis=0).reshape(rows, width),
                       chars[full:]]) if full else chars
    ones, zeros = np.bitwise_or.reduce(ones, axis=0), np.bitwise_and.reduce(zeros, axis=0)
    return ones ^ zeros, chars[0].copy()
