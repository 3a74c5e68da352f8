"""The small synthetic world on which the libraries' numbers were computed.

Shared by ``_make_reference.py`` (run in each library's side venv) and the
tests; numpy only, deterministic. 60 users, 42 catalog items with a skewed
popularity, 3 cold items (ids 42, 43, 44: candidates never in the history),
repeated interactions (so interactions and distinct users differ), a user
without history (59), and distinct scores (no ties: the libraries rank by
position, so ties are tested against enumeration, not against them).
"""

import numpy as np

N_USERS, N_ITEMS, N_COLD = 60, 42, 3


def world(seed=48):
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, N_ITEMS + 1) ** 1.1
    weights /= weights.sum()
    history_user, history_item = [], []
    for user in range(N_USERS - 1):  # the last user has no history
        n = rng.integers(3, 12)
        items = rng.choice(N_ITEMS, size=n, p=weights)  # repeats are kept
        history_user += [user] * n
        history_item += items.tolist()
    user, item, score = [], [], []
    history_user_arr, history_item_arr = np.array(history_user), np.array(history_item)
    for u in range(N_USERS):
        # candidates: items the user has not interacted with (as the libraries expect)
        p = np.r_[weights * 0.9, np.full(N_COLD, 0.1 / N_COLD)]
        p[history_item_arr[history_user_arr == u]] = 0
        p /= p.sum()
        n = rng.integers(12, 25)
        items = rng.choice(N_ITEMS + N_COLD, size=n, replace=False, p=p)
        user += [u] * n
        item += items.tolist()
        score += rng.permutation(n).astype(float).tolist()
    return (np.array(user), np.array(item), np.array(score),
            np.array(history_user), np.array(history_item))


def top_k(user, item, score, k):
    """Each user's top k rows as (user, item, rank) arrays, by descending score."""
    order = np.lexsort((-score, user))
    u, i = user[order], item[order]
    start = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
    rank = np.arange(len(u)) - np.repeat(start, np.diff(np.r_[start, len(u)])) + 1
    keep = rank <= k
    return u[keep], i[keep], rank[keep]
