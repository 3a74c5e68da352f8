"""Numbers in TREC files: strictly by default, as trec_eval's C parsers under its preset.

trec_eval reads a qrels judgment with C's ``atol`` and a run score with
``atof``: whatever number a field starts with, 0 if none. skrank reads a
plain decimal number and refuses anything else, unless
``compat="trec_eval"`` asks for trec_eval's reading.
"""

import re

import numpy as np

# a plain decimal number, the only kind skrank reads outside --compat trec_eval
_PLAIN_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# what C's atol and atof read at the start of a field (trec_eval's parsers)
_ATOL = re.compile(rb"[+-]?\d+")
_ATOF = re.compile(
    rb"[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    rb"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?"
    rb"|[nN][aA][nN])"
)


def _atol(token):
    """C's ``atol``: the leading integer of ``token``, 0 if there is none."""
    match = _ATOL.match(token)
    return float(int(match.group())) if match else 0.0


def _atof(token):
    """C's ``atof`` (``strtod``): the longest leading number of ``token``, else 0."""
    match = _ATOF.match(token)
    if not match:
        return 0.0
    text = match.group().decode("ascii")
    if "x" in text or "X" in text:
        return float.fromhex(text if "p" in text.lower() else text + "p0")
    return float(text)


def parse_number(token, kind, compat):
    """A field's number, as trec_eval reads it or (by default) strictly; None if refused."""
    if compat == "trec_eval":
        value = _atol(token) if kind == "qrels" else _atof(token)
    elif _PLAIN_NUMBER.fullmatch(token):
        value = float(token)
    else:
        return None
    return value if value - value == 0 else None  # refuse inf and nan


def parse_numbers(tokens, kind, compat):
    """``parse_number`` over a few distinct tokens (bytes or str); None if one is refused."""
    out = np.empty(len(tokens), dtype=np.float64)
    for i, token in enumerate(tokens):
        token = token.encode("utf-8", "surrogateescape") if isinstance(token, str) else token
        value = parse_number(token, kind, compat)
        if value is None:
            return None
        out[i] = value
    return out
