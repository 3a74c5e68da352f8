"""Regenerate the peers' diversity numbers recorded in tests/metrics/test_diversity.py.

Run with a Python that has pyndeval 0.0.8 and ir-measures 0.4.3 (a side
environment; neither is a test dependency):

    python tests/_peer_diversity.py

It prints pyndeval's per-topic alpha-nDCG@10, ERR-IA@20, nNRBP and MAP-IA
on the collection ``random_collection(0)`` of ``tests/_ndeval.py`` (no tied
scores), and ir-measures' alpha_nDCG@10 on the same pair.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._ndeval import random_collection  # noqa: E402


def main():
    import ir_measures
    import pyndeval
    from pyndeval import ScoredDoc, SubtopicQrel

    qrels, run = random_collection(0)
    q = [SubtopicQrel(str(t), str(s), d, int(g)) for t, s, d, g in qrels]
    r = [ScoredDoc(str(t), d, s) for t, d, s in run]
    out = pyndeval.ndeval(q, r)
    for topic in sorted(out, key=lambda t: (len(t), t)):
        if topic == "amean":
            continue
        row = out[topic]
        print(topic, *(round(row[m], 6) for m in ("alpha-nDCG@10", "ERR-IA@20", "nNRBP",
                                                  "MAP-IA")))
    measure = ir_measures.alpha_nDCG @ 10
    iq = [ir_measures.Qrel(str(t), d, int(g), str(s)) for t, s, d, g in qrels]
    ir = [ir_measures.ScoredDoc(str(t), d, s) for t, d, s in run]
    print("ir_measures", {k: round(v, 6) for k, v in
                          sorted((m.query_id, m.value) for m in measure.iter_calc(iq, ir))})


if __name__ == "__main__":
    main()
