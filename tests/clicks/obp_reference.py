"""Reference values of obp's slate estimators, for tests/clicks/test_slate.py.

Run ONLY with a Python that has Open Bandit Pipeline (obp 0.5.7 needs Python <
3.11), e.g. a side virtual environment::

    python3.10 -m venv /work/venv-obp
    /work/venv-obp/bin/pip install --no-deps obp==0.5.7
    /work/venv-obp/bin/pip install numpy scipy scikit-learn pandas tqdm
    /work/venv-obp/bin/python tests/clicks/obp_reference.py > reference.json

It prints one JSON document: a list of cases, each with the logged arrays
(obp's own synthetic slate data, and random arrays with slates of different
lengths in shuffled order) and what obp computes from them: the estimate of
each of its six IPS slate estimators and each slate's sum of obp's per-row
estimated rewards. JSON keeps every float64 exactly (shortest repr).

``import obp`` needs torch (obp's neural-network policies subclass torch
classes when imported); the slate estimators and the synthetic slate data do
not, and torch's wheels for Python 3.10 pull in gigabytes of CUDA libraries.
So only the modules needed are imported (see :func:`_import_obp`).
"""

import importlib.util
import json
import sys
import types
from pathlib import Path

import numpy as np


def _import_obp():
    """obp's slate estimators and synthetic slate data, without obp's torch policies.

    ``import obp`` runs ``obp/__init__.py``, which imports ``obp.policy``,
    whose neural-network learners subclass torch classes at import time. The
    two modules needed here do not: the packages ``obp``, ``obp.ope`` and
    ``obp.dataset`` are registered as bare packages (their ``__init__`` files
    not run), so that only ``obp.ope.estimators_slate``,
    ``obp.dataset.synthetic_slate`` and what they import (``obp.utils``,
    ``obp.types``, ``obp.dataset.base``) are loaded. ``obp.utils`` imports
    torch at the top only for one helper's annotation; without torch an
    empty stand-in takes its place.
    """
    spec = importlib.util.find_spec("obp")
    if spec is None:
        raise SystemExit("obp is not installed in this Python")
    root = Path(spec.origin).parent
    for name, folder in (("obp", root), ("obp.ope", root / "ope"),
                         ("obp.dataset", root / "dataset")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    if importlib.util.find_spec("torch") is None:
        torch = types.ModuleType("torch")
        torch.Tensor = type("Tensor", (), {})  # obp.utils' annotation
        torch.tensor = torch.Tensor
        sys.modules["torch"] = torch
    import obp.dataset.synthetic_slate as synthetic_slate
    import obp.ope.estimators_slate as estimators_slate
    from obp.version import __version__

    return types.SimpleNamespace(ope=estimators_slate, dataset=synthetic_slate,
                                 __version__=__version__)


ESTIMATORS = {
    # skrank estimator -> (obp class name stem, obp's names of the propensities)
    "standard": ("SlateStandardIPS", "pscore", "evaluation_policy_pscore"),
    "independent": ("SlateIndependentIPS", "pscore_item_position",
                    "evaluation_policy_pscore_item_position"),
    "reward_interaction": ("SlateRewardInteractionIPS", "pscore_cascade",
                           "evaluation_policy_pscore_cascade"),
}


def _obp_values(obp, case):
    """obp's estimate and per-slate sums, each estimator plain and self-normalised."""
    slate_id = np.asarray(case["slate_id"])
    position = np.asarray(case["slot"]) - 1
    reward = np.asarray(case["reward"], dtype=float)
    len_list = int(position.max()) + 1
    out = {}
    for name, (stem, behavior_name, evaluation_name) in ESTIMATORS.items():
        behavior = np.asarray(case["behavior"][name])
        evaluation = np.asarray(case["evaluation"][name])
        for self_normalized in (False, True):
            cls = getattr(obp.ope, ("SelfNormalized" if self_normalized else "") + stem)
            est = cls(len_list=len_list)
            kwargs = {"slate_id": slate_id, "reward": reward, "position": position,
                      behavior_name: behavior, evaluation_name: evaluation}
            with np.errstate(invalid="ignore", divide="ignore"):
                value = est.estimate_policy_value(**kwargs)
                rows = est._estimate_round_rewards(
                    reward=reward, position=position, behavior_policy_pscore=behavior,
                    evaluation_policy_pscore=evaluation)
            ids = np.unique(slate_id)
            per_slate = [float(rows[slate_id == s].sum()) for s in ids]
            out[f"{name}/{int(self_normalized)}"] = {
                "estimate": float(value), "slate_id": ids.tolist(),
                "per_slate": per_slate,
            }
    return out


def _synthetic_case(obp, *, n_rounds, len_list, reward_structure, click_model,
                    evaluation, random_state):
    """obp's SyntheticSlateBanditDataset, and an evaluation policy obp makes."""
    from obp.dataset.synthetic import logistic_reward_function

    dataset = obp.dataset.SyntheticSlateBanditDataset(
        n_unique_action=8, len_list=len_list, dim_context=3, reward_type="binary",
        reward_structure=reward_structure, click_model=click_model,
        base_reward_function=logistic_reward_function,
        behavior_policy_function=obp.dataset.linear_behavior_policy_logit,
        random_state=random_state,
    )
    feedback = dataset.obtain_batch_bandit_feedback(
        n_rounds=n_rounds, return_pscore_item_position=True)
    if evaluation == "logit":
        logit = np.random.default_rng(random_state).normal(size=(n_rounds, 8))
        standard, item, cascade = dataset.obtain_pscore_given_evaluation_policy_logit(
            action=feedback["action"], evaluation_policy_logit_=logit,
            return_pscore_item_position=True)
    else:  # epsilon-greedy around the best slate (obp's "optimal" policy)
        standard, item, cascade = dataset.generate_evaluation_policy_pscore(
            evaluation_policy_type="optimal", context=feedback["context"],
            action=feedback["action"], epsilon=evaluation)
    return {
        "name": f"obp synthetic {reward_structure}/{click_model}/{evaluation}",
        "slate_id": feedback["slate_id"].tolist(),
        "slot": (feedback["position"] + 1).tolist(),
        "reward": feedback["reward"].astype(float).tolist(),
        "behavior": {"standard": feedback["pscore"].tolist(),
                     "independent": feedback["pscore_item_position"].tolist(),
                     "reward_interaction": feedback["pscore_cascade"].tolist()},
        "evaluation": {"standard": np.asarray(standard).tolist(),
                       "independent": np.asarray(item).tolist(),
                       "reward_interaction": np.asarray(cascade).tolist()},
    }


def _random_case(seed):
    """Random slates of 1 to 5 slots, sparse slate ids, rows shuffled."""
    rng = np.random.default_rng(seed)
    n_slates = 300
    lengths = rng.integers(1, 6, size=n_slates)
    ids = rng.choice(10**6, size=n_slates, replace=False)
    slate_id = np.repeat(ids, lengths)
    slot = np.concatenate([np.arange(1, n + 1) for n in lengths])
    n = slot.shape[0]
    reward = rng.binomial(1, 0.3, size=n).astype(float)
    reward[rng.random(n) < 0.1] = rng.random() * 3  # some non-binary rewards

    def per_slate(values):
        return np.repeat(values, lengths)

    def cascade(values):  # products down each slate
        out = np.empty(n)
        start = 0
        for length in lengths:
            out[start:start + length] = np.cumprod(values[start:start + length])
            start += length
        return out

    behavior_item = rng.uniform(0.05, 1.0, size=n)
    evaluation_item = rng.uniform(0.0, 1.0, size=n)
    evaluation_item[rng.random(n) < 0.1] = 0.0  # rows the new policy never shows
    case = {
        "name": f"random ragged slates, seed {seed}",
        "slate_id": slate_id,
        "slot": slot,
        "reward": reward,
        "behavior": {"standard": per_slate(rng.uniform(1e-4, 0.2, size=n_slates)),
                     "independent": behavior_item,
                     "reward_interaction": cascade(behavior_item)},
        "evaluation": {"standard": per_slate(rng.uniform(0.0, 0.2, size=n_slates)),
                       "independent": evaluation_item,
                       "reward_interaction": cascade(evaluation_item)},
    }
    shuffle = rng.permutation(n)
    for key in ("slate_id", "slot", "reward"):
        case[key] = case[key][shuffle].tolist()
    for side in ("behavior", "evaluation"):
        for key in case[side]:
            case[side][key] = case[side][key][shuffle].tolist()
    return case


def main():
    obp = _import_obp()
    cases = [
        _synthetic_case(obp, n_rounds=400, len_list=3,
                        reward_structure="cascade_additive", click_model="cascade",
                        evaluation="logit", random_state=12345),
        _synthetic_case(obp, n_rounds=300, len_list=4,
                        reward_structure="standard_additive", click_model="pbm",
                        evaluation=0.3, random_state=7),
        _synthetic_case(obp, n_rounds=300, len_list=3,
                        reward_structure="independent", click_model=None,
                        evaluation="logit", random_state=3),
        _random_case(0),
        _random_case(1),
    ]
    for case in cases:
        case["obp"] = _obp_values(obp, case)
    json.dump({"obp_version": obp.__version__, "cases": cases}, sys.stdout)


if __name__ == "__main__":
    main()
