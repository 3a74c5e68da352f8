"""ndeval's diversity measures on TREC files: subtopic qrels and a run.

The qrels' second column (trec_eval's unused "iteration") is the subtopic:
``topic subtopic docno judgment``. Each (topic, document) of either file is
one row of 2-D grades (one column per subtopic, in ascending order), the
run's documents retrieved, the others judged but not retrieved; the
measures are :mod:`skrank.diversity`'s. ``compat="ndeval"`` ranks as
``ndeval -traditional`` (score descending, ties by docno descending) and
averages as ndeval: over the topics of both files, or over every qrels
topic with ``complete_qrels=True`` (``-c``).
"""

import re

import numpy as np

from .._core._aggregate import QueryValues
from ..metrics._intent_names import evaluate_intents, match_intent_name
from ._read import _read_bytes

#: ndeval's printed names (lower case) -> skrank's stems
NDEVAL_STEMS = {
    "err-ia": "err_ia", "nerr-ia": "nerr_ia", "alpha-dcg": "alpha_dcg",
    "alpha-ndcg": "alpha_ndcg", "nrbp": "nrbp", "nnrbp": "nnrbp", "map-ia": "map_ia",
    "p-ia": "p_ia", "strec": "s_recall",
}
_NDEVAL_NAME = re.compile(r"^(?P<stem>[a-z-]+?)(?:@(?P<k>[0-9]+))?$")


def diversity_name(name):
    """The skrank name (``"alpha_ndcg@20"``) of an ndeval or skrank
    intent-aware name, or None for another measure."""
    if not isinstance(name, str):
        return None
    match = _NDEVAL_NAME.match(name.strip().lower())
    if match and match["stem"] in NDEVAL_STEMS:
        stem = NDEVAL_STEMS[match["stem"]]
        return stem if match["k"] is None else f"{stem}@{match['k']}"
    return name if match_intent_name(name) is not None else None


def _lines(value, what, width):
    """Whitespace-split lines of a file (gzip too), each of ``width`` fields."""
    text = bytes(_read_bytes(value)).decode("utf-8", errors="surrogateescape")
    rows = [line.split() for line in text.splitlines() if line.strip()]
    bad = [i for i, row in enumerate(rows, 1) if len(row) != width]
    if bad:
        raise ValueError(f"{value}: line {bad[0]} of the {what} file does not have "
                         f"{width} fields.")
    return rows


def _qrels_rows(qrels):
    """(topic, subtopic, docno, judgment) tuples of subtopic qrels."""
    if hasattr(qrels, "columns"):
        columns = {c.lower(): c for c in qrels.columns}
        sub = columns.get("subtopic", columns.get("iteration"))
        names = [columns.get(n) for n in ("query_id", "doc_id", "relevance")]
        if sub is None or None in names:
            raise ValueError("`qrels` as a DataFrame needs the columns query_id, "
                             "subtopic (or iteration), doc_id and relevance.")
        return list(zip(qrels[names[0]].astype(str), qrels[sub].astype(int),
                        qrels[names[1]].astype(str), qrels[names[2]].astype(float)))
    return [(t, int(s), d, float(g)) for t, s, d, g in _lines(qrels, "qrels", 4)]


def _run_rows(run):
    """(topic, docno, score) tuples of a run."""
    if isinstance(run, dict):
        return [(str(t), str(d), float(s)) for t, docs in run.items()
                for d, s in docs.items()]
    if hasattr(run, "columns"):
        columns = {c.lower(): c for c in run.columns}
        names = [columns.get(n) for n in ("query_id", "doc_id", "score")]
        return list(zip(run[names[0]].astype(str), run[names[1]].astype(str),
                        run[names[2]].astype(float)))
    return [(t, d, float(s)) for t, _, d, _, s, _ in _lines(run, "run", 6)]


def _topic_key(topic):
    """ndeval's topic number (a prefix up to "-" dropped), else the string."""
    text = topic.rsplit("-", 1)[-1] if not topic[:1].isdigit() else topic
    return (0, int(text), "") if text.isdigit() else (1, 0, topic)


def evaluate_diversity_run(qrels, run, metrics, *, compat, complete_qrels, max_docs,
                           ties, no_relevant, alpha, beta, relevance_level):
    """``(query_ids, {name: QueryValues}, {name: mean})`` of intent-aware names."""
    names = {name: diversity_name(name) for name in metrics}
    judged = _qrels_rows(qrels)
    retrieved = _run_rows(run)
    subtopics = sorted({s for _, s, _, _ in judged})
    column = {s: j for j, s in enumerate(subtopics)}
    topic_of = {}
    for t in [r[0] for r in judged] + [r[0] for r in retrieved]:
        topic_of.setdefault(t, _topic_key(t))
    qrels_topics = {topic_of[t] for t, _, _, _ in judged}
    run_topics = {topic_of[t] for t, _, _ in retrieved}
    both = qrels_topics & run_topics
    keep = qrels_topics if complete_qrels else both
    # the run's documents of each kept topic, ranked: score descending, then
    # (ndeval -traditional) docno descending by bytes
    ranked = sorted(((topic_of[t], -s, _descending(d), d) for t, d, s in retrieved
                     if topic_of[t] in keep), key=lambda r: r[:3])
    position, count = {}, {}
    for topic, neg_score, _, doc in ranked:
        if (topic, doc) in position:
            raise ValueError(f"The run holds document {doc!r} twice for a topic.")
        count[topic] = count.get(topic, 0) + 1
        if max_docs is not None and count[topic] > max_docs:
            continue
        position[(topic, doc)] = (len(position), -neg_score)
    grades = {}
    for t, s, d, g in judged:
        topic = topic_of[t]
        if topic in keep:
            grades.setdefault((topic, d), np.zeros(len(subtopics)))[column[s]] = g
    keys = sorted(set(grades) | set(position))
    n = len(keys)
    y_true = np.array([grades.get(key, np.zeros(len(subtopics))) for key in keys])
    y_true = y_true.reshape(n, len(subtopics))
    if compat == "ndeval":  # ndeval's order as the scores: no ties left
        y_score = np.array([n - position[key][0] if key in position else 0.0
                            for key in keys])
        ties = "input"
    else:  # the run's scores as their dense ranks (order and ties kept,
        # all positive); unretrieved rows score 0
        found = np.array([key in position for key in keys], dtype=bool)
        score = np.array([position[key][1] for key in keys if key in position])
        y_score = np.zeros(n)
        if score.shape[0]:
            y_score[found] = np.unique(score, return_inverse=True)[1].reshape(-1) + 1.0
    topics = sorted(keep)
    index = {topic: i for i, topic in enumerate(topics)}
    query_codes = np.array([index[key[0]] for key in keys], dtype=np.int64)
    doc = np.array([key[1].encode("utf-8", "surrogateescape") for key in keys])
    labels = np.array([_label(t) for t in topics], dtype=object)
    values = {}
    if n:
        values = evaluate_intents(
            y_true, y_score, list(dict.fromkeys(names.values())), query_id=query_codes,
            ties=ties, retrieved="positive", no_relevant=no_relevant, aggregate=None,
            alpha=alpha, beta=beta, relevance_level=relevance_level, doc_id=doc,
        )
    per_query, means = {}, {}
    for name, skrank_name in names.items():
        full = np.zeros(len(topics))  # a qrels topic the run lacks scores 0 (-c)
        if n:
            got = values[skrank_name]
            full[got.query_id.astype(np.int64)] = got.value
        per_query[name] = QueryValues(labels, full, np.ones(len(topics)))
        kept = full[~np.isnan(full)]
        means[name] = float(kept.sum() / kept.shape[0]) if kept.shape[0] else float("nan")
    return labels, per_query, means


def _descending(doc):
    """A key sorting documents by bytes, descending."""
    return tuple(-b for b in doc.encode("utf-8", "surrogateescape")) + (1,)


def _label(topic_key):
    kind, number, text = topic_key
    return str(number) if kind == 0 else text
