"""A small click log for the click scorer's and QueryGroupRanker's tests."""

import numpy as np


def click_log(n_lists=60, per_list=6, seed=0, first_list=500):
    """Shuffled rows of displayed lists: features, clicks, list ids, positions.

    Clicks follow the position-based model: examined with probability
    1/position, then clicked with a probability rising with feature 0.
    """
    rng = np.random.default_rng(seed)
    n = n_lists * per_list
    lists = np.repeat(np.arange(first_list, first_list + n_lists), per_list)
    position = np.concatenate([rng.permutation(per_list) + 1 for _ in range(n_lists)])
    X = rng.normal(size=(n, 3))
    attractive = 1 / (1 + np.exp(-2 * X[:, 0]))
    click = (rng.random(n) < attractive / position).astype(int)
    order = rng.permutation(n)
    return X[order], click[order], lists[order], position[order]
