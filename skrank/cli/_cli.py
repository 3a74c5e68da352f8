"""The ``skrank`` command: ``skrank evaluate QRELS RUN [RUN ...] -m METRIC ...``.

``skrank explain QRELS RUN -m METRIC --a PRESET --b PRESET`` prints why a
metric differs between two conventions (:func:`skrank.explain_difference`).

Also ``python -m skrank``. Bad input prints one line, ``skrank: error: ...``,
on stderr and exits with status 2. Only what a command needs is imported:
scikit-learn loads only to compare several runs.
"""

import argparse
import json
import math
import os
import sys

EXAMPLES = """\
examples:
  skrank evaluate qrels.txt run.txt -m map -m P.5,10 -m ndcg_cut_10
  skrank evaluate qrels.txt run.txt -m map -q --format trec --compat trec_eval
  skrank evaluate qrels.txt bm25.run dense.run -m map -m ndcg@10
  skrank evaluate qrels.txt.gz run.txt.gz -m recall_1000 -c -l 2 --format json
  skrank evaluate subtopic-qrels.txt run.txt -m alpha-nDCG@20 -m NRBP --compat ndeval

Measures: trec_eval's names as it prints them (num_ret num_rel num_rel_ret
map P_10 recall_10 ndcg ndcg_cut_10 map_cut_10 Rprec bpref recip_rank
success_10 iprec_at_recall_0.10 rbp set_F utility infAP ...), its -m forms
(P.5,10, or P for every default cutoff; rbp.p=0.95; utility.1,-1,0,0;
relstring.5, with -q --format trec), its
nicknames (-m all_trec, -m official, -m set; printed in trec_eval's order
with --format trec) and skrank's metric names (ndcg@10, mrr, fap, ...);
judged@10: the share of the top 10 that the qrels judge (ir_measures' Judged@10).
Diversity: with subtopic qrels (topic subtopic docno judgment), ndeval's
names (alpha-nDCG@20 alpha-DCG@20 ERR-IA@20 nERR-IA@20 NRBP nNRBP MAP-IA
P-IA@10 strec@10, any cutoff) asked alone; --compat ndeval ranks and
averages as ndeval -traditional (-c: every qrels topic; --alpha, --beta).
Several runs give one comparison table with paired tests (randomisation and
t-test, Holm-corrected over the pairs), as skrank.compare does.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser():
    parser = _Parser(
        prog="skrank",
        description="Evaluate TREC runs against qrels (trec_eval's numbers, faster).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    ev = sub.add_parser(
        "evaluate", help="evaluate one or more runs", description=(
            "Evaluate TREC runs against qrels: the mean of each measure, per "
            "query with -q, a comparison table for several runs."),
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", metavar="QRELS", help="qrels file (gzip too)")
    ev.add_argument("runs", metavar="RUN", nargs="+", help="run file(s) (gzip too)")
    ev.add_argument("-m", "--measure", action="append", dest="measures",
                    metavar="METRIC", help="measure to compute (repeatable); "
                    "default: map ndcg P_10 recall_100")
    ev.add_argument("-q", "--per-query", action="store_true",
                    help="print each query's value as well as the mean")
    ev.add_argument("--format", choices=("table", "trec", "json", "csv"),
                    default="table", help="output format (default: table)")
    ev.add_argument("--alpha", type=float, default=0.5, metavar="A",
                    help="redundancy penalty of the intent-aware measures (ndeval -alpha)")
    ev.add_argument("--beta", type=float, default=0.5, metavar="B",
                    help="NRBP's patience (ndeval -beta)")
    ev.add_argument("--compat", choices=_PRESETS + ("ndeval",), default=None,
                    help="trec_eval: reproduce trec_eval 10.0 (ties by document id, "
                    "descending); another peer: score the run's lines as it does")
    ev.add_argument("-l", "--relevance-level", type=float, default=1, metavar="LEVEL",
                    help="judgments >= LEVEL are relevant (trec_eval -l; default 1)")
    ev.add_argument("-c", "--complete-qrels", action="store_true",
                    help="evaluate every qrels query; one missing from a run scores 0")
    ev.add_argument("-J", "--judged-docs-only", action="store_true",
                    help="drop unjudged retrieved documents (trec_eval -J)")
    ev.add_argument("-M", "--max-docs", type=int, default=None, metavar="N",
                    help="use at most N documents per query (trec_eval -M)")
    ev.add_argument("-R", dest="rel_format", default="qrels", metavar="FORMAT",
                    help="qrels format (trec_eval -R): qrels only; trec_eval's "
                    "qrels_prefs and qrels_jg are not read")
    ev.add_argument("--stream", action="store_true",
                    help="read each run in pieces of whole queries, holding one piece "
                    "in memory (for runs whose lines are grouped by query; other runs "
                    "are read whole, with the same numbers)")
    ev.add_argument("--seed", type=int, default=0,
                    help="random seed of the paired tests (several runs)")
    ex = sub.add_parser(
        "explain", help="why a metric differs between two conventions",
        description="Score a run's lines (labelled by the qrels) under two "
        "conventions and show the path between them, one option at a time. "
        "A trec_eval side is trec_eval's number on the files (ties by document "
        "id, unretrieved relevant documents in R), as evaluate --compat trec_eval.",
    )
    ex.add_argument("qrels", metavar="QRELS", help="qrels file (gzip too)")
    ex.add_argument("run", metavar="RUN", help="run file (gzip too)")
    ex.add_argument("-m", "--measure", default="ndcg@10", metavar="METRIC",
                    help="metric name, skrank's or any preset's own (ndcg_cut_10, "
                    "NDCG:top=10, ndcg@10-; default: ndcg@10)")
    ex.add_argument("--a", dest="a", choices=_PRESETS, default="trec_eval",
                    help="first convention (default: trec_eval)")
    ex.add_argument("--b", dest="b", choices=_PRESETS, default="lightgbm",
                    help="second convention (default: lightgbm)")
    ex.add_argument("-l", "--relevance-level", type=float, default=1, metavar="LEVEL",
                    help="judgments >= LEVEL are relevant (default 1)")
    return parser


# the presets of skrank.describe_convention (kept here: the parser imports no numpy)
_PRESETS = ("lightgbm", "xgboost", "catboost", "sklearn", "ranx", "torchmetrics",
            "trec_eval", "spark")


def _explain(args):
    from ..io._explain import explain_run

    print(repr(explain_run(args.qrels, args.run, metric=args.measure, a=args.a,
                           b=args.b, relevance_level=args.relevance_level)))
    return 0


#: trec_eval's counts, printed as integers (kept here: the parser imports no numpy)
_COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")


def _number(name, value):
    if name in _COUNTS:
        return str(int(round(value)))
    return "nan" if math.isnan(value) else f"{value:.4f}"


#: trec_eval's measure about the whole run, printed on its "all" lines only
RUN_LINES = ("runid",)


def _trec_number(name, value):
    """A value as trec_eval prints it: its 0 / 0 comes out as C's ``  -nan``."""
    return "  -nan" if math.isnan(value) else _number(name, value)


def _trec_lines(result, per_query, show_run, run_lines=(), hidden=()):
    """trec_eval's layout: each query's lines (-q), then the "all" lines.

    Measures come in trec_eval's order (its measure table's, whatever the
    order of -m), skrank's names after them; ``run_lines`` holds a
    requested ``runid``, printed first among the "all" lines, as trec_eval
    does; several runs start each block with its ``runid``. trec_eval's
    summary-only measures (num_q, gm_map, gm_bpref) have no query lines;
    its per-query strings (relstring) have no "all" line, and are quoted.
    """
    from ..io._trec_measures import SUMMARY_ONLY, print_rank

    text = result.per_query_text
    names = sorted((m for m in result.mean if m not in hidden), key=print_rank)
    head = []
    if show_run and "runid" not in run_lines:
        head.append(f"{'runid':<22}\tall\t{result.name}")
    lines = []
    if per_query:  # trec_eval prints every query's measures together
        qids = [str(q) for q in result.query_ids]
        shown = sorted([m for m in names if m not in SUMMARY_ONLY] + list(text),
                       key=print_rank)
        for i in sorted(range(len(qids)), key=qids.__getitem__):  # strcmp order
            qid = qids[i]
            for name in shown:
                if name in text:
                    lines.append(f"{name:<22}\t{qid}\t'{text[name][i]}'")
                    continue
                value = result.per_query[name].value[i]
                lines.append(f"{name:<22}\t{qid}\t{_trec_number(name, value)}")
    for name in run_lines:
        lines.append(f"{name:<22}\tall\t{result.name}")
    for name in names:
        lines.append(f"{name:<22}\tall\t{_trec_number(name, result.mean[name])}")
    return head + lines


def _table(header, rows):
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return out


def _run_names(paths, results):
    names = []
    for path, result in zip(paths, results):
        name = path
        if name in names:
            name = f"{name}#{len(names)}"
        names.append(name)
    return names


def _comparison(results, names, measures, seed):
    import numpy as np

    from .._core._aggregate import QueryValues
    from ..stats._paired import compare_per_query

    common = results[0].query_ids
    for result in results[1:]:
        common = np.intersect1d(common, result.query_ids)
    per_query = {}
    for measure in measures:
        per_query[measure] = {}
        for name, result in zip(names, results):
            index = np.searchsorted(result.query_ids, common)
            values = result.per_query[measure].value[index]
            per_query[measure][name] = QueryValues(common, values, np.ones(common.shape[0]))
    rng = np.random.default_rng(seed)
    return compare_per_query(per_query, names, measures, baseline=None,
                             n_resamples=10_000, level=0.95, correction="holm", rng=rng)


def _evaluate(args):
    from ..io._evaluate import (
        _check_preset_run_options,
        _evaluate_run,
        _evaluate_run_preset,
        evaluate_run,
    )

    rules = evaluate_run.parameter_rules  # the checks evaluate_run makes
    for name in ("compat", "relevance_level", "max_docs"):
        setattr(args, name, rules[name].check(name, getattr(args, name)))

    if args.rel_format != "qrels":
        raise ValueError(
            f"-R {args.rel_format}: skrank reads plain qrels only (-R qrels); trec_eval's "
            "preference and judgment-group formats (qrels_prefs, qrels_jg) are not read.")
    from ..io._ndeval import diversity_name

    if args.compat == "ndeval" or (args.measures and all(
            diversity_name(m) is not None for m in args.measures)):
        results = [
            evaluate_run(args.qrels, run, args.measures or ["alpha-nDCG@20"],
                         compat=args.compat, complete_qrels=args.complete_qrels,
                         max_docs=args.max_docs, alpha=args.alpha, beta=args.beta)
            for run in args.runs
        ]
        run_lines, hidden = [], ()
        return _print_results(args, results, run_lines, hidden)
    from ..io._trec_measures import expand_nicknames

    measures, missing = expand_nicknames(args.measures or ["map", "ndcg", "P_10",
                                                           "recall_100"])
    if missing:  # said, never silently fewer lines
        print(f"skrank: note: not computed by skrank yet, so left out: trec_eval's "
              f"{', '.join(missing)}.", file=sys.stderr)
    run_lines = [m for m in dict.fromkeys(measures) if m in RUN_LINES]
    measures = list(dict.fromkeys(m for m in measures if m not in RUN_LINES))
    if run_lines and args.format != "trec":
        raise ValueError(f"-m {run_lines[0]}: trec_eval's run lines need --format trec.")
    strings = [m for m in measures if m.startswith("relstring")]
    if strings and args.format != "trec":
        raise ValueError(f"-m {strings[0]}: trec_eval's per-query strings need --format "
                         "trec (with -q; trec_eval prints no 'all' line for them).")
    hidden = ()
    if not measures:  # -m runid alone: the run is still read (its name, its checks)
        measures, hidden = ["num_q"], ("num_q",)
    if args.compat not in (None, "trec_eval"):  # another peer: its rules, its lines
        _check_preset_run_options(args.compat, args.complete_qrels,
                                  args.judged_docs_only, args.max_docs)
        results = [
            _evaluate_run_preset(args.qrels, run, measures, args.compat,
                                 args.relevance_level, {})
            for run in args.runs
        ]
    else:
        results = [
            _evaluate_run(
                args.qrels, run, measures, compat=args.compat,
                relevance_level=args.relevance_level, complete_qrels=args.complete_qrels,
                judged_docs_only=args.judged_docs_only, max_docs=args.max_docs,
                ties="average", no_relevant="zero", stream=args.stream,
            )
            for run in args.runs
        ]
    return _print_results(args, results, run_lines, hidden)


def _print_results(args, results, run_lines, hidden):
    """Print the results of ``skrank evaluate`` in the format asked for."""
    names = _run_names(args.runs, results)
    columns = list(results[0].mean)
    out = []
    several = len(results) > 1
    if args.format == "trec":
        for result in results:
            out += _trec_lines(result, args.per_query, several, run_lines, hidden)
    elif args.format == "json":
        data = [{
            "run": name, "tag": result.name,
            "mean": {m: _plain(v) for m, v in result.mean.items()},
            **({"per_query": {m: {str(q): _plain(v) for q, v in zip(result.query_ids, v.value)}
                              for m, v in result.per_query.items()}}
               if args.per_query else {}),
        } for name, result in zip(names, results)]
        # strict JSON: no NaN (null instead), every number a plain float
        out.append(json.dumps(data if several else data[0], indent=2, allow_nan=False))
    elif args.format == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["run", "measure", "query", "value"])
        for name, result in zip(names, results):
            for m in columns:
                if args.per_query:
                    for qid, v in zip(result.query_ids, result.per_query[m].value):
                        writer.writerow([name, m, str(qid), _csv_number(v)])
                writer.writerow([name, m, "all", _csv_number(result.mean[m])])
        out.append(buffer.getvalue().rstrip("\n"))
    else:
        if args.per_query:
            for name, result in zip(names, results):
                rows = [[qid] + [_number(m, result.per_query[m].value[i]) for m in columns]
                        for i, qid in enumerate(result.query_ids)]
                rows.append(["all"] + [_number(m, result.mean[m]) for m in columns])
                if several:
                    out.append(f"run: {name}")
                out += _table(["query"] + columns, rows) + [""]
        rows = [[m] + [_number(m, r.mean[m]) for r in results] for m in columns]
        out += _table(["measure"] + names, rows)
        if args.compat in (None, "trec_eval"):  # a preset has its own rule
            out += _no_relevant_note(results, names)
    if several and args.format == "table":
        comparable = [m for m in columns if m not in _COUNTS]
        if comparable:
            tests = _comparison(results, names, comparable, args.seed).tests
            from ..stats._tables import format_p_value

            rows = [[r[0], r[1], r[2], f"{r[3]:+.4f}"]
                    + [format_p_value(r[i]) for i in (6, 9, 8, 10)] for r in tests]
            out += ["", "paired tests over the queries of every run "
                    "(randomisation and t-test; Holm-corrected over the pairs)"]
            out += _table(["measure", "run_a", "run_b", "difference", "p_rand",
                           "p_rand_holm", "p_t", "p_t_holm"], rows)
    if out:  # -m relstring without -q: nothing at all, as trec_eval prints
        print("\n".join(out))
    return 0


def _plain(value):
    """A number as JSON writes it: a Python float, or None for nan."""
    value = float(value)
    return None if math.isnan(value) else value


def _csv_number(value):
    """A number as CSV cell: the shortest text that reads back to the same float."""
    return repr(float(value))


def _no_relevant_note(results, names):
    """A line under the table when some query has no relevant document."""
    lines = []
    for name, result in zip(names, results):
        n = result.n_without_relevant
        if n:
            lines.append(
                f"note: {n} of {len(result.query_ids)} queries of {name} have no relevant "
                "document; they score 0 and count in every mean, as in trec_eval "
                "(skrank.evaluate leaves them out by default: no_relevant='skip')."
            )
    return [""] + lines if lines else []


def run():
    """The console script and ``python -m skrank``: :func:`main` in a process of its own.

    The process is the command's alone, so it may set process-wide state
    that a library call must not: pyarrow allocates from the system
    allocator instead of its default pool (mimalloc or jemalloc), which keeps memory
    it frees; with the system allocator freed blocks are reused at once,
    and a large run touches less fresh memory (page faults are most of the
    command's system time). Once the command is done, the process ends
    without the interpreter's teardown (:func:`_end_process`).
    """
    if sys.argv[1:2] == ["evaluate"]:  # --help stays free of pyarrow's import
        try:
            import pyarrow as pa
        except ImportError:
            pass
        else:
            pa.set_memory_pool(pa.system_memory_pool())
        _release_freed_memory()
    return _end_process(main())


def _end_process(status):
    """Flush the output and end the process at once with ``status``.

    The interpreter's teardown (clearing every module numpy, pyarrow and
    skrank loaded) takes about 0.1 s after a large run, a tenth of the
    command's time, and nothing in it is the command's: its output is
    flushed here, and no file is left open. Under coverage.py, whose
    results are written at exit, or when the output cannot be flushed,
    the status is returned for the usual exit instead.
    """
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        return status
    if "coverage" in sys.modules:
        return status
    os._exit(status)


def _release_freed_memory():
    """After each file is parsed, glibc's malloc_trim returns freed memory to the system."""
    import ctypes

    from ..io import _read

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    _read._after_parse = lambda: trim(0)


def main(argv=None):
    """Run the ``skrank`` command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):
        try:  # ids that are not UTF-8 are written back as the bytes they were
            stream.reconfigure(errors="surrogateescape")
        except (AttributeError, ValueError):
            pass
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status = _explain(args) if args.command == "explain" else _evaluate(args)
        sys.stdout.flush()  # a closed pipe shows here, not at the exit
        return status
    except BrokenPipeError:  # the reader left early (`| head`): stop quietly
        _drop_stdout()
        return 0
    except (ValueError, ImportError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"skrank: error: {message}", file=sys.stderr)
        return 2


def _drop_stdout():
    """Point standard output at the null device once its reader has gone.

    Python flushes ``sys.stdout`` again when it exits; into the closed pipe
    that would print "Exception ignored ... BrokenPipeError". Unix tools
    stop silently when the program they write to stops reading.
    """
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, AttributeError, ValueError):  # no file descriptor to replace
        pass
