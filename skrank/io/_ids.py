"""Document and query ids at the byte level: strcmp's order and the duplicate check.

trec_eval compares ids as C strings, byte by byte; these helpers order ids
that way and find a (query, document) pair given twice, reading pyarrow's
buffers where they can rather than making a Python string per id.
"""

import numpy as np

from .._core._factorize import hash_words
from .._core._sort import key_runs, sort_each_run
from ._arrow import arrow_call, arrow_options, index_array, numeric, one_array
from ._read import _line_of_row


def _byte_order(strings):
    """Indices that sort ``strings`` (a sequence of str) as strcmp sorts their bytes.

    Ids read from a file that is not UTF-8 hold surrogate escapes; they
    compare as the bytes they stand for. No fixed-width array: memory grows
    with the ids' total length, not with (count x longest id).
    """
    encoded = [s.encode("utf-8", "surrogateescape") for s in strings]
    try:
        import pyarrow as pa
    except ImportError:
        return np.array(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int64)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # built from buffers: pa.array would import pandas
    return _binary_order(pa.Array.from_buffers(pa.large_binary(), len(encoded), [
        None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]))


def _binary_order(array):
    """Indices that sort a pyarrow binary array as memcmp (and strcmp) sorts bytes."""
    return numeric(arrow_call("sort_indices", array), np.uint64).astype(np.int64)


def _rank(order):
    """Each position's rank, from the indices that sort them."""
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank


def _sorted_label_rank(labels):
    """Rank of each label in sorted (byte-wise, as strcmp) order."""
    return _rank(_byte_order(labels))


def query_order(qrels):
    """``(rank, labels_sorted)``: each qrels query's rank in strcmp order, and the labels in it."""
    rank = _sorted_label_rank(qrels.query_labels)
    return rank, qrels.query_labels[np.argsort(rank)]


def _doc_byte_rank(table, rows):
    """Each of ``rows``' document ids' rank among them, in strcmp's (byte) order.

    A run read by pyarrow has its ids in one string array: their UTF-8 bytes
    are sorted as binary, with no Python string made per id.
    """
    if table.doc_array is None:
        return _sorted_label_rank(table.doc_strings(rows))
    import pyarrow as pa

    taken = one_array(table.take_docs(rows))
    return _rank(_binary_order(taken.view(
        pa.large_binary() if pa.types.is_large_string(taken.type) else pa.binary())))


def _first_duplicate(keys):
    """Index of a key that occurs twice (-1 if all are distinct)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    return -1 if same.shape[0] == 0 else int(order[same[0] + 1])


def _unaligned_words(data):
    """A view of ``data`` (uint8) as the little-endian uint64 starting at each byte."""
    return np.ndarray((data.shape[0] - 7,), dtype="<u8", buffer=data, strides=(1,))


def _padded_words(docs, n_words):
    """:func:`_id_words`' words from pyarrow's ``ascii_rpad``, or None.

    Every id padded with zero bytes to ``8 * n_words`` bytes makes one
    dense buffer, read as the words themselves: one pass in C++ (about 1 ms
    per 131k ids, against 4-5 ms for gathering and masking each word).
    None when the padded ids are not all that wide (ids that are not
    ASCII may be padded by characters rather than bytes).
    """
    import pyarrow as pa

    width = 8 * n_words
    padded = arrow_call("ascii_rpad", docs,
                        options=arrow_options("PadOptions", width=width, padding="\0"))
    large = pa.types.is_large_string(padded.type) or pa.types.is_large_binary(padded.type)
    buffers = padded.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)
    first = int(offsets[padded.offset])
    last = int(offsets[padded.offset + len(padded)])
    if last - first != width * len(padded) or buffers[2] is None:
        return None  # each padded id is at least width bytes: the sum says all are
    data = np.frombuffer(buffers[2], dtype=np.uint8, count=last - first, offset=first)
    return data.view("<u8").reshape(len(padded), n_words)


def _id_words(docs):
    """Each id's bytes as little-endian uint64 words (zero past its end), and its length.

    ``docs`` is a pyarrow string or binary array. The words are read from
    its own buffers, 8 bytes at each id's start, and masked to the id's
    length: no padded copy of the strings is made. Equal (words, length)
    rows are equal ids, byte for byte. None when an id is longer than 64
    bytes (too wide a matrix).
    """
    import pyarrow as pa

    large = pa.types.is_large_string(docs.type) or pa.types.is_large_binary(docs.type)
    buffers = docs.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)
    offsets = offsets[docs.offset:docs.offset + len(docs) + 1].astype(np.int64)
    start = offsets[:-1]
    lengths = np.diff(offsets)
    longest = int(lengths.max(initial=0))
    if longest > 64:
        return None
    n_words = max((longest + 7) // 8, 1)
    padded = _padded_words(docs, n_words)
    if padded is not None:
        return padded, lengths
    data = (np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None
            else np.zeros(0, dtype=np.uint8))
    size = data.shape[0]
    # the buffer's last bytes, followed by zeros: a word that would run past
    # the end of the buffer is read from this copy
    tail_start = max(size - 8 * n_words - 8, 0)
    tail = np.zeros(size - tail_start + 8 * n_words + 8, dtype=np.uint8)
    tail[:size - tail_start] = data[tail_start:]
    tail = _unaligned_words(tail)
    body = _unaligned_words(data) if size >= 8 else None
    shortest = int(lengths.min(initial=0))
    # column-major: each word of all ids is one contiguous column
    words = np.empty((n_words, start.shape[0]), dtype=np.uint64).T
    every = np.uint64(0xFFFFFFFFFFFFFFFF)
    for k in range(n_words):
        at = start + 8 * k
        word = (body[np.minimum(at, size - 8)] if body is not None
                else np.zeros(at.shape[0], dtype=np.uint64))
        late = np.flatnonzero(at > size - 8)
        word[late] = tail[at[late] - tail_start]
        if shortest < 8 * (k + 1):  # some ids end inside this word: the bytes past them go
            kept_bits = (np.clip(lengths - 8 * k, 0, 8) * 8).astype(np.uint64)
            word &= ~np.left_shift(every, kept_bits)  # a shift by 64 gives 0: all kept
        words[:, k] = word
    return words, lengths


def _repeated_rows(values, starts=None):
    """The rows (ascending) whose uint64 value occurs more than once.

    Only the values' top 32 bits are sorted (a narrower sort, about half
    the time); the few rows whose top bits repeat are then compared whole.
    With ``starts`` (the first rows of runs that no repeated value spans,
    such as the lines of one query each) each run is sorted on its own:
    small sorts that stay in the CPU's cache.
    """
    top = (values >> np.uint64(32)).astype(np.uint32)
    if starts is None:
        ordered = np.sort(top)
    else:
        ordered = top.copy()
        sort_each_run(ordered, starts)
        # neighbours across two runs may be equal: they are only candidates
    repeated_top = ordered[1:][ordered[1:] == ordered[:-1]]
    if repeated_top.shape[0] == 0:
        return repeated_top.astype(np.intp)
    del ordered
    rows = np.flatnonzero(np.isin(top, repeated_top))
    values = values[rows]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    repeated = np.zeros(values.shape[0], dtype=bool)
    repeated[order[same]] = repeated[order[same + 1]] = True
    return rows[repeated]


def _line_ids(docs, rows=None):
    """``(docs, found)``: lines' ids as one pyarrow array, and :func:`_id_words`' answer.

    ``docs`` is a pyarrow string array (or chunked array); ``rows``
    (optional) the row of each line's id in it, for lines scattered through
    a larger run: they are taken out first, as pyarrow copies them faster
    than words can be gathered from all over the larger buffers. ``found``
    is None for ids over 64 bytes.
    """
    if rows is not None:
        docs = arrow_call("take", docs, index_array(rows))
    docs = one_array(docs)  # a piece of a chunked run: a copy of its ids only
    return docs, _id_words(docs)


def _words_rank(found, rows):
    """Each of ``rows``' ids' rank among them in strcmp's order, from :func:`_id_words`' ``found``.

    The words hold each id's bytes, zero past its end: read big-endian,
    they compare as strcmp compares the bytes; the length then orders an
    id before the same id with NUL bytes added, as memcmp and then length
    order them.
    """
    words, lengths = found
    keys = [lengths[rows]] + [words[rows, k].byteswap() for k in range(words.shape[1] - 1, -1, -1)]
    return _rank(np.lexsort(keys))


def _first_duplicate_arrow(query, docs, rows=None, *, line_ids=None):
    """A row repeating an earlier (query, id) pair, from hashed id words; -1 if none.

    ``docs`` and ``rows`` as :func:`_line_ids` takes them, or ``line_ids``
    its answer when the caller has it. A 64-bit hash of each line's query
    and id words is computed; only lines of repeated hashes are then
    compared exactly, so a collision is never taken for a duplicate.
    """
    docs, found = line_ids or _line_ids(docs, rows)
    if found is None:  # an id over 64 bytes: exact codes from a hash table
        codes = np.asarray(arrow_call("dictionary_encode", docs).indices, dtype=np.int64)
        return _first_duplicate(query * (int(codes.max(initial=0)) + 1) + codes)
    words, lengths = found
    mixed = hash_words(words, seed=query)
    runs = key_runs(query)  # each query's lines together: a duplicate stays in its run
    group = _repeated_rows(mixed, None if runs is None else runs[0])
    if group.shape[0] == 0:
        return -1
    # those lines by (hash, query, length, words): equal lines become
    # neighbours even where other ids share their hash
    keys = [words[group, j] for j in range(words.shape[1] - 1, -1, -1)]
    group = group[np.lexsort(keys + [lengths[group], query[group], mixed[group]])]
    a, b = group[:-1], group[1:]
    equal = ((mixed[a] == mixed[b]) & (query[a] == query[b]) & (lengths[a] == lengths[b])
             & (words[a] == words[b]).all(axis=1))
    return int(b[equal].min()) if equal.any() else -1


def _check_duplicates(table, kind, line_ids=None):
    """Raise if ``table`` gives a (query, document) pair twice, naming the line.

    ``line_ids``: :func:`_line_ids` of a run read by pyarrow, when the
    caller has them.
    """
    if table.doc_array is not None:
        position = _first_duplicate_arrow(table.query, table.doc_array, table.doc_rows,
                                          line_ids=line_ids)
    else:
        n_docs = max(table.doc_labels.shape[0], 1)
        position = _first_duplicate(table.query * n_docs + table.doc)
    if position >= 0:
        row = position if table.origin is None else int(table.origin[position])
        where = (f"line {_line_of_row(table.path, kind, row)} of the {kind}"
                 if table.path is not None else f"row {position} of `{table.source}`")
        raise ValueError(
            f"{table.source}: document {table.doc_strings([position])[0]!r} appears "
            f"twice in query {table.query_labels[table.query[position]]!r} "
            f"({where}); trec_eval refuses this too."
        )
