"""A real retrieval task built from data that ships with scikit-learn."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.utils import Bunch, check_random_state

from .._core._optional import import_optional
from .._core._params import (
    COUNT,
    FLAG,
    validate_params,
)


def _pool(images, size):
    """Average-pool 8x8 images to ``size`` x ``size`` (size divides 8)."""
    step = 8 // size
    return images.reshape(-1, size, step, size, step).mean(axis=(2, 4)).reshape(
        len(images), -1
    )


@validate_params({"n_queries": COUNT, "n_candidates": COUNT, "as_frame": FLAG})
def load_digits_retrieval(
    *, n_queries=300, n_candidates=30, random_state=0, as_frame=False
):
    """Query-by-example image retrieval built from scikit-learn's digits.

    Each query is one handwritten digit image; its candidates are other
    images drawn at random from the rest of the data set, and a candidate is
    relevant when it shows the same digit. Each (query, candidate) row has
    features comparing the two images, so a binary classifier or a
    regressor trained on them is a ranking model. The images ship with
    scikit-learn (``sklearn.datasets.load_digits``): nothing is downloaded.

    Parameters
    ----------
    n_queries : int, default=300
        Number of queries (query images), at most 1797.
    n_candidates : int, default=30
        Candidate rows per query. About one candidate in ten is relevant, so
        some queries of a small ``n_candidates`` have no relevant row.
    random_state : int, RandomState instance or None, default=0
        Seeds the choice of queries and candidates.
    as_frame : bool, default=False
        Return ``data`` as a pandas DataFrame whose column ``"qid"`` holds
        the query ids (pandas needed).

    Returns
    -------
    data : Bunch
        ``data`` (n_queries * n_candidates, 20) features: absolute pixel
        differences pooled to 4x4 (16), the Euclidean distance, the cosine
        similarity, and the distance between the two images at 2x2 and 1x1
        (ink) resolution; ``target``, 1 for a relevant row; ``query_id``;
        ``feature_names``; ``query_digit``, the digit of each row's query;
        ``candidate_id``, the index of each row's candidate image in
        ``sklearn.datasets.load_digits()`` (an item id, for
        :mod:`skrank.recsys`); ``DESCR``.

    Examples
    --------
    >>> from skrank import load_digits_retrieval
    >>> data = load_digits_retrieval(n_queries=50, n_candidates=20)
    >>> data.data.shape, data.target.shape, data.query_id.shape
    ((1000, 20), (1000,), (1000,))
    """
    digits = load_digits()
    images, labels = digits.images / 16.0, digits.target
    n_images = len(labels)
    if n_queries > n_images or n_candidates > n_images - 1:
        raise ValueError(
            f"`n_queries` must be at most {n_images} and `n_candidates` at most "
            f"{n_images - 1}, got {n_queries} and {n_candidates}."
        )
    rng = check_random_state(random_state)
    queries = rng.choice(n_images, size=n_queries, replace=False)
    # candidates: any image but the query itself, drawn without replacement
    offsets = np.argsort(rng.random_sample((n_queries, n_images - 1)), axis=1)
    offsets = offsets[:, :n_candidates]
    candidates = (queries[:, None] + 1 + offsets) % n_images

    q_rows = np.repeat(queries, n_candidates)
    c_rows = candidates.reshape(-1)
    q_img, c_img = images[q_rows], images[c_rows]
    pooled_diff = np.abs(_pool(q_img, 4) - _pool(c_img, 4))
    flat_q, flat_c = q_img.reshape(len(q_rows), -1), c_img.reshape(len(c_rows), -1)
    distance = np.linalg.norm(flat_q - flat_c, axis=1)
    cosine = (flat_q * flat_c).sum(1) / (
        np.linalg.norm(flat_q, axis=1) * np.linalg.norm(flat_c, axis=1)
    )
    coarse = np.linalg.norm(_pool(q_img, 2) - _pool(c_img, 2), axis=1)
    ink = np.abs(_pool(q_img, 1) - _pool(c_img, 1)).ravel()
    X = np.column_stack([pooled_diff, distance, cosine, coarse, ink])
    feature_names = [f"pooled_diff_{i}" for i in range(16)] + [
        "distance", "cosine", "coarse_distance", "ink_difference",
    ]
    y = (labels[q_rows] == labels[c_rows]).astype(np.int64)
    query_id = np.repeat(np.arange(n_queries), n_candidates)
    if as_frame:
        pd = import_optional("pandas", "load_digits_retrieval(as_frame=True)")
        X = pd.DataFrame(X, columns=feature_names)
        X.insert(0, "qid", query_id)
    return Bunch(
        data=X,
        target=y,
        query_id=query_id,
        feature_names=feature_names,
        query_digit=labels[q_rows],
        candidate_id=c_rows,
        DESCR=(
            "Query-by-example retrieval on scikit-learn's handwritten digits: "
            "a row pairs a query image with a candidate image and is relevant "
            "when both show the same digit."
        ),
    )
