"""Intra-list diversity and serendipity: libraries' numbers, definitions, ties, edges."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from skrank.recsys import intra_list_diversity_score, serendipity_score

from ._make_similarity_reference import N_ITEMS, graded, make_world

# Printed by tests/recsys/_make_similarity_reference.py:
#   /tmp/rs-recommenders/bin/python ... recommenders  (recommenders 1.2.1, pandas 2.3.3)
#   /tmp/rs-rectools/bin/python ... rectools          (RecTools 0.19.0, pandas 2.3.3)
RECOMMENDERS = {
    "ild_features@5": 0.5398014264504528,
    "ild_cooccurrence@5": 0.8325513507498951,
    "serendipity_features@5": 0.20203942660164498,
    "serendipity_graded@5": 0.1256129933622826,
    "serendipity_cooccurrence@5": 0.3187552306758391,
    "ild_features@10": 0.5490254315574711,
    "ild_cooccurrence@10": 0.837571259943414,
    "serendipity_features@10": 0.19656849800897364,
    "serendipity_graded@10": 0.12655569006285064,
    "serendipity_cooccurrence@10": 0.3049281342533434,
}
RECTOOLS = {
    "ild_hamming@5": 2.98,
    "serendipity@5": 0.04658730158730159,
    "ild_hamming@10": 2.992962962962962,
    "serendipity@10": 0.03277777777777778,
}


@pytest.fixture(scope="module")
def world():
    features, (hist_user, hist_item), reco = make_world()
    frame = pd.DataFrame(features, index=np.arange(N_ITEMS))
    return frame, hist_user, hist_item, reco


@pytest.mark.parametrize("k", [5, 10])
def test_recommenders_numbers(world, k):
    features, hist_user, hist_item, r = world
    common = dict(query_id=r["user"], k=k, compat="recommenders")
    history = dict(history_item_id=hist_item, history_query_id=hist_user)
    got = {
        "ild_features": intra_list_diversity_score(
            r["item"], r["score"], item_features=features, **common),
        # recommenders' layout: one column holding each item's vector
        "ild_features_column": intra_list_diversity_score(
            r["item"], r["score"], **common, item_features=pd.DataFrame(
                {"features": list(features.to_numpy(float))}, index=features.index)),
        "ild_cooccurrence": intra_list_diversity_score(
            r["item"], r["score"], similarity="cooccurrence", **history, **common),
        "serendipity_features": serendipity_score(
            r["item"], r["score"], relevant=r["relevant"], item_features=features,
            **history, **common),
        # relevance 0, 1/3, 2/3, 1: recommenders reads it as float16
        "serendipity_graded": serendipity_score(
            r["item"], r["score"], relevant=graded(r), item_features=features,
            **history, **common),
        "serendipity_cooccurrence": serendipity_score(
            r["item"], r["score"], relevant=r["relevant"], similarity="cooccurrence",
            **history, **common),
    }
    for name, value in got.items():
        reference = RECOMMENDERS[f"{name.replace('_column', '')}@{k}"]
        assert value == pytest.approx(reference, abs=1e-9), name
    # float64 relevance misses recommenders' number by more than 1e-9
    plain = serendipity_score(r["item"], r["score"], relevant=graded(r), item_features=features,
                              relevant_dtype=None, **history, **common)
    assert abs(plain - RECOMMENDERS[f"serendipity_graded@{k}"]) > 1e-6


@pytest.mark.parametrize("k", [5, 10])
def test_rectools_numbers(world, k):
    features, hist_user, hist_item, r = world
    ild = intra_list_diversity_score(r["item"], r["score"], query_id=r["user"], k=k,
                                     item_features=features, compat="rectools")
    ser = serendipity_score(r["item"], r["score"], query_id=r["user"], k=k,
                            relevant=r["relevant"], history_item_id=hist_item,
                            catalog=np.arange(N_ITEMS), compat="rectools")
    assert ild == pytest.approx(RECTOOLS[f"ild_hamming@{k}"], abs=1e-9)
    assert ser == pytest.approx(RECTOOLS[f"serendipity@{k}"], abs=1e-9)


def test_rectools_docstring_example():
    # RecTools 0.19's own Serendipity docstring: k=1 -> [0, 0.25, 0, 0.25],
    # k=2 -> [0, 0.5, 0, 0.125]
    users = ["u1", "u1", "u2", "u2", "u3", "u4", "u4"]
    items = ["i1", "i2", "i2", "i3", "i3", "i2", "i3"]
    rank = np.array([1, 2, 1, 2, 1, 1, 2])
    test = {("u1", "i1"), ("u1", "i2"), ("u2", "i2"), ("u2", "i3"), ("u3", "i2"), ("u4", "i2")}
    relevant = [int((u, i) in test) for u, i in zip(users, items)]
    for k, expected in [(1, [0, 0.25, 0, 0.25]), (2, [0, 0.5, 0, 0.125])]:
        got = serendipity_score(items, -rank, query_id=users, k=k, relevant=relevant,
                                history_item_id=["i1", "i2", "i1", "i2", "i1"],
                                catalog=["i1", "i2", "i3", "i4"], compat="rectools",
                                aggregate=None)
        np.testing.assert_allclose(got.value, expected, atol=1e-12)


# ---- definitions, written to be obvious ---------------------------------

def _cosine(a, b):
    return a @ b / math.sqrt((a @ a) * (b @ b))


def _cooccurrence(i, j, hist_user, hist_item):
    users_i = set(hist_user[hist_item == i])
    users_j = set(hist_user[hist_item == j])
    n_i, n_j = (hist_item == i).sum(), (hist_item == j).sum()
    return 0.0 if n_i == 0 or n_j == 0 else len(users_i & users_j) / math.sqrt(n_i * n_j)


def _ild_of_list(items, distance):
    pairs = list(itertools.combinations(items, 2))
    return sum(distance(i, j) for i, j in pairs) / len(pairs)


def _expected_over_tie_orders(items, scores, k, value_of_list):
    """Mean of ``value_of_list(top k items)`` over every order of the tied rows."""
    items, scores = np.asarray(items), np.asarray(scores, dtype=float)
    order = np.argsort(-scores, kind="stable")
    blocks = [list(g) for _, g in itertools.groupby(order, key=lambda i: scores[i])]
    total, count = 0.0, 0
    for orders in itertools.product(*[itertools.permutations(b) for b in blocks]):
        ranked = [i for block in orders for i in block]
        total += value_of_list(list(items[ranked[:k]]))
        count += 1
    return total / count


TIED = dict(  # two users; ties straddle the cutoff k=3 in both
    items=np.array([0, 1, 2, 3, 4, 5, 6, 2, 3, 5, 7]),
    scores=np.array([5, 4, 4, 4, 4, 1, 0, 3, 3, 3, 3.0]),
    users=np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]),
)
FEATURES = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0],
                     [0, 0, 1], [2, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=float)
HIST_USER = np.array([0, 0, 1, 1, 1, 2, 2, 3])
HIST_ITEM = np.array([0, 2, 2, 3, 5, 0, 3, 6])


def _per_user(value_of_list, k=3):
    out = []
    for user in (0, 1):
        mask = TIED["users"] == user
        out.append(_expected_over_tie_orders(TIED["items"][mask], TIED["scores"][mask], k,
                                             value_of_list(user)))
    return out


@pytest.mark.parametrize("metric", ["cosine", "hamming", "hamming_count"])
def test_ild_ties_match_enumeration(metric):
    def distance(i, j):
        a, b = FEATURES[i], FEATURES[j]
        if metric == "cosine":
            return 1 - _cosine(a, b)
        differ = (a != b).sum()
        return differ / len(a) if metric == "hamming" else differ

    expected = _per_user(lambda user: lambda items: _ild_of_list(items, distance))
    got = intra_list_diversity_score(
        TIED["items"], TIED["scores"], query_id=TIED["users"], k=3,
        item_features=pd.DataFrame(FEATURES), metric=metric, aggregate=None)
    np.testing.assert_allclose(got.value, expected, rtol=1e-12)


def test_ild_cooccurrence_ties_match_enumeration():
    def distance(i, j):
        return 1 - _cooccurrence(i, j, HIST_USER, HIST_ITEM)

    expected = _per_user(lambda user: lambda items: _ild_of_list(items, distance))
    got = intra_list_diversity_score(
        TIED["items"], TIED["scores"], query_id=TIED["users"], k=3,
        similarity="cooccurrence", history_item_id=HIST_ITEM,
        history_query_id=HIST_USER, aggregate=None)
    np.testing.assert_allclose(got.value, expected, rtol=1e-12)


RELEVANT = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1])


def test_auralist_ties_match_enumeration():
    relevance = {(u, i): r for u, i, r in zip(TIED["users"], TIED["items"], RELEVANT)}

    def value(user):
        history = HIST_ITEM[HIST_USER == user]

        def of_list(items):
            return np.mean([
                (1 - np.mean([_cosine(FEATURES[i], FEATURES[h]) for h in history]))
                * relevance[user, i] for i in items])
        return of_list

    expected = _per_user(value)
    got = serendipity_score(
        TIED["items"], TIED["scores"], query_id=TIED["users"], k=3, relevant=RELEVANT,
        item_features=pd.DataFrame(FEATURES), history_item_id=HIST_ITEM,
        history_query_id=HIST_USER, aggregate=None)
    np.testing.assert_allclose(got.value, expected, rtol=1e-12)


def test_lab41_ties_match_enumeration():
    relevance = {(u, i): r for u, i, r in zip(TIED["users"], TIED["items"], RELEVANT)}
    n = 9  # catalog 0..8
    counts = np.bincount(HIST_ITEM, minlength=n)
    distinct = sorted(set(counts[counts > 0]), reverse=True)

    def pop_rank(item):
        return distinct.index(counts[item]) + 1 if counts[item] else None

    def value(user):
        def of_list(items):
            total = 0.0
            for position, item in enumerate(items, start=1):
                p_user = (n + 1 - position) / n
                rank = pop_rank(item)
                p_any = 0.0 if rank is None else (n + 1 - rank) / n
                total += max(p_user - p_any, 0) * (relevance[user, item] > 0)
            return total / len(items)
        return of_list

    expected = _per_user(value)
    got = serendipity_score(
        TIED["items"], TIED["scores"], query_id=TIED["users"], k=3, relevant=RELEVANT,
        history_item_id=HIST_ITEM, catalog=np.arange(n), formula="lab41", aggregate=None)
    np.testing.assert_allclose(got.value, expected, rtol=1e-12)


# ---- one-item lists, LensKit, cold items, users without history ----------

ONE = dict(items=["a", "b", "c", "d"], scores=[3, 2, 1, 5], users=[1, 1, 1, 2])
ONE_FEATURES = pd.DataFrame({"x": [1, 1, 0, 1], "y": [0, 1, 1, 0]}, index=list("abcd"))


@pytest.mark.parametrize("compat, single, expected_single", [
    (None, "skip", np.nan), (None, "zero", 0.0), (None, "one", 1.0),
    ("recommenders", None, np.nan),  # no pair: the user drops out
    ("rectools", None, 0.0),  # IntraListDiversity: 0 for a one-item list
    ("lenskit", None, 1.0),  # intra_list_similarity: ``if n <= 1: return 1.0``
])
def test_one_item_list(compat, single, expected_single):
    options = {} if single is None else {"single": single}
    got = intra_list_diversity_score(
        ONE["items"], ONE["scores"], query_id=ONE["users"], k=3,
        item_features=ONE_FEATURES, compat=compat, aggregate=None, **options)
    np.testing.assert_array_equal(got.query_id, [1, 2])
    np.testing.assert_equal(got.value[1], expected_single)


def test_one_item_lists_only_is_nan_with_a_warning():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning):
        value = intra_list_diversity_score(["a"], [1.0], query_id=[1], k=3,
                                           item_features=ONE_FEATURES)
    assert math.isnan(value)


def test_lenskit_ils_by_definition_float32():
    # LensKit's ILS (main branch; not in 2025.8.1): unit vectors in float32,
    # the mean of the upper triangle of their similarity matrix
    features = np.random.RandomState(0).rand(6, 4)
    unit = (features / np.linalg.norm(features, axis=1, keepdims=True)).astype(np.float32)
    sims = unit[:5] @ unit[:5].T
    expected = float(np.sum(np.triu(sims, 1)) / (5 * 4 / 2))
    got = intra_list_diversity_score(
        np.arange(6), np.arange(6)[::-1], query_id=np.zeros(6), k=5,
        item_features=pd.DataFrame(features), compat="lenskit")
    assert got == pytest.approx(expected, abs=2e-6)


def test_item_without_features_is_a_clear_error():
    with pytest.raises(ValueError, match=r"`item_features` has no row for 1 recommended.*'e'"):
        intra_list_diversity_score(["a", "e"], [2, 1], query_id=[1, 1], k=2,
                                   item_features=ONE_FEATURES)
    # an item outside the top k needs no features
    intra_list_diversity_score(["a", "b", "e"], [3, 2, 1], query_id=[1, 1, 1], k=2,
                               item_features=ONE_FEATURES)


def test_all_zero_features_refused_for_cosine():
    features = pd.DataFrame({"x": [0, 1], "y": [0, 1]}, index=["a", "b"])
    with pytest.raises(ValueError, match="all zeros"):
        intra_list_diversity_score(["a", "b"], [2, 1], query_id=[1, 1], k=2,
                                   item_features=features)


def test_users_without_history():
    # auralist: user 2 has no history and is left out; lab41 needs no per-user history
    items, scores, users = ["a", "b", "c", "d"], [3, 2, 1, 5], [1, 1, 1, 2]
    got = serendipity_score(items, scores, query_id=users, k=2, item_features=ONE_FEATURES,
                            history_item_id=["a", "c"], history_query_id=[1, 1],
                            aggregate=None)
    assert math.isnan(got.value[1])
    # user 1: items a, b against history {a, c}; all rows relevant
    sim = lambda i, j: _cosine(ONE_FEATURES.loc[i].to_numpy(float),  # noqa: E731
                               ONE_FEATURES.loc[j].to_numpy(float))
    expected = np.mean([1 - (sim(i, "a") + sim(i, "c")) / 2 for i in ("a", "b")])
    assert got.value[0] == pytest.approx(expected, rel=1e-12)
    lab41 = serendipity_score(items, scores, query_id=users, k=2, history_item_id=["a", "c"],
                              catalog=list("abcd"), formula="lab41", aggregate=None)
    assert not np.isnan(lab41.value).any()


def test_cold_item_cooccurrence_is_zero_similarity():
    # "z" never occurs in the history: similarity 0, distance 1
    got = intra_list_diversity_score(["a", "z"], [2, 1], query_id=[1, 1], k=2,
                                     similarity="cooccurrence", history_item_id=["a", "b"],
                                     history_query_id=[1, 1])
    assert got == 1.0


@pytest.mark.parametrize("call, match", [
    (dict(k=0), "`k`"),
    (dict(metric="euclid"), "`metric`"),
    (dict(single="nan"), "`single`"),
    (dict(compat="recbole"), "compat=.recbole."),
    (dict(compat="lenskitt"), "`compat`"),
    (dict(similarity="cooccurrence"), "`history_item_id`"),
    (dict(item_features=None), "`item_features` is required"),
    (dict(item_features=np.ones((4, 2))), "`item_features` must be a pandas DataFrame"),
])
def test_bad_input_names_the_argument(call, match):
    kwargs = {**dict(query_id=ONE["users"], k=2, item_features=ONE_FEATURES), **call}
    with pytest.raises(ValueError, match=match):
        intra_list_diversity_score(ONE["items"], ONE["scores"], **kwargs)


def test_duplicate_pairs_refused():
    with pytest.raises(ValueError, match="repeats an item"):
        intra_list_diversity_score(["a", "a"], [2, 1], query_id=[1, 1], k=2,
                                   item_features=ONE_FEATURES)


@pytest.mark.parametrize("call, match", [
    (dict(formula="lab41"), "`catalog` is required"),
    (dict(history_query_id=None), "`history_query_id` is required"),
    (dict(relevant=[1, 0]), "`relevant` must have one value per row"),
    (dict(relevant=[1, -1, 0, 1]), "non-negative"),
    (dict(formula="x"), "`formula`"),
    (dict(relevant_dtype="float32"), "`relevant_dtype`"),
    (dict(k=0), "`k`"),
])
def test_serendipity_bad_input(call, match):
    kwargs = {**dict(query_id=ONE["users"], k=2, item_features=ONE_FEATURES,
                  history_item_id=["a"], history_query_id=[1]), **call}
    with pytest.raises(ValueError, match=match):
        serendipity_score(ONE["items"], ONE["scores"], **kwargs)


def test_explicit_option_wins_over_preset():
    # rectools sets single="zero"; an explicit single="skip" wins
    got = intra_list_diversity_score(
        ONE["items"], ONE["scores"], query_id=ONE["users"], k=3,
        item_features=ONE_FEATURES, compat="rectools", single="skip", aggregate=None)
    assert math.isnan(got.value[1])


# ---- scorers ----------------------------------------------------------------

def test_scorers_compute_the_functions():
    from sklearn import config_context
    from sklearn.dummy import DummyRegressor

    from skrank.recsys import make_recsys_scorer

    items, scores, users = np.array(ONE["items"]), np.array(ONE["scores"]), ONE["users"]
    ild = make_recsys_scorer("ild@3", item_features=ONE_FEATURES, single="zero")
    assert repr(ild) == "make_recsys_scorer('ild@3', item_features=..., single='zero')"
    expected = intra_list_diversity_score(items, scores, query_id=users, k=3,
                                          item_features=ONE_FEATURES, single="zero")
    assert ild.evaluate_scores(None, scores, users, item_id=items) == {"ild@3": expected}
    # serendipity reads y as the rows' relevance
    history = dict(history_item_id=["a", "c"], history_query_id=[1, 2])
    ser = make_recsys_scorer("serendipity@2", item_features=ONE_FEATURES, **history)
    relevant = np.array([1, 0, 1, 1])
    expected = serendipity_score(items, scores, query_id=users, k=2, relevant=relevant,
                                 item_features=ONE_FEATURES, **history)
    assert ser.evaluate_scores(relevant, scores, users, item_id=items) == {
        "serendipity@2": expected}
    # through a fitted model, ids routed as metadata
    X = scores.reshape(-1, 1).astype(float)
    model = DummyRegressor().fit(X, scores)  # constant scores: every order of ties
    with config_context(enable_metadata_routing=True):
        got = ild.set_score_request(query_id=True, item_id=True)(
            model, X, None, query_id=users, item_id=items)
    expected = intra_list_diversity_score(items, np.zeros(4), query_id=users, k=3,
                                          item_features=ONE_FEATURES, single="zero")
    assert got == pytest.approx(expected, rel=1e-12)


def test_recommenders_under_pandas3_leaves_unseen_pairs_out(world):
    # recommenders 1.2.1 with pandas 3.1.1 (/tmp/rsb-rec-pandas3: the rs-recommenders
    # venv with pandas upgraded): user_diversity(train, top10,
    # item_sim_measure="item_cooccurrence_count")["user_diversity"].mean() gave
    # 0.7977024419135204 (diversity() itself raises KeyError: 0 there), against
    # 0.837571259943414 with pandas 2.3.3. Its fillna(0, inplace=True) on a column
    # no longer fills, so pairs that never co-occur leave each user's mean. By
    # definition, with those pairs left out:
    _, hist_user, hist_item, r = world
    values = []
    for user in np.unique(r["user"]):
        mask = r["user"] == user
        items = r["item"][mask][np.argsort(-r["score"][mask])][:10]
        sims = [_cooccurrence(i, j, hist_user, hist_item)
                for i, j in itertools.combinations(items, 2)]
        sims = [s for s in sims if s > 0]
        if sims:
            values.append(1 - np.mean(sims))
    assert np.mean(values) == pytest.approx(0.7977024419135204, abs=1e-9)
    skrank_value = intra_list_diversity_score(
        r["item"], r["score"], query_id=r["user"], k=10, similarity="cooccurrence",
        history_item_id=hist_item, history_query_id=hist_user, compat="recommenders")
    assert skrank_value == pytest.approx(0.837571259943414, abs=1e-9)  # the intended number


def test_explain_list_difference_walks_ild_and_serendipity(world):
    from skrank.recsys import evaluate_lists, explain_list_difference

    features, hist_user, hist_item, r = world
    rows = (r["item"], r["score"])
    result = explain_list_difference(*rows, query_id=r["user"], metric="ild@10",
                                     a="recommenders", b="rectools", item_features=features)
    assert [step["option"] for step in result.steps] == ["metric", "single"]
    assert result.value_a == pytest.approx(RECOMMENDERS["ild_features@10"], abs=1e-9)
    assert result.value_b == pytest.approx(RECTOOLS["ild_hamming@10"], abs=1e-9)
    result = explain_list_difference(
        *rows, query_id=r["user"], metric="serendipity@10", a="recommenders", b="rectools",
        item_features=features, relevant=r["relevant"], history_item_id=hist_item,
        history_query_id=hist_user, catalog=np.arange(N_ITEMS))
    assert result.steps[0]["option"] == "formula"
    assert result.value_a == pytest.approx(RECOMMENDERS["serendipity_features@10"], abs=1e-9)
    assert result.value_b == pytest.approx(RECTOOLS["serendipity@10"], abs=1e-9)
    # evaluate_lists hands each metric the data it takes
    got = evaluate_lists(*rows, query_id=r["user"], metrics=["ild@10", "novelty@10"],
                         item_features=features, history_item_id=hist_item,
                         history_query_id=hist_user, compat="rectools")
    assert got["ild@10"] == pytest.approx(RECTOOLS["ild_hamming@10"], abs=1e-9)
