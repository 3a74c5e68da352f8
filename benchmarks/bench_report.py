"""Markdown tables from a results.json written by run.py.

``python benchmarks/bench_report.py benchmarks/out/results.json`` prints them
again (run.py writes them to ``results.md`` itself).
"""

import json
import math
import sys

# the targets of the benchmark issue
FLOOR_TARGET = 2.0  # every metric at 10**7 rows / 10**6 integer query ids
EVALUATE_FLOOR_TARGET = 3.0  # evaluate() with 5 metrics
SPEEDUP_TARGET = {"ranx": 10.0, "trec_eval": 10.0, "pandas+sklearn": 100.0,
                  "dict loop": 100.0}
BYTES_PER_ROW_TARGET = 150.0
BASE = "q10-binary-noties-int"


def best(record):
    return min(record["times"])


def _seconds(value):
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.2f}"
    if value >= 0.01:
        return f"{value:.3f}"
    return f"{value:.4f}"


def _ratio(value):
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _per_row(value, rows):
    return "–" if value is None else f"{value / rows:.0f}"


def rows_of(report):
    """Flat records: one per (dataset, method) with its dataset's floor."""
    out = []
    for dataset in report["datasets"]:
        for worker in dataset["workers"]:
            if "error" in worker:
                continue
            floor = best(worker["floor"])
            for record in [worker["floor"]] + worker["methods"]:
                out.append(dict(record, dataset=dataset["name"], shape=dataset["shape"],
                                rows=dataset["rows"], floor_time=floor,
                                group=worker["group"], time=best(record)))
    return out


def skrank_time(records, dataset, task):
    for r in records:
        if r["dataset"] == dataset and r["tool"] == "skrank" and r["task"] == task:
            return r["time"]
    return None


def header(report):
    meta = report["meta"]
    m, v = meta["machine"], meta["versions"]
    memory = f"{m['memory_bytes'] / 2**30:.0f} GiB" if m.get("memory_bytes") else "?"
    lines = [
        "Machine: {cpu}, {cores} cores, {memory}; Python {python}.".format(
            memory=memory, **m),
        "Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()
                                 if val and k not in ("skrank_path",)) + ".",
        f"Command: `{meta['command']}` (started {meta['started']}, "
        f"{meta.get('wall_seconds', 0) / 60:.0f} min)."
        + (f" Note: {meta['note']}" if meta.get("note") else ""),
        f"Each time is the minimum of up to {meta['repeats']} runs (fewer once a "
        f"method's runs took {meta['budget_seconds']:.0f} s); × floor divides by the "
        "minimum of the floor runs of the same worker; speed-up = peer time / skrank "
        "time for the same task on the same dataset.",
    ]
    return "\n".join(lines)


def targets(records):
    """The target table: skrank vs floor at the largest base dataset, peers, memory."""
    base = [r for r in records if r["shape"] == BASE]
    if not base:
        return "No dataset of the base shape was run.\n"
    largest = max(r["rows"] for r in base)
    at = [r for r in base if r["rows"] == largest]
    out = [f"### skrank vs the floor at {largest:,} rows ({BASE})", "",
           "| method | time (s) | × floor | target | met | extra RSS (B/row) "
           "| tracemalloc (B/row) |",
           "|---|---:|---:|---:|:-:|---:|---:|"]
    for r in at:
        if r["group"] != "skrank":
            continue
        target = (None if r["tool"] == "floor" else EVALUATE_FLOOR_TARGET
                  if r["task"] == "evaluate5" else FLOOR_TARGET)
        ratio = r["time"] / r["floor_time"]
        met = "" if target is None else "yes" if ratio <= target else "**no**"
        out.append(
            f"| {r['name']} | {_seconds(r['time'])} | {_ratio(ratio)} | "
            f"{'' if target is None else f'≤ {target:g}'} | {met} | "
            f"{_per_row(r['rss_bytes'], r['rows'])} | "
            f"{_per_row(r['tracemalloc_bytes'], r['rows'])} |")
    skrank_rss = [r["rss_bytes"] / r["rows"] for r in at
                  if r["tool"] == "skrank" and r["rss_bytes"] is not None]
    if skrank_rss:
        worst = max(skrank_rss)
        out += ["", f"Largest extra peak RSS of a skrank method: {worst:.0f} bytes per "
                f"row (target ≤ {BYTES_PER_ROW_TARGET:.0f}: "
                f"{'met' if worst <= BYTES_PER_ROW_TARGET else '**missed**'})."]

    out += ["", "### skrank vs the peers, end to end from arrays", "",
            "Each peer at the largest size it ran, for each shape it ran on, against "
            "skrank on the same data.", "",
            "| peer | task | dataset | peer (s) | skrank (s) | speed-up | target "
            "| met |",
            "|---|---|---|---:|---:|---:|---:|:-:|"]
    peers = [r for r in records if r["tool"] not in ("skrank", "floor")
             and r["stage"] == "total"]
    largest_peer = {}
    for r in peers:
        key = (r["tool"], r["task"], r["shape"])
        if key not in largest_peer or r["rows"] > largest_peer[key]["rows"]:
            largest_peer[key] = r
    for key in sorted(largest_peer, key=lambda k: (k[0], k[1], k[2] != BASE, k[2])):
        r = largest_peer[key]
        sk = skrank_time(records, r["dataset"], r["task"])
        if sk is None:
            continue
        speedup = r["time"] / sk
        target = SPEEDUP_TARGET.get(r["tool"])
        met = "" if target is None else "yes" if speedup >= target else "**no**"
        out.append(
            f"| {r['tool']} | {r['task']} | {r['dataset']} | {_seconds(r['time'])} | "
            f"{_seconds(sk)} | {_ratio(speedup)} | "
            f"{'' if target is None else f'≥ {target:g}'} | {met} |")
    return "\n".join(out) + "\n"


def growth(records):
    """skrank and floor times across sizes, shape by shape, against n log n."""
    keyed = {}
    for r in records:
        if r["tool"] in ("skrank", "floor"):
            keyed.setdefault((r["shape"], r["name"]), {})[r["rows"]] = r["time"]
    shapes = sorted({shape for shape, _ in keyed
                     if len(keyed[(shape, "floor lexsort")]) > 1})
    if not shapes:
        return "Only one size was run.\n"
    out = []
    for shape in shapes:
        sizes = sorted(keyed[(shape, "floor lexsort")])
        lo, hi = sizes[0], sizes[-1]
        nlogn = (hi * math.log(hi)) / (lo * math.log(lo))
        out += [f"#### {shape}", "",
                f"Time per row in ns (× floor) at each size; growth = t({hi:.0e}) / "
                f"t({lo:.0e}) "
                f"for {hi // lo}× the rows (n log n predicts {nlogn:.0f}, linear "
                f"{hi / lo:.0f}).", "",
                "| method | " + " | ".join(f"{s:.0e}" for s in sizes)
                + " | growth | exponent |",
                "|---|" + "---:|" * (len(sizes) + 2)]
        names = sorted({name for s, name in keyed if s == shape},
                       key=lambda name: (name != "floor lexsort", name))
        for name in names:
            times = keyed[(shape, name)]
            if lo not in times or hi not in times:
                continue
            floor = keyed[(shape, "floor lexsort")]
            cells = [f"{times[s] / s * 1e9:.0f} ({times[s] / floor[s]:.2f}×)"
                     if s in times else "–" for s in sizes]
            ratio = times[hi] / times[lo]
            exponent = math.log(ratio) / math.log(hi / lo)
            out.append(f"| {name} | " + " | ".join(cells)
                       + f" | {ratio:.0f} | {exponent:.2f} |")
        out.append("")
    return "\n".join(out)


def dataset_table(dataset, records):
    mine = [r for r in records if r["dataset"] == dataset["name"]]
    d = dataset["data"]
    lines = [
        f"### {dataset['name']}", "",
        f"{d['rows']:,} rows, {d['queries']:,} queries (mean size "
        f"{d['query_size_mean']:.1f}, max {d['query_size_max']:,}); relevant rows "
        f"{d['relevant_rate']:.0%}; queries without a relevant row "
        f"{d['queries_without_relevant']:.0%}; rows tied with the previous one "
        f"{d['rows_tied_with_previous']:.0%}.",
    ]
    if dataset["skipped"]:
        lines.append("Not run here: " + "; ".join(
            f"{group} ({why})" for group, why in dataset["skipped"].items()) + ".")
    errors = [w for w in dataset["workers"] if "error" in w]
    for w in errors:
        lines.append(f"**{w['group']} failed**: `{w['error'][-300:]}`")
    lines += ["", "| method | time (s) | runs | × floor | × skrank | extra RSS (MB) "
              "| RSS B/row | tracemalloc B/row |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    seen_floor = False
    for r in mine:
        if r["tool"] == "floor":
            if seen_floor:
                continue
            seen_floor = True
        sk = skrank_time(records, r["dataset"], r["task"])
        versus = (None if r["tool"] in ("skrank", "floor") or sk is None
                  or r["stage"] == "convert" else r["time"] / sk)
        rss = r["rss_bytes"]
        lines.append(
            f"| {r['name']} | {_seconds(r['time'])} | {len(r['times'])} | "
            f"{_ratio(r['time'] / r['floor_time'])} | {_ratio(versus)} | "
            f"{'–' if rss is None else f'{rss / 2**20:.0f}'} | "
            f"{_per_row(rss, r['rows'])} | "
            f"{_per_row(r['tracemalloc_bytes'], r['rows'])} |")
    return "\n".join(lines) + "\n"


def overview(report, records):
    """skrank's × floor on every dataset, in one table."""
    metric_tasks = {"ndcg@10", "dcg@10", "map", "map@10", "mrr", "precision@10",
                    "recall@10", "f1@10", "fap@10", "r_precision", "hit_rate@10"}
    out = ["| dataset | floor (s) | 11 metrics: min–max × floor | fap_curve | gauc "
           "| evaluate5 | max extra RSS (B/row) |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for dataset in report["datasets"]:
        mine = [r for r in records if r["dataset"] == dataset["name"]
                and r["group"] == "skrank"]
        if not mine:
            continue
        floor = mine[0]["floor_time"]
        ratio = {r["task"]: r["time"] / r["floor_time"] for r in mine
                 if r["tool"] == "skrank"}
        metrics = [v for task, v in ratio.items() if task in metric_tasks]
        rss = [r["rss_bytes"] / r["rows"] for r in mine
               if r["tool"] == "skrank" and r["rss_bytes"] is not None]
        out.append(
            f"| {dataset['name']} | {_seconds(floor)} | "
            f"{min(metrics):.2f}–{max(metrics):.2f} | "
            f"{_ratio(ratio.get('fap_curve'))} | {_ratio(ratio.get('gauc'))} | "
            f"{_ratio(ratio.get('evaluate5'))} | "
            f"{f'{max(rss):.0f}' if rss else '–'} |")
    return "\n".join(out) + "\n"


def markdown(report):
    records = rows_of(report)
    parts = ["# skrank benchmark results", "", header(report), "",
             "## Targets", "", targets(records), "",
             "## skrank × floor on every dataset", "", overview(report, records), "",
             "## Growth with the number of rows", "", growth(records), "",
             "## Every dataset", ""]
    parts += [dataset_table(d, records) for d in report["datasets"]]
    return "\n".join(parts)


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        print(markdown(json.load(handle)))
