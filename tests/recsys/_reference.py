"""Brute-force references for skrank.recsys, written to be obvious, not fast.

Lists are built by an explicit sort per user; ties are handled by
enumerating every order of the tied rows (every user's orders jointly)
and averaging, the definition of skrank's tie rule.
"""

import itertools
import math
from collections import Counter

import numpy as np


def orders_of_user(items, scores):
    """Every strict order of one user's rows that sorts scores descending."""
    blocks = {}
    for item, score in zip(items, scores):
        blocks.setdefault(score, []).append(item)
    per_block = [list(itertools.permutations(blocks[s])) for s in sorted(blocks, reverse=True)]
    for choice in itertools.product(*per_block):
        yield [item for block in choice for item in block]


def all_list_sets(user, item, score, k):
    """Every joint tie order: a list of {user: top-k items} dicts (equally likely)."""
    users = sorted(set(user.tolist()))
    per_user = []
    for u in users:
        mask = user == u
        per_user.append([order[:k] for order in orders_of_user(item[mask].tolist(),
                                                               score[mask].tolist())])
    return [dict(zip(users, combo)) for combo in itertools.product(*per_user)]


def expected(metric, user, item, score, k, **kwargs):
    """The mean of ``metric(lists, **kwargs)`` over every joint tie order."""
    values = [metric(lists, **kwargs) for lists in all_list_sets(user, item, score, k)]
    return sum(values) / len(values)


def novelty(lists, *, history_user, history_item, popularity="interactions", base=2,
            unseen="zero", average="queries"):
    if popularity == "interactions":
        count = Counter(history_item)
        total = len(history_item)
    else:
        count = Counter(item for _, item in set(zip(history_user, history_item)))
        total = len(set(history_user))
    values, pooled, n_pooled = [], 0.0, 0
    for items in lists.values():
        novelties = []
        for item in items:
            c = count.get(item, 0)
            if c == 0:
                if unseen == "skip":
                    continue
                if unseen == "zero":
                    novelties.append(0.0)
                    continue
                c = 1
            novelties.append(-math.log(c / total, base))
        pooled += sum(novelties)
        n_pooled += len(novelties)
        if novelties:
            values.append(sum(novelties) / len(novelties))
    return pooled / n_pooled if average == "rows" else sum(values) / len(values)


def popularity(lists, *, history_item, normalize=False, divide_by="length", k=None):
    count = Counter(history_item)
    values = []
    for items in lists.values():
        pops = [count.get(i, 0) / (len(history_item) if normalize else 1) for i in items]
        values.append(sum(pops) / (len(items) if divide_by == "length" else k))
    return sum(values) / len(values)


def tail_share(lists, *, tail_set, divide_by="length", k=None):
    values = [sum(i in tail_set for i in items) / (len(items) if divide_by == "length" else k)
              for items in lists.values()]
    return sum(values) / len(values)


def distinct(lists):
    return len({i for items in lists.values() for i in items})


def entropy(lists, *, base=2, per_item=False):
    count = Counter(i for items in lists.values() for i in items)
    total = sum(count.values())
    h = -sum(c / total * math.log(c / total, base) for c in count.values())
    return h / len(count) if per_item else h


def gini_of(values):
    """Gini by the mean absolute difference: sum |x_i - x_j| / (2 n sum x)."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    return np.abs(values[:, None] - values[None, :]).sum() / (2 * n * values.sum())


def gini(lists, *, n_items, weight="count", patience=0.85):
    exposure = Counter()
    for items in lists.values():
        for rank, item in enumerate(items, start=1):
            if weight == "count":
                exposure[item] += 1
            elif weight == "geometric":
                exposure[item] += patience ** (rank - 1)
            else:
                exposure[item] += 1 / math.log2(rank + 1)
    values = list(exposure.values()) + [0.0] * (n_items - len(exposure))
    return gini_of(values)
