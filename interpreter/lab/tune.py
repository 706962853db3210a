"""Searching a ruleset's parameters for a stated target (`lfdsl tune`), with Optuna's TPE sampler
rather than a search written here.

A target is one of:

* `seat win rates equal`: minimise the spread of the seats' win rates (the highest minus the lowest);
* `median rounds N`: minimise the distance of the games' median length in rounds from N.

Every trial plays the same seeds (common random numbers: two settings are told apart by the rules,
not by the luck of the draw). The best setting is then played again on fresh seeds, a confirmation
run, because the best of many noisy trials looks better than it is; its figure is reported with a
95% interval: Wilson's (statsmodels) for win rates, a bootstrap interval of the median (scipy) for
rounds.
"""
from __future__ import annotations

import re

import numpy as np

TARGETS = ("seat win rates equal", "median rounds N")


def numpy_seed(seed: int) -> int:
    """`seed` as numpy's generators take it (0 .. 2^32-1; lfdsl's seeds go to 2^63-1): the same
    seed for every seed below 2^32, so searches made before keep their results."""
    return seed & 0xFFFF_FFFF


class TargetError(ValueError):
    """A target that is not one of `TARGETS`."""


def parse_target(text: str):
    """The target's kind and its number (for `median rounds N`)."""
    t = " ".join(text.lower().split())
    if t in ("seat win rates equal", "seats equal", "equal seats"):
        return ("seats", None)
    m = re.fullmatch(r"median rounds (?:=\s*)?([0-9]+(?:\.[0-9]+)?)", t)
    if m:
        return ("rounds", float(m.group(1)))
    raise TargetError(text)


def objective(target, data: dict) -> float:
    """How far a simulation's figures are from the target (0 is on it)."""
    kind, value = target
    if kind == "seats":
        rates = [s["win_rate"] for s in data["seats"]]
        return 1.0 if None in rates else round(max(rates) - min(rates), 6)
    median = data["rounds"]["median"]
    return float("inf") if median is None else abs(median - value)


def median_interval(rounds: list[int], seed: int) -> list[float]:
    """A 95% bootstrap interval (percentile method, scipy.stats.bootstrap) of the median."""
    from scipy.stats import bootstrap
    if len(set(rounds)) < 2:
        return [float(rounds[0]), float(rounds[0])] if rounds else [None, None]
    res = bootstrap((np.asarray(rounds, dtype=float),), np.median, confidence_level=0.95, n_resamples=2000,
                    method="percentile", random_state=numpy_seed(seed))
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def search(space: dict, target, trials: int, seed: int, simulate, each=None) -> dict:
    """Run `trials` Optuna trials over `space` (name -> list of values, or (low, high) whole
    numbers); `simulate(params)` returns (figures, records) for a setting. Returns every trial and
    the best setting."""
    import optuna  # here, not above: a wrong command line is told before this long import
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=numpy_seed(seed)))
    done = []

    def run(trial):
        params = {}
        for name, values in space.items():
            if isinstance(values, tuple):
                params[name] = str(trial.suggest_int(name, values[0], values[1]))
            else:
                params[name] = trial.suggest_categorical(name, values)
        data, _ = simulate(params)
        score = objective(target, data)
        done.append({"trial": trial.number, "params": params, "objective": score, "figures": data})
        if each:
            each(done[-1])
        return score
    study.optimize(run, n_trials=trials)
    best = min(done, key=lambda t: (t["objective"], t["trial"]))
    return {"trials": done, "best": best}


def confirmation(target, data: dict, records: list[dict], seed: int) -> dict:
    """The best setting's figure on fresh seeds, with its 95% interval."""
    from . import figures
    kind, _ = target
    out = {"objective": objective(target, data)}
    if kind == "seats":
        out["seats"] = [{"seat": s["seat"], "win_rate": s["win_rate"], "ci95": s["ci95"]} for s in data["seats"]]
        out["interval"] = figures.INTERVAL
    else:
        rounds = [r["rounds"] for r in records if r["status"] == "finished"]
        out["median_rounds"] = data["rounds"]["median"]
        out["ci95"] = median_interval(rounds, seed)
        out["interval"] = "95% bootstrap interval of the median (scipy.stats.bootstrap, percentile method)"
    return out
