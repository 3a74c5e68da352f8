"""The regression guard's statistics (benchmarks/guard.py), on synthetic timings.

Nothing here runs a benchmark or times anything: the interval and the
flagging are pure functions of per-round seconds, checked against the
definition of the signed-rank test written out by brute force.
"""

import importlib.util
import itertools
import math
import random
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def guard():
    spec = importlib.util.spec_from_file_location("skrank_bench_guard",
                                                  BENCHMARKS / "guard.py")
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    spec.loader.exec_module(module)  # it puts benchmarks/ on sys.path: undone
    sys.path[:] = path
    yield module
    sys.modules.pop("skrank_bench_guard", None)


def brute_cdf(n):
    """P(T <= t) by listing every sign pattern of the ranks 1..n."""
    sums = [sum(r for r, s in zip(range(1, n + 1), signs) if s)
            for signs in itertools.product((0, 1), repeat=n)]
    return [sum(s <= t for s in sums) / 2**n for t in range(n * (n + 1) // 2 + 1)]


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_signed_rank_cdf_is_the_count_of_sign_patterns(guard, n):
    assert guard.signed_rank_cdf(n) == pytest.approx(brute_cdf(n))


def test_signed_rank_cdf_small_cases_by_hand(guard):
    # n = 3: rank sums of the 8 sign patterns are 0,1,2,3,3,4,5,6
    assert guard.signed_rank_cdf(3) == pytest.approx(
        [1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8, 1])


def signed_rank_stat(values, shift):
    """T+ of values - shift: the sum of the ranks of |d| over the positive d."""
    d = [v - shift for v in values]
    order = sorted(range(len(d)), key=lambda i: abs(d[i]))
    return sum(rank + 1 for rank, i in enumerate(order) if d[i] > 0)


def test_interval_is_the_set_of_shifts_the_test_accepts(guard):
    # the definition: shift d is inside when T+(x - d) lies in [k, M - k]
    # (k from the exact null distribution); check on a fine grid of shifts
    rng = random.Random(3)
    for n in (5, 6, 8, 12):
        x = [rng.gauss(0, 1) for _ in range(n)]
        estimate, low, high, achieved = guard.hodges_lehmann(x, 0.9)
        m = n * (n + 1) // 2
        cdf = brute_cdf(n)
        k = max(j for j in range(m + 1) if j == 0 or cdf[j - 1] <= 0.05)
        assert achieved == pytest.approx(1 - 2 * cdf[k - 1])
        assert achieved >= 0.9
        lo_grid, hi_grid = min(x) - 1, max(x) + 1
        for step in range(2001):
            shift = lo_grid + (hi_grid - lo_grid) * step / 2000
            accepted = k <= signed_rank_stat(x, shift) <= m - k
            if min(abs(shift - low), abs(shift - high)) > 1e-9:
                assert accepted == (low < shift < high), (n, shift, low, high)


def test_estimate_is_the_median_of_walsh_averages(guard):
    # x = 1, 2, 10: Walsh averages 1, 1.5, 2, 5.5, 6, 10 -> median (2 + 5.5) / 2
    estimate, *_ = guard.hodges_lehmann([10, 1, 2])
    assert estimate == pytest.approx(3.75)


def test_too_few_rounds_give_an_infinite_interval(guard):
    # n = 4: P(T <= 0) = 1/16 > 0.05, so no finite 90% interval exists
    _, low, high, achieved = guard.hodges_lehmann([0.1, 0.2, 0.3, 0.4], 0.9)
    assert (low, high, achieved) == (-math.inf, math.inf, 1.0)
    # n = 5 at 90%: P(T <= 0) = 1/32: the interval is [min, max]
    _, low, high, achieved = guard.hodges_lehmann([0.1, 0.5, 0.2, 0.4, 0.3], 0.9)
    assert (low, high) == (0.1, 0.5)
    assert achieved == pytest.approx(1 - 2 / 32)


@pytest.mark.parametrize("bad", [0, 1, 1.5])
def test_confidence_is_validated(guard, bad):
    with pytest.raises(ValueError, match="confidence must be in"):
        guard.hodges_lehmann([1.0, 2.0], bad)


def test_verdicts(guard):
    assert guard.verdict(1.06, 1.3) == "SLOWER"
    assert guard.verdict(0.7, 0.94) == "faster"
    assert guard.verdict(0.9, 1.2) == "wide"
    assert guard.verdict(0.97, 1.04) == ""
    assert guard.verdict(1.0, 1.2) == ""  # could be 1: not flagged


def rounds(ratio, n, noise, seed, outliers=0):
    """Per-round seconds of REV and of the tree: a shared machine's noise,
    the same disturbance on both within a round, a few rounds where one
    side alone was slowed by another program."""
    rng = random.Random(seed)
    before, after = [], []
    for i in range(n):
        load = math.exp(rng.gauss(0, 0.3))  # the round's load, on both
        before.append(1.0 * load * math.exp(rng.gauss(0, noise)))
        after.append(ratio * load * math.exp(rng.gauss(0, noise)))
        if i < outliers:
            (before if i % 2 else after)[-1] *= 2.5
    return before, after


def test_unchanged_tree_is_not_flagged(guard):
    flagged = 0
    for seed in range(200):
        before, after = rounds(1.0, 8, 0.04, seed, outliers=1)
        flagged += guard.summarise(before, after)["verdict"] in ("SLOWER", "faster")
    assert flagged <= 2  # 1% at most; the flag needs the interval past 1.05


def test_twenty_percent_slowdown_is_flagged(guard):
    caught = 0
    for seed in range(200):
        before, after = rounds(1.2, 8, 0.04, seed, outliers=1)
        result = guard.summarise(before, after)
        caught += result["verdict"] == "SLOWER"
        assert result["low"] <= result["high"]
    assert caught >= 190


def test_interval_covers_the_true_ratio(guard):
    # at least the stated 90% (exact: 92.2% for 8 rounds), outliers aside
    covered = sum(guard.summarise(*rounds(1.1, 8, 0.05, seed))["low"] <= 1.1
                  <= guard.summarise(*rounds(1.1, 8, 0.05, seed))["high"]
                  for seed in range(400))
    assert covered / 400 >= 0.87


def test_speedup_is_marked_faster(guard):
    before, after = rounds(0.7, 8, 0.03, 0)
    assert guard.summarise(before, after)["verdict"] == "faster"


def test_rounds_must_pair(guard):
    with pytest.raises(ValueError, match="rounds"):
        guard.summarise([1.0, 1.0], [1.0])


def test_figure_flags_either_clock(guard):
    # the wall clock is noisy, the CPU time shows the slowdown: flagged
    rng = random.Random(0)
    seconds = {"before": [], "after": []}
    for _ in range(8):
        for side, factor in (("before", 1.0), ("after", 1.2)):
            seconds[side].append({"case": {
                "wall": factor * math.exp(rng.gauss(0, 0.4)),
                "cpu": factor * math.exp(rng.gauss(0, 0.02))}})
    result = guard.figure("case", seconds)
    assert result["cpu"]["verdict"] == "SLOWER"
    assert result["verdict"] == "SLOWER"
    # a wide wall clock beside a steady, unchanged CPU time: no verdict
    seconds_same = {"before": [], "after": []}
    for _ in range(8):
        for side in seconds_same:
            seconds_same[side].append({"case": {
                "wall": math.exp(rng.gauss(0, 0.5)),
                "cpu": math.exp(rng.gauss(0, 0.01))}})
    same = guard.figure("case", seconds_same)
    assert same["wall"]["verdict"] == "wide" and same["cpu"]["verdict"] == ""
    assert same["verdict"] == ""
    # Spark: no CPU figure
    for side in seconds.values():
        for one in side:
            one["case"]["cpu"] = None
    assert "cpu" not in guard.figure("case", seconds)


def test_a_case_that_fails_on_one_tree_is_reported(guard):
    ok = {"wall": 1.0, "cpu": 1.0}
    seconds = {"before": [{"case": {"error": "ImportError: no skrank.clicks"}}] * 8,
               "after": [{"case": ok}] * 8}
    result = guard.figure("case", seconds)
    assert result["error"].startswith("fails on REV: ImportError")
    assert "| case |" in guard.table({"case": result}, "v1")


@pytest.mark.parametrize("argv, message", [
    (["--against", "no-such-rev", "evaluate"], "not a git revision: 'no-such-rev'"),
    (["--against", "HEAD", "no_such_case"], "no case named no_such_case"),
])
def test_the_command_refuses_bad_input_with_status_2(argv, message):
    # as a user runs it: a usage error exits 2 (1 means a slowdown was found),
    # before any worktree or benchmark
    import subprocess

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "run.py"), *argv],
                          capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
