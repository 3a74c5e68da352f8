"""Whether a TREC file is plain: what pyarrow can parse from its path as it is.

Plain: no gzip, no byte-order mark, no line starting with ``#`` (a
comment), none of ``\v``, ``\f``, ``\r``, and one kind of field
delimiter, spaces or tabs. Anything else goes through the reader's
in-memory preparation first (:func:`skrank.io._read._prepare`).
"""

import numpy as np

_BOM = b"\xef\xbb\xbf"

#: bytes scanned at a time: a block that stays in the CPU's cache (16 MiB
#: blocks took twice as long, most of it faulting in the block's pages)
_SCAN_BLOCK = 1 << 18


def _plain_delimiter(path):
    """The delimiter of a plain file that pyarrow can parse from its path, else None.

    The file is scanned in blocks (memchr; the process holds one block, not
    the file): no gzip, no byte-order mark, no line starting with ``#`` (a
    comment), and one kind of white space, spaces or tabs. Doubled, leading and
    trailing delimiters need no scan: they change a line's field count,
    which pyarrow refuses, and the file then goes through the reader's
    ``_prepare`` in memory, as does any other file.
    """
    with open(path, "rb") as handle:
        head = handle.read(3)
        if head[:2] == b"\x1f\x8b" or head == _BOM:
            return None
        handle.seek(0)
        block = bytearray(_SCAN_BLOCK)
        seen, line_start = set(), True
        while True:
            size = handle.readinto(block)
            if not size:
                break
            # a comment starts a line with "#" ("#" inside an id is no
            # comment); one after leading white space changes the line's
            # field count, which pyarrow refuses
            if ((line_start and block[:1] == b"#") or _line_starts_with_hash(block, size)
                    or any(block.find(c, 0, size) >= 0 for c in (b"\v", b"\f", b"\r"))):
                return None
            line_start = block[size - 1:size] == b"\n"
            for sep in (b" ", b"\t"):
                if sep not in seen and block.find(sep, 0, size) >= 0:
                    seen.add(sep)
            if len(seen) > 1:
                return None
    return "\t" if seen == {b"\t"} else " "


def _line_starts_with_hash(block, size):
    """Whether a line of ``block[:size]`` starts with "#" after its first byte.

    memchr first (most files hold no "#"); ids that hold one on every line
    (MS MARCO's passages) are checked with numpy, the bytes read in pairs at
    even and at odd offsets: a search for the two bytes ``\n#`` is ten
    times slower.
    """
    if block.find(b"#", 0, size) < 0:
        return False
    data = np.frombuffer(block, dtype=np.uint8, count=size)
    pair = np.uint16(ord("\n") | ord("#") << 8)  # b"\n#" read as a little-endian word
    for offset in (0, 1):
        n_words = (size - offset) // 2
        words = data[offset:offset + 2 * n_words].view("<u2")
        if (words == pair).any():
            return True
    return False
