"""Two simulations side by side: for every figure the two values, the difference, and whether it is
significant, by a named test from scipy, the p-values of the whole family corrected by Holm's
method (statsmodels), so that a ruleset compared with itself shows no significant difference in at
least 95% of comparisons, however many figures are tested.

| Figure | Test |
|---|---|
| share of games finished, each seat's win rate | Fisher's exact test (scipy.stats.fisher_exact) |
| rounds, decisions of the finished games | Mann-Whitney U test, two-sided (scipy.stats.mannwhitneyu) |
| how the games ended | chi-square test of homogeneity (scipy.stats.chi2_contingency) |

Each difference has its 95% interval: Newcombe's hybrid score interval for a difference of two
proportions (statsmodels `confint_proportions_2indep`, method "newcomb"), and for a difference of
medians a percentile bootstrap (scipy.stats.bootstrap, 2,000 resamples of each side, seeded, so the
same games give the same interval).
"""
from __future__ import annotations

import math
import statistics

from scipy.stats import chi2_contingency, fisher_exact, mannwhitneyu
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05
FISHER = "Fisher's exact test (scipy.stats.fisher_exact)"
MANN_WHITNEY = "Mann-Whitney U test, two-sided (scipy.stats.mannwhitneyu)"
CHI2 = "chi-square test of homogeneity (scipy.stats.chi2_contingency)"
SHORT = {FISHER: "Fisher", MANN_WHITNEY: "Mann-Whitney U", CHI2: "chi-square"}
CORRECTION = "Holm (statsmodels.stats.multitest.multipletests, method='holm')"
INTERVALS = {FISHER: "Newcombe's hybrid score interval (statsmodels confint_proportions_2indep, method='newcomb')",
             MANN_WHITNEY: "percentile bootstrap of the difference of medians (scipy.stats.bootstrap, 2,000 "
                           "resamples, seeded)"}


def _share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def _proportion(name, a_hits, a_total, b_hits, b_total) -> dict:
    a, b = _share(a_hits, a_total), _share(b_hits, b_total)
    p = ci = None
    if a_total and b_total:
        p = float(fisher_exact([[a_hits, a_total - a_hits], [b_hits, b_total - b_hits]])[1])
        from statsmodels.stats.proportion import confint_proportions_2indep
        low, high = confint_proportions_2indep(b_hits, b_total, a_hits, a_total, method="newcomb", compare="diff")
        ci = [round(float(low), 4), round(float(high), 4)]
    return {"figure": name, "a": a, "b": b, "difference": None if a is None or b is None else round(b - a, 4),
            "ci95": ci, "test": FISHER, "p": p}


def _lengths(name, a_values, b_values) -> dict:
    a = statistics.median(a_values) if a_values else None
    b = statistics.median(b_values) if b_values else None
    p = None
    if a_values and b_values:
        p = 1.0 if sorted(a_values) == sorted(b_values) else float(
            mannwhitneyu(a_values, b_values, alternative="two-sided").pvalue)
        if math.isnan(p):  # no test where both sides are one repeated value
            p = None
    return {"figure": f"{name} (median)", "a": a, "b": b, "difference": None if a is None or b is None else b - a,
            "ci95": _median_gap(a_values, b_values), "test": MANN_WHITNEY, "p": p}


def _median_gap(a_values, b_values) -> list[float] | None:
    """The 95% percentile-bootstrap interval of median(B) - median(A) (None with fewer than two
    values a side)."""
    if len(a_values) < 2 or len(b_values) < 2:
        return None
    import numpy as np
    from scipy.stats import bootstrap

    def gap(a, b, axis=-1):
        return np.median(b, axis=axis) - np.median(a, axis=axis)
    ci = bootstrap((np.asarray(a_values, float), np.asarray(b_values, float)), gap, n_resamples=2000,
                   method="percentile", vectorized=True, random_state=np.random.default_rng(0)).confidence_interval
    return [round(float(ci.low), 3), round(float(ci.high), 3)]


def _reasons(a_records, b_records) -> dict | None:
    reasons = sorted({r["reason"] or "" for r in a_records + b_records if r["status"] == "finished"})
    if len(reasons) < 2:
        return None
    rows = [[sum(r["status"] == "finished" and (r["reason"] or "") == x for r in side) for x in reasons]
            for side in (a_records, b_records)]
    if not all(sum(row) for row in rows):
        return None
    p = 1.0 if rows[0] == rows[1] else float(chi2_contingency(rows)[1])
    return {"figure": "how the games ended", "a": dict(zip(reasons, rows[0])), "b": dict(zip(reasons, rows[1])),
            "difference": None, "ci95": None, "test": CHI2, "p": p}


def compare(a_records: list[dict], b_records: list[dict], players: int) -> list[dict]:
    """Every compared figure of two runs of games: value on each side, difference (B minus A), the
    test, its p-value, Holm's corrected p-value and whether it is significant at 5%."""
    done_a = [r for r in a_records if r["status"] == "finished"]
    done_b = [r for r in b_records if r["status"] == "finished"]
    rows = [_proportion("games finished", len(done_a), len(a_records), len(done_b), len(b_records))]
    for seat in range(players):
        rows.append(_proportion(f"P{seat + 1} win rate", sum(seat in r["winners"] for r in done_a), len(done_a),
                                sum(seat in r["winners"] for r in done_b), len(done_b)))
    for key in ("rounds", "decisions"):
        rows.append(_lengths(key, [r[key] for r in done_a], [r[key] for r in done_b]))
    ended = _reasons(a_records, b_records)
    if ended is not None:
        rows.append(ended)
    tested = [r for r in rows if r["p"] is not None]
    if tested:
        reject, corrected, _, _ = multipletests([r["p"] for r in tested], alpha=ALPHA, method="holm")
        for r, bad, q in zip(tested, reject, corrected):
            r["p_holm"] = float(q)
            r["significant"] = bool(bad)
    for r in rows:
        r.setdefault("p_holm", None)
        r.setdefault("significant", False)
    return rows
