"""Regenerate the ir_measures numbers of tests/io/test_judged.py.

Run with ir_measures installed (``pip install ir-measures``, 0.4.3 wrote the
numbers in the test):

    PYTHONPATH=tests/io python tests/io/make_judged_reference.py
"""


def main():
    import ir_measures
    from _judged_data import CUTOFFS, judged_case

    qrels, run = judged_case()
    for k in CUTOFFS:
        measure = ir_measures.Judged if k is None else ir_measures.Judged @ k
        per_query = {m.query_id: m.value for m in measure.iter_calc(qrels, run)}
        print(k, {q: round(v, 12) for q, v in sorted(per_query.items())},
              round(ir_measures.calc_aggregate([measure], qrels, run)[measure], 12))


if __name__ == "__main__":
    main()
