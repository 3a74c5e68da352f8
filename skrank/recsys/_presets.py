"""The recommender libraries' conventions (``compat=`` of :mod:`skrank.recsys`), as data.

The same types as the ranking presets (:class:`~skrank._core._presets.Convention`,
one :class:`~skrank._core._presets.MetricConvention` per metric): a
preset is the options that make skrank's function compute the library's
number. They are kept in their own table because the ranking presets'
table is read by every ranking metric, ``evaluate``'s names and the
command line, none of which takes a recommendation list. Options given
explicitly win over the preset's.
"""

import functools

import numpy as np

from .._core._params import Rule, validate_params
from .._core._presets import Convention, MetricConvention as _M

RECSYS_PRESETS = {
    "recommenders": Convention(
        "recommenders", "Microsoft recommenders", "1.2.1",
        {},
        {
            "novelty": _M("novelty", ("novelty",), {
                "popularity": "interactions", "unseen": "zero", "average": "rows",
                "base": 2}, note="-log2(interactions of the item / interactions); "
                "an item without history adds 0 but counts; pooled over rows"),
            "catalog_coverage": _M("catalog_coverage", ("catalog_coverage",), {
                "normalize": "history", "outside": "count"},
                note="distinct recommended items / distinct items of the history "
                "(above 1 when cold items are recommended)"),
            "distributional_coverage": _M(
                "distributional_coverage", ("distributional_coverage",),
                {"base": 2, "per_item": False},
                note="Shannon entropy (log2) of the recommended items' shares"),
            "intra_list_diversity": _M(
                "intra_list_diversity", ("diversity",),
                {"metric": "cosine", "single": "skip", "output": "diversity"},
                note="1 - mean cosine (item_feature_vector) or co-occurrence "
                "(item_cooccurrence_count) similarity over a list's distinct pairs; "
                "a one-item list drops out; pandas < 3 (under pandas 3 the "
                "fillna(inplace=True) of pairs never co-occurring stops filling)"),
            "serendipity": _M(
                "serendipity", ("serendipity",),
                {"formula": "auralist", "metric": "cosine", "relevant_dtype": "float16"},
                note="Auralist: (1 - mean similarity to the user's history) x relevance "
                "(read as float16); users without history drop out"),
        },
        notes=("the recommendation frame is the top k rows of each user",),
    ),
    "rectools": Convention(
        "rectools", "RecTools", "0.19",
        {},
        {
            "novelty": _M("novelty", ("MeanInvUserFreq",), {
                "popularity": "users", "unseen": "one", "average": "queries",
                "base": 2}, note="-log2(users of the item / users of the history); "
                "a cold item counts as one user; mean per user"),
            "popularity": _M("popularity", ("AvgRecPopularity",), {
                "normalize": False, "divide_by": "length"},
                note="interactions of the item, mean over the list, mean over users"),
            "catalog_coverage": _M("catalog_coverage", ("CatalogCoverage",), {
                "normalize": "catalog", "outside": "count"},
                note="distinct recommended items / len(catalog) (normalize=True)"),
            "intra_list_diversity": _M(
                "intra_list_diversity", ("IntraListDiversity",),
                {"metric": "hamming_count", "similarity": "features", "single": "zero",
                 "output": "diversity"},
                note="mean PairwiseHammingDistanceCalculator distance (a count of "
                "differing features) over a list's pairs; a one-item list scores 0"),
            "serendipity": _M(
                "serendipity", ("Serendipity",), {"formula": "lab41"},
                note="Lab41: max((pop rank - position) / n_catalog, 0) x relevant, "
                "mean over the list"),
        },
    ),
    "recbole": Convention(
        "recbole", "RecBole", "1.2.1",
        {},
        {
            "catalog_coverage": _M("catalog_coverage", ("ItemCoverage",), {
                "normalize": "catalog", "outside": "count", "padding_item": True},
                note="distinct recommended items / (catalog + RecBole's padding item)"),
            "distributional_coverage": _M(
                "distributional_coverage", ("ShannonEntropy",),
                {"base": float(np.e), "per_item": True},
                note="entropy (natural log) divided by the number of distinct "
                "recommended items"),
            "popularity": _M("popularity", ("AveragePopularity",), {
                "normalize": False, "divide_by": "k"},
                note="sum of the items' interactions / k"),
            "tail_share": _M("tail_share", ("TailPercentage",), {
                "unseen": "head", "divide_by": "k"},
                note="tail: the int(0.1 * history items) least interacted items "
                "(ties by item id), or at most `tail` interactions when tail > 1; "
                "cold items are never tail items"),
            "gini": _M("gini", ("GiniIndex",), {"weight": "count", "padding_item": True},
                       note="Gini of recommendation counts over the catalog and "
                       "RecBole's padding item"),
        },
        notes=("RecBole rounds its printed results to 4 decimals "
               "(metric_decimal_place); the preset reproduces the unrounded value",),
    ),
    "lenskit": Convention(
        "lenskit", "LensKit", "2025.8",
        {},
        {
            "gini": _M("gini", ("ListGini", "ExposureGini"), {"padding_item": False},
                       note="ListGini: weight='count'; ExposureGini: "
                       "weight='geometric', patience=0.85; float32 sums"),
            "intra_list_diversity": _M(
                "intra_list_diversity", ("ILS",),
                {"metric": "cosine", "similarity": "features", "single": "one",
                 "output": "similarity"},
                note="ILS (LensKit's main branch; no release up to 2025.8.1 has it): "
                "the mean cosine similarity of unit float32 vectors; 1.0 for a "
                "one-item list"),
        },
    ),
}

COMPAT = tuple(RECSYS_PRESETS)


def _check_compat(name, value):
    if value is None or value in RECSYS_PRESETS:
        return value
    raise ValueError(
        f"`{name}` must be None or one of {', '.join(map(repr, COMPAT))}, got {value!r}."
    )


COMPAT_RULE = Rule(_check_compat, ("no-such-library", 1.5, "RecBole"))


def recsys_preset_options(compat, stem):
    """The options of metric ``stem`` under the preset ``compat``; a ValueError
    naming what the library has when it lacks the metric."""
    convention = RECSYS_PRESETS[compat]
    return convention.options_for(stem)


def validate_with_recsys_preset(rules, *, stem):
    """Check a recsys metric's options, then let ``compat=`` fill those not given.

    The recsys counterpart of ``metrics``' ``validate_with_preset``: the
    function declares its stem (``metric_stem``), the preset's options fill
    the options the caller did not give, checked by the same rules.
    """
    def decorate(func):
        @functools.wraps(func)
        def with_preset(*args, **kwargs):
            compat = kwargs.pop("compat", None)
            if compat is not None:
                for name, value in recsys_preset_options(compat, stem).items():
                    if name not in kwargs:
                        kwargs[name] = rules[name].check(name, value)
            return func(*args, **kwargs)

        decorated = validate_params({**rules, "compat": COMPAT_RULE})(with_preset)
        decorated.metric_stem = stem
        return decorated

    return decorate
