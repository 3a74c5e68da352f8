"""pyarrow without its slow imports: compute calls, arrays from numpy buffers, numpy views.

pyarrow's own conveniences import pandas (``pa.array``, ``to_numpy``,
``pa.scalar``: about 0.4 s of a command's start) or build ``pyarrow.compute``'s
~300 Python wrappers (30 ms); these helpers reach the same C++ functions
through the compiled layer and numpy buffers. Every reader, table and join
of skrank.io calls pyarrow through them.
"""

import numpy as np


def one_array(strings):
    """A pyarrow array, or a chunked array's chunks joined into one."""
    return strings.combine_chunks() if hasattr(strings, "chunks") else strings


def index_array(rows):
    """A pyarrow int64 array of ``rows``, built from its buffer (pa.array would import pandas)."""
    import pyarrow as pa

    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), rows.shape[0], [None, pa.py_buffer(rows)])


def mask_array(mask):
    """A pyarrow boolean array of the numpy ``mask``, built from its packed bits."""
    import pyarrow as pa

    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), mask.shape[0], [None, pa.py_buffer(bits)])


def _compute_name(name):
    """``name`` (``call_function``, an options class) from pyarrow's compute layer.

    Taken from the compiled ``pyarrow._compute``, not ``pyarrow.compute``:
    that module builds a Python wrapper and a docstring for each of its ~300
    functions when imported (about 30 ms of the command's start, and array
    methods such as ``take`` or ``dictionary_encode`` import it). A pyarrow
    that moved the name gets it from the public module.
    """
    from importlib import import_module

    try:
        return getattr(import_module("pyarrow._compute"), name)
    except (ImportError, AttributeError):
        return getattr(import_module("pyarrow.compute"), name)


def arrow_call(name, *args, options=None):
    """pyarrow's compute function ``name`` on ``args`` (see :func:`_compute_name`)."""
    return _compute_name("call_function")(name, list(args), options)


def arrow_options(name, **kwargs):
    """An options object of pyarrow's compute functions (``"SetLookupOptions"``, ...)."""
    return _compute_name(name)(**kwargs)


def numeric(column, dtype, fill=None):
    """A numeric pyarrow column as one numpy array; nulls become ``fill``.

    None if there are nulls and no ``fill``. Read from the value buffers,
    a chunk with nulls after pyarrow's ``coalesce`` fills them: pyarrow's
    own ``to_numpy``, ``fill_null`` and ``pa.scalar`` import pandas, which
    alone costs about 0.4 s of a command's start.
    """
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    if fill is None and any(c.null_count for c in chunks):
        return None
    size = np.dtype(dtype).itemsize
    parts = []
    for c in chunks:
        if c.null_count:  # the nulls filled by pyarrow (C++), then read as the others
            c = arrow_call("coalesce", c, _scalar(fill, dtype, c.type))
        parts.append(np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c),
                                   offset=size * c.offset))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _scalar(value, dtype, arrow_type):
    """A pyarrow scalar of ``value`` (``pa.scalar`` would import pandas)."""
    import pyarrow as pa

    data = pa.py_buffer(np.array([value], dtype=dtype))
    return pa.Array.from_buffers(arrow_type, 1, [None, data])[0]
