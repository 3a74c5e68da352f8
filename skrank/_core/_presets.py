"""Convention presets: what each peer computes, as skrank options, in one table.

A preset is data. :data:`PRESETS` maps a preset name (``compat=``) to a
:class:`Convention`: the options every metric takes under it, and for each
metric the peer has, its names in the peer and the options of that metric
alone. The metric functions (``metrics/_presets_apply.py``), ``evaluate``,
the scorers, the command line, :func:`describe_convention` and the docs'
compatibility page (``docs/_ext/presets_page.py``) all read this table; a
peer is added here and nowhere else.

What a preset does to ONE metric call is :func:`preset_request`: the
metric functions' preset step, the resolution of a name under a preset,
:func:`evaluate` and the scorers all call it, and none merges a preset's
options itself. Options given explicitly always win over the preset's.
"""

import re
from dataclasses import dataclass, field

import numpy as np

from ._peer_rules import RULE_TEXT, PeerRules, peer_rules


@dataclass(frozen=True)
class MetricConvention:
    """One metric of a peer: skrank's stem, the peer's names, its own options.

    ``names`` are the peer's spellings, ``{k}`` standing for a cutoff
    (``"ndcg@{k}"``); ``options`` override the preset's for this metric;
    ``k`` is the cutoff the peer uses when its bare name is given (XGBoost's
    ``"ndcg"`` is ``"ndcg@32"``). What options cannot say (see
    ``_peer_rules.py``): ``relevant_above``, a label above which a row is
    relevant (the others are not: CatBoost's ``border``); ``weighted=False``
    when the peer ignores ``sample_weight`` for this metric; ``rules``, the
    conditions the peer raises on (keys of ``_peer_rules.RULES``), which
    skrank raises on too.
    """

    stem: str
    names: tuple
    options: dict = field(default_factory=dict)
    k: object = None
    note: str = ""
    relevant_above: object = None
    weighted: bool = True
    rules: tuple = ()


@dataclass(frozen=True)
class Convention:
    """A peer's conventions as skrank options (see :func:`describe_convention`)."""

    name: str
    peer: str
    version: str
    options: dict
    metrics: dict  # stem -> MetricConvention
    notes: tuple = ()
    # peer names that map to a stem with options: name -> (stem, options)
    aliases: dict = field(default_factory=dict)
    # "integer": the peer casts every label to an integer first (ranx's qrels)
    labels: object = None

    def options_for(self, stem):
        """The preset's options for the metric ``stem``; a ValueError if the peer lacks it."""
        metric = self.metrics.get(stem)
        if metric is None:
            raise ValueError(
                f"{self.peer} has no metric {stem!r}, so compat={self.name!r} "
                f"cannot compute it. {self.peer} has: {self.has()}."
            )
        return {**self.options, **metric.options}

    def has(self):
        """The metrics the peer has, as 'skrank stem (peer names)'."""
        return "; ".join(
            f"{stem} ({', '.join(spec.names)})" for stem, spec in self.metrics.items()
        )

    def __repr__(self):
        return describe(self)


#: options every ranking metric reads before the layout (score conventions)
SCORE_OPTIONS = ("score_dtype", "retrieved")

_M = MetricConvention

PRESETS = {
    "lightgbm": Convention(
        "lightgbm", "LightGBM", "4.7",
        {"ties": "input", "gain": "exponential", "no_relevant": "one"},
        {
            "ndcg": _M("ndcg", ("ndcg@{k}",),
                       rules=("integer_grades", "exp_grades_up_to_30")),
            "map": _M("map", ("map@{k}",), {"normalize": "min"},
                      note="denominator min(R, k, n)", relevant_above=0.5),
        },
        notes=(
            "gain 2^label - 1 (label_gain's default; integer labels 0..30)",
            "ties keep the input order (a stable sort)",
            "a query with no relevant row scores 1",
            "the mean over queries is weighted by each query's mean row weight "
            "(sample_weight), as skrank's; but with weights LightGBM adds a query "
            "without a relevant row as 1 unweighted while its weight counts in "
            "the denominator, which skrank does not copy (the two agree without "
            "weights, or when every query has a relevant row)",
            "map@k: relevant means label > 0.5, which the preset applies",
            "ndcg: integer labels, at most 30 with the default label_gain "
            "(LightGBM raises otherwise, and so does the preset)",
        ),
    ),
    "xgboost": Convention(
        "xgboost", "XGBoost", "3.2",
        {"ties": "input", "score_dtype": "float32", "gain": "exponential",
         "no_relevant": "one"},
        {
            "ndcg": _M("ndcg", ("ndcg", "ndcg@{k}", "ndcg-", "ndcg@{k}-"), k=32,
                       rules=("exp_integer_grades", "exp_grades_up_to_31")),
            "map": _M("map", ("map", "map@{k}", "map-", "map@{k}-"),
                      {"normalize": "min"}, k=32, note="min(R, k, n)",
                      rules=("binary",)),
            "precision": _M("precision", ("pre", "pre@{k}"),
                            {"normalize": "min", "no_relevant": "zero"}, k=32,
                            note="divides by min(k, n)", rules=("binary",)),
        },
        notes=(
            "scores are cast to float32: scores equal in float32 tie",
            "ties keep the input order",
            "exponential gain unless ndcg_exp_gain=False (gain='linear')",
            "no relevant row scores 1, or 0 with the '-' suffix "
            "(no_relevant='zero')",
            "the bare names ndcg, map and pre mean @32",
            "map and pre take binary labels only, ndcg integer grades up to 31 "
            "with the exponential gain: XGBoost raises otherwise, and so does "
            "the preset",
        ),
    ),
    "catboost": Convention(
        "catboost", "CatBoost", "1.2.10",
        {"ties": "pessimistic", "gain": "linear"},
        {
            "ndcg": _M("ndcg", ("NDCG", "NDCG:top={k}"), {"no_relevant": "one"}),
            "dcg": _M("dcg", ("DCG", "DCG:top={k}"), {"no_relevant": "zero"}),
            "map": _M("map", ("MAP", "MAP:top={k}"),
                      {"normalize": "min", "no_relevant": "zero"},
                      relevant_above=0.5, weighted=False),
            "precision": _M("precision", ("PrecisionAt", "PrecisionAt:top={k}"),
                            {"normalize": "min", "no_relevant": "zero"},
                            relevant_above=0.5, weighted=False),
            "recall": _M("recall", ("RecallAt", "RecallAt:top={k}"),
                         {"no_relevant": "one"}, relevant_above=0.5, weighted=False),
            "mrr": _M("mrr", ("MRR", "MRR:top={k}"), {"no_relevant": "zero"},
                      relevant_above=0.5),
            "err": _M("err", ("ERR", "ERR:top={k}"), {"no_relevant": "zero"}),
            "pfound": _M("pfound", ("PFound", "PFound:top={k}"),
                         {"no_relevant": "zero"}),
            "gauc": _M("gauc", ("QueryAUC",),
                       {"ties": "average", "one_class": "zero",
                        "weighting": "uniform"},
                       note="half credit for ties"),
        },
        notes=(
            "pessimistic ties: among equal scores the lower label ranks first",
            "linear gain by default (type=Exp: gain='exponential'); discount "
            "LogPosition, or Position (discount='position')",
            "NDCG of a query with no relevant row is 1; MAP's and MRR's 0; "
            "RecallAt's 1",
            "MAP divides by min(R, k, n); PrecisionAt by min(k, n)",
            "MAP, PrecisionAt, RecallAt and MRR count a row as relevant when "
            "its label is above 0.5 (their border parameter), as the preset "
            "does",
            "sample_weight stands for CatBoost's group weights (one weight per "
            "query): NDCG, DCG, MRR, ERR and PFound weigh queries by them; "
            "MAP, PrecisionAt, RecallAt and QueryAUC ignore them, and so does "
            "the preset; CatBoost's object weights (weight=) change no ranking "
            "metric",
            "QueryAUC gives half credit for ties, scores one-class queries 0 "
            "and keeps them in an unweighted mean; it also takes soft labels "
            "in [0, 1], which skrank refuses (0/1 only)",
            "ERR and PFound read targets in [0, 1] as probabilities, as "
            "skrank's max_grade=None; CatBoost reads larger grades as they are "
            "(values above 1), where skrank maps them to (2^g - 1) / 2^g_max",
        ),
        aliases={"NDCG:type=Exp": ("ndcg", {"gain": "exponential"}),
                 "DCG:type=Exp": ("dcg", {"gain": "exponential"})},
    ),
    "sklearn": Convention(
        "sklearn", "scikit-learn", "1.9.1",
        {"ties": "average", "gain": "linear", "no_relevant": "zero"},
        {
            "ndcg": _M("ndcg", ("ndcg_score",), rules=("two_rows",)),
            "dcg": _M("dcg", ("dcg_score",), rules=("two_rows",)),
            "map": _M("map", ("average_precision_score",),
                      {"tie_blocks": "threshold"},
                      note="a tie block counts once: the precision at its end "
                           "times the recall it adds", rules=("binary",)),
            "coverage_error": _M("coverage_error", ("coverage_error",),
                                 rules=("two_rows",)),
            "label_ranking_loss": _M("label_ranking_loss", ("label_ranking_loss",),
                                     rules=("two_rows",)),
            "label_ranking_average_precision": _M(
                "label_ranking_average_precision",
                ("label_ranking_average_precision_score",)),
        },
        notes=(
            "computed per query (one 2-D row, or one call per query) and "
            "averaged",
            "linear gain, ties averaged (the expected value over their orders)",
            "a query with no relevant row scores 0 and is counted",
            "a query of one row is a ValueError for ndcg_score, dcg_score, "
            "coverage_error and label_ranking_loss, graded labels for "
            "average_precision_score, as in scikit-learn",
        ),
    ),
    "ranx": Convention(
        "ranx", "ranx", "0.3.21",
        {"ties": "input", "gain": "linear", "no_relevant": "zero"},
        {
            "ndcg": _M("ndcg", ("ndcg", "ndcg@{k}")),
            "map": _M("map", ("map", "map@{k}"), {"normalize": "relevant"}),
            "precision": _M("precision", ("precision", "precision@{k}")),
            "recall": _M("recall", ("recall", "recall@{k}")),
            "mrr": _M("mrr", ("mrr", "mrr@{k}")),
            "hit_rate": _M("hit_rate", ("hit_rate", "hit_rate@{k}")),
            "hits": _M("hits", ("hits", "hits@{k}")),
            "r_precision": _M("r_precision", ("r-precision",)),
            "f1": _M("f1", ("f1", "f1@{k}")),
            "dcg": _M("dcg", ("dcg", "dcg@{k}")),
            "bpref": _M("bpref", ("bpref",), rules=("judged_non_relevant",)),
            "rbp": _M("rbp", ("rbp.{p}",), {"gain": "linear"},
                      note="rbp.95 is p=0.95 (rbp@8: p=0.8); the gain is the "
                           "grade, over the whole list"),
        },
        notes=(
            "relevant means qrel >= 1 after an integer cast: the preset casts "
            "y_true to integers (0.5 is 0, 1.7 is 1) for every metric",
            "ndcg is linear, ndcg_burges exponential; the ideal is cut at "
            "min(k, R)",
            "MAP divides by R; a query with no relevant row scores 0",
            "ranx's order of tied scores depends on how it is called, so it "
            "is undefined; skrank keeps the input order (ties='input'): pass "
            "rows in the order ranx ranks them, or scores without ties",
            "bpref of a query with relevant rows and no judged non-relevant "
            "row is nan in ranx (so is the mean): a ValueError under the preset",
        ),
        aliases={"ndcg_burges": ("ndcg", {"gain": "exponential"}),
                 "dcg_burges": ("dcg", {"gain": "exponential"})},
        labels="integer",
    ),
    "torchmetrics": Convention(
        "torchmetrics", "torchmetrics", "1.9",
        {"ties": "average", "score_dtype": "float32", "gain": "linear",
         "no_relevant": "zero"},
        {
            "ndcg": _M("ndcg", ("retrieval_normalized_dcg",)),
            "map": _M("map", ("retrieval_average_precision",),
                      {"normalize": "retrieved", "retrieved": "positive"},
                      rules=("unit_interval",)),
            "mrr": _M("mrr", ("retrieval_reciprocal_rank",), {"retrieved": "positive"},
                      rules=("unit_interval",)),
            "precision": _M("precision", ("retrieval_precision",),
                            {"retrieved": "positive"},
                            note="divides by k; adaptive_k=True or top_k=None: "
                                 "normalize='min'", rules=("unit_interval",)),
            "recall": _M("recall", ("retrieval_recall",), {"retrieved": "positive"},
                         rules=("unit_interval",)),
            "hit_rate": _M("hit_rate", ("retrieval_hit_rate",),
                           rules=("unit_interval",)),
            "r_precision": _M("r_precision", ("retrieval_r_precision",),
                              rules=("unit_interval",)),
        },
        notes=(
            "scores are cast to float32; nDCG averages ties",
            "for AP, MRR, precision and recall a row scored <= 0 counts as not "
            "relevant (retrieved='positive')",
            "AP divides by the relevant rows retrieved in the top k",
            "empty_target_action='neg' (a query with no relevant row scores 0; "
            "'pos': no_relevant='one', 'skip': no_relevant='skip')",
            "torch's order of tied scores (topk, argsort) is undefined outside "
            "nDCG; skrank averages ties there too (the expected value)",
            "every metric but nDCG takes labels in [0, 1] (torchmetrics raises "
            "on larger ones, and so does the preset)",
        ),
    ),
    "trec_eval": Convention(
        "trec_eval", "trec_eval", "10.0",
        {"ties": "input", "gain": "linear", "no_relevant": "zero"},
        {
            "ndcg": _M("ndcg", ("ndcg", "ndcg_cut_{k}")),
            "map": _M("map", ("map", "map_cut_{k}"), {"normalize": "relevant"}),
            "precision": _M("precision", ("P_{k}",)),
            "recall": _M("recall", ("recall_{k}",)),
            "mrr": _M("mrr", ("recip_rank",)),
            "r_precision": _M("r_precision", ("Rprec",)),
            "hit_rate": _M("hit_rate", ("success_{k}",)),
            "hits": _M("hits", ("num_rel_ret",)),
            "bpref": _M("bpref", ("bpref",)),
            "rbp": _M("rbp", ("rbp",), {"p": 0.9, "gain": "scaled"},
                      note="rbp_p=0.95 (-m rbp.p=0.95) is p=0.95; the gain is the "
                           "grade over the query's top grade when that is above 1"),
        },
        notes=(
            "ties go by score, then docno descending: in memory there is no "
            "docno, so skrank keeps the input order (ties='input'); pass rows "
            "sorted by docno descending, or use evaluate_run on the files",
            "skrank's names are trec_eval's measures here: ndcg@10 is "
            "ndcg_cut_10, precision@5 is P_5, mrr is recip_rank (one number "
            "under either name)",
            "linear gain; the ideal uses every judged relevant document",
            "P@k divides by k; map_cut divides by R",
            "a query with no relevant row scores 0 and is counted",
            "trec_eval 9.x (inside pytrec_eval) stores scores as float32: add "
            "score_dtype='float32'",
            "trec_eval reads relevance as an integer (0.5 is 0, 1.7 is 1): the "
            "preset casts y_true to integers for every metric",
        ),
        labels="integer",
    ),
    "spark": Convention(
        "spark", "Spark MLlib RankingMetrics", "4.3",
        {"ties": "input", "gain": "exponential", "no_relevant": "zero"},
        {
            "ndcg": _M("ndcg", ("ndcgAt({k})",)),
            "map": _M("map", ("meanAveragePrecision", "meanAveragePrecisionAt({k})"),
                      {"normalize": "min"},
                      note="meanAveragePrecisionAt(k) divides by min(R, k), "
                           "meanAveragePrecision by R"),
            "precision": _M("precision", ("precisionAt({k})",)),
            "recall": _M("recall", ("recallAt({k})",)),
        },
        notes=(
            "takes ranked id lists: the list order is the order (rows in "
            "ranked order, ties='input')",
            "ndcgAt is binary unless relevance values are given; on 0/1 labels "
            "every gain agrees",
            "the ideal counts relevant items that were not retrieved (give "
            "them score -inf); with graded relevance Spark walks the ground "
            "truth in the order given, which skrank does not reproduce (it "
            "sorts by grade)",
            "an empty ground truth scores 0 and is counted",
            "checked against pyspark's RankingMetrics on binary relevance "
            "(ranked id lists without ties)",
        ),
    ),
}

COMPAT = tuple(PRESETS)


def get_convention(compat):
    """The :class:`Convention` of a preset name (checked), or None for None."""
    if compat is None or isinstance(compat, Convention):
        return compat
    if not isinstance(compat, str) or compat not in PRESETS:
        raise ValueError(
            f"`compat` must be None or one of {', '.join(map(repr, COMPAT))}, "
            f"got {compat!r}."
        )
    return PRESETS[compat]


@dataclass(frozen=True)
class PresetRequest:
    """One metric call under a preset, ready to compute (see :func:`preset_request`).

    Attributes
    ----------
    convention : Convention
        The preset.
    stem : str
        The metric (a registry stem).
    k : int or None
        The cutoff: the caller's, else the one the peer gives the metric's
        bare name (XGBoost's ``ndcg`` is ``ndcg@32``), else None.
    options : dict
        The metric's options under the preset: the preset's, the metric's
        own there, those the peer's name fixes (``"ndcg@10-"``), then the
        caller's, which win. ``k`` is not among them.
    peer : PeerRules or None
        How the peer reads ``y_true`` and ``sample_weight`` for this metric
        (None: as skrank does).
    peer_name : str or None
        The peer's own name of the metric at cutoff ``k``, or None.
    """

    convention: Convention
    stem: str
    k: object
    options: dict
    peer: PeerRules | None
    peer_name: str | None


def preset_request(compat, stem, given=None, *, extra=None, takes=None):
    """The :class:`PresetRequest` of metric ``stem`` called under ``compat``.

    ``given`` holds what the caller gave explicitly (options, and ``k`` if
    given, None included); they win over the preset's. ``extra`` are options
    the peer's own name of the metric fixes. ``takes``: the options the
    metric accepts (None: all); the preset's others are left out, the
    caller's are kept (the metric's own checks judge them). A metric the
    peer lacks is a ValueError naming what it has.

    Examples
    --------
    >>> request = preset_request("xgboost", "precision", {"no_relevant": "skip"})
    >>> request.k, request.options["normalize"], request.options["no_relevant"]
    (32, 'min', 'skip')
    """
    convention = get_convention(compat)
    preset = convention.options_for(stem)  # raises for a metric the peer lacks
    given = dict(given or {})
    k = given.pop("k") if "k" in given else convention.metrics[stem].k
    options = {
        name: value for name, value in {**preset, **(extra or {})}.items()
        if takes is None or name in takes
    }
    options.update(given)
    return PresetRequest(convention, stem, k, options, peer_rules(convention, stem),
                         peer_name_for(convention, stem, k))


def peer_name_for(convention, stem, k):
    """The peer's own name for ``stem`` at cutoff ``k``, or None if it has none.

    A name with ``{k}`` serves a cutoff, a name without one the whole list
    (or the peer's own default cutoff, which must then equal ``k``).
    """
    metric = convention.metrics.get(stem)
    if metric is None:
        return None
    for template in metric.names:
        if "{k}" in template and k is not None:
            return template.replace("{k}", str(k))
        if "{k}" not in template and k == metric.k:
            return template
    return None


def check_compat(name, value):
    """The check of the ``compat`` option: a preset name or None."""
    if value is None:
        return None
    if isinstance(value, Convention) or hasattr(value, "explicit"):
        return value
    if not isinstance(value, str) or value not in PRESETS:
        raise ValueError(
            f"`{name}` must be None or one of {', '.join(map(repr, COMPAT))}, "
            f"got {value!r}."
        )
    return value


def _name_pattern(name):
    """A regular expression for a peer name, ``{k}`` matching a cutoff."""
    text = re.escape(name).replace(re.escape("{k}"), "(?P<k>[0-9]+)")
    return re.compile(f"^{text}$")


def parse_peer_name(convention, name):
    """``(stem, k, options)`` for one of the peer's own metric names, or None.

    XGBoost's ``"ndcg@10-"`` is ``("ndcg", 10, {"no_relevant": "zero"})``;
    CatBoost's ``"NDCG:top=5;type=Exp"`` is
    ``("ndcg", 5, {"gain": "exponential"})``; a bare name takes the peer's
    own cutoff (XGBoost's ``"ndcg"`` is ``"ndcg@32"``).
    """
    if not isinstance(name, str):
        return None
    text = name.strip()
    extra = {}
    if convention.name == "xgboost" and text.endswith("-"):
        text, extra = text[:-1], {"no_relevant": "zero"}
    if convention.name == "catboost" and ";" in text or (
        convention.name == "catboost" and ":" in text and "top=" not in text
    ):
        head, _, params = text.partition(":")
        kept = []
        for part in params.split(";"):
            key, _, value = part.partition("=")
            if key == "type":
                extra["gain"] = {"Exp": "exponential", "Base": "linear"}.get(value, "?")
            elif key == "denominator":
                extra["discount"] = {"Position": "position",
                                     "LogPosition": "log2"}.get(value, "?")
            elif key == "decay":
                try:
                    extra["decay"] = float(value)
                except ValueError:
                    return None
            elif key == "hints" or not part:
                continue
            else:
                kept.append(part)
        if "?" in extra.values():
            return None
        text = head + (":" + ";".join(kept) if kept else "")
    if convention.name == "trec_eval":  # rbp_p=0.95 as printed, rbp.p=0.95 as -m
        found = re.match(r"^rbp[._]p=([0-9.eE+-]+)$", text)
        if found:
            try:
                return "rbp", None, {"p": float(found.group(1))}
            except ValueError:
                return None
    if convention.name == "ranx":  # rbp.95 and rbp@95: persistence 0.95
        found = re.match(r"^rbp[.@]([0-9]+)$", text)
        if found:
            return "rbp", None, {"p": float("0." + found.group(1))}
    for alias, (stem, options) in convention.aliases.items():
        if text == alias:
            return stem, convention.metrics[stem].k, {**options, **extra}
        pattern = _name_pattern(alias + "@{k}")
        found = pattern.match(text)
        if found:
            return stem, int(found.group("k")), {**options, **extra}
    for stem, metric in convention.metrics.items():
        for peer_name in metric.names:
            found = _name_pattern(peer_name).match(text)
            if found:
                k = found.groupdict().get("k")
                return stem, metric.k if k is None else int(k), extra
    return None


def input_rules(metric):
    """What a metric reads and refuses beyond its options, as short phrases."""
    phrases = []
    if metric.relevant_above is not None:
        phrases.append(f"relevant: label > {metric.relevant_above:g}")
    if not metric.weighted:
        phrases.append("ignores sample_weight")
    if metric.rules:
        phrases.append("ValueError on " + ", ".join(RULE_TEXT[r] for r in metric.rules))
    return phrases


def describe(convention):
    """A readable text of one preset (what :func:`describe_convention` prints)."""
    lines = [f"compat={convention.name!r}: {convention.peer} {convention.version}"]
    options = ", ".join(f"{key}={value!r}" for key, value in convention.options.items())
    lines.append(f"  options: {options}")
    lines.append("  metrics:")
    for stem, metric in convention.metrics.items():
        extra = ", ".join(f"{key}={value!r}" for key, value in metric.options.items())
        cutoff = f"; bare name is @{metric.k}" if metric.k is not None else ""
        text = f"    {stem:<16} {', '.join(metric.names)}"
        if extra:
            text += f"  [{extra}]"
        notes = "; ".join(([metric.note] if metric.note else []) + input_rules(metric))
        lines.append(text + cutoff + (f"  ({notes})" if notes else ""))
    for alias, (stem, options) in convention.aliases.items():
        extra = ", ".join(f"{key}={value!r}" for key, value in options.items())
        lines.append(f"    {stem:<16} {alias}  [{extra}]")
    lines.append("  notes:")
    lines.extend(f"    - {note}" for note in convention.notes)
    return "\n".join(lines)


def convert_scores(y_score, score_dtype=None, retrieved="all"):
    """``y_score`` under the score conventions, or unchanged under the defaults.

    ``score_dtype="float32"`` rounds the scores to float32 (so scores equal
    in float32 tie, as in XGBoost and torchmetrics); ``retrieved="positive"``
    scores the rows of score <= 0 ``-inf``: judged but not retrieved, never
    a hit, still counted in R (torchmetrics' AP, MRR, precision and recall).
    """
    if score_dtype is None and retrieved == "all":
        return y_score
    from ._validation import check_score

    score = check_score("y_score", y_score)
    with np.errstate(over="ignore"):
        score = np.asarray(score, dtype=np.float64)
        if score_dtype == "float32":
            score = score.astype(np.float32).astype(np.float64)
    if retrieved == "positive":
        score = np.where(score > 0, score, -np.inf)
    return score
