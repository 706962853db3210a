"""Wilson's score interval of a proportion, which every count of the lab is shown with; a module of
its own, below the figures, the tournament and the game-quality measures that all use it."""
from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint

INTERVAL = "Wilson score interval, 95% (statsmodels.stats.proportion.proportion_confint, method='wilson')"


def interval(successes: int, trials: int) -> list[float]:
    """The 95% Wilson score interval of a proportion, by statsmodels ([0, 1] when there is no trial)."""
    if trials == 0:
        return [0.0, 1.0]
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    return [float(low), float(high)]
