"""Item similarity as inner products, so that a list's pairs never need enumerating.

Every similarity skrank offers between two items is an inner product of
two item vectors, and every distance is ``base - <v_i, v_j>``:

* ``metric="cosine"``: ``v_i = x_i / ||x_i||`` (``x_i`` the item's
  features), ``base = 1``;
* ``metric="hamming"``: ``v_i`` the one-hot coding of each feature's value,
  divided by ``sqrt(F)`` (``F`` features), so ``<v_i, v_j>`` is the share of
  features on which the items agree and ``base = 1`` (scipy's Hamming: the
  share of features that differ); ``"hamming_count"`` keeps the count
  (``base = F``, RecTools' ``PairwiseHammingDistanceCalculator``);
(Co-occurrence in the history is an inner product too, of the items'
user vectors, but those are long for popular items: ``_cooccurrence.py``
looks its pairs up instead.)

The sum of the similarities over the pairs of a set is then
``(||sum v||^2 - sum ||v||^2) / 2``: O(k d) per list, no item x item table.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._core._validation import describe


@dataclass(frozen=True)
class ItemVectors:
    """Item vectors by item code; ``distance(i, j) = base - <v_i, v_j>``.

    Attributes
    ----------
    vectors : ndarray or scipy.sparse.csr_matrix, shape (n_codes, d)
    base : float
    known : ndarray of bool, shape (n_codes,)
        Whether the item has features (always True for co-occurrence).
    """

    vectors: object
    base: float
    known: np.ndarray

    @property
    def sparse(self):
        return sp.issparse(self.vectors)

    def squared_norms(self):
        v = self.vectors
        if self.sparse:
            return np.asarray(v.multiply(v).sum(axis=1)).reshape(-1)
        return np.einsum("ij,ij->i", v, v)


def check_item_features(item_features):
    """The features as (index labels, float matrix); a clear error for anything else."""
    if not (hasattr(item_features, "index") and hasattr(item_features, "to_numpy")):
        raise ValueError(
            "`item_features` must be a pandas DataFrame indexed by item id with one "
            f"numeric column per feature, got {describe(item_features)}."
        )
    labels = np.asarray(item_features.index)
    values = item_features.to_numpy()
    if values.ndim == 2 and values.shape[1] == 1 and values.dtype == object and len(values):
        # one column holding a vector per item (Microsoft recommenders' layout)
        try:
            values = np.stack([np.asarray(row, dtype=np.float64).reshape(-1)
                               for row in values[:, 0]])
        except (TypeError, ValueError):
            raise ValueError(
                "`item_features` has one column of objects that are not vectors of "
                "one length: give one numeric column per feature."
            ) from None
    if values.ndim != 2 or values.shape[1] == 0:
        raise ValueError("`item_features` has no feature column.")
    if item_features.index.has_duplicates:
        raise ValueError("`item_features` has duplicate item ids in its index.")
    try:
        values = values.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "`item_features` must hold numbers (code categories as integers "
            "or one-hot columns)."
        ) from None
    if not np.isfinite(values).all():
        bad = labels[~np.isfinite(values).all(axis=1)]
        raise ValueError(
            f"`item_features` has missing or infinite values for {len(bad)} item(s), "
            f"e.g. {bad[:3].tolist()}: every recommended item needs all its features."
        )
    return labels, values


def feature_vectors(values, feature_code, n_codes, metric):
    """:class:`ItemVectors` from a feature matrix whose rows are the items ``feature_code``."""
    known = np.zeros(n_codes, dtype=bool)
    known[feature_code] = True
    n_features = values.shape[1]
    if metric == "cosine":
        norms = np.sqrt(np.einsum("ij,ij->i", values, values))
        vectors = np.zeros((n_codes, n_features))
        with np.errstate(invalid="ignore", divide="ignore"):
            vectors[feature_code] = values / norms[:, None]
        # an all-zero row stays zero (cosine undefined: flagged by the caller)
        vectors[feature_code[norms == 0]] = 0.0
        zero = np.zeros(n_codes, dtype=bool)
        zero[feature_code[norms == 0]] = True
        return ItemVectors(vectors, 1.0, known), zero
    # Hamming: one-hot coding of every feature's value
    columns, offset = [], 0
    for f in range(n_features):
        _, codes = np.unique(values[:, f], return_inverse=True)
        codes = codes.reshape(-1)
        columns.append(codes + offset)
        offset += int(codes.max()) + 1
    cols = np.concatenate(columns)
    rows = np.tile(feature_code, n_features)
    scale = 1.0 if metric == "hamming_count" else 1.0 / np.sqrt(n_features)
    vectors = sp.csr_matrix((np.full(len(cols), scale), (rows, cols)), shape=(n_codes, offset))
    base = float(n_features) if metric == "hamming_count" else 1.0
    return ItemVectors(vectors, base, known), np.zeros(n_codes, dtype=bool)


def set_sums(vectors, group, item, weight, n_groups):
    """``sum_i weight_i v_item(i)`` per group: shape (n_groups, d)."""
    select = sp.csr_matrix((weight, (group, item)), shape=(n_groups, vectors.vectors.shape[0]))
    return select @ vectors.vectors


def row_dots(a, b):
    """Row-wise inner products of two (n, d) matrices, dense or sparse."""
    if sp.issparse(a) or sp.issparse(b):
        a = sp.csr_matrix(a)
        return np.asarray(a.multiply(b).sum(axis=1)).reshape(-1)
    return np.einsum("ij,ij->i", a, b)
