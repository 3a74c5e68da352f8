"""The names of the recommendation-list metrics: ``"novelty@10"``, ``"arp@5"``, ...

One table, read by the scorers, :func:`evaluate_lists` and
:func:`explain_list_difference`.
"""

import re

from .._core._validation import describe
from ._coverage import catalog_coverage_score, distributional_coverage_score, gini_score
from ._diversity import intra_list_diversity_score
from ._novelty import novelty_score, popularity_score, tail_share_score
from ._serendipity import serendipity_score

#: metric name (and its short names) -> function
RECSYS_METRICS = {
    "novelty": novelty_score,
    "catalog_coverage": catalog_coverage_score,
    "distributional_coverage": distributional_coverage_score,
    "popularity": popularity_score,
    "tail_share": tail_share_score,
    "gini": gini_score,
    "intra_list_diversity": intra_list_diversity_score,
    "serendipity": serendipity_score,  # reads y as each row's relevance
}
#: the short names, as in the literature: coverage, entropy, ARP, APLT, ILD
ALIASES = {"coverage": "catalog_coverage", "entropy": "distributional_coverage",
           "arp": "popularity", "aplt": "tail_share", "ild": "intra_list_diversity"}
_NAME = re.compile(r"^(?P<stem>[a-z_]+)(?:@(?P<k>[1-9][0-9]*))?$")


def parse_recsys_name(name):
    """``(stem, k or None)`` of a name such as ``"novelty@10"`` or ``"arp@5"``."""
    match = _NAME.match(name) if isinstance(name, str) else None
    stem = None if match is None else ALIASES.get(match["stem"], match["stem"])
    if stem not in RECSYS_METRICS:
        known = sorted([*RECSYS_METRICS, *ALIASES])
        raise ValueError(
            f"`metric` must be a recommendation-list metric name such as 'novelty@10' "
            f"(one of {', '.join(known)}, with an optional @k), got {describe(name)}."
        )
    return stem, None if match["k"] is None else int(match["k"])
