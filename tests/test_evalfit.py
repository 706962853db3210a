"""`lfdsl fit-eval`: the winner fitted on an evaluation's named scores (interpreter/lab/evalfit.py)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from interpreter.tools.cli import main
from interpreter.engine import Engine
from interpreter.lab import evalfit

ROOT = Path(__file__).resolve().parent.parent

# The race's evaluation, written backwards: `rank by` puts the player with the fewest points first.
# `zero` never varies and `double` is twice `points`: neither can be weighed.
EVALUATE = """
evaluate for p {
    score points = total(p)
    score laps = p.reached
    score zero = 0
    score double = 2 * points
    rank by 0 - points
}
"""


@pytest.fixture
def race(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path = tmp_path / "race.lf"
    path.write_text((ROOT / "tests" / "rulesets" / "race.lf").read_text() + EVALUATE)
    return path


def test_points_predict_the_winner_and_a_backwards_rank_is_told(race):
    engine = Engine.load(race)
    rows, finished = evalfit.collect(engine, "random", 2, 40, seed=1)
    assert finished == 40 and rows
    result = evalfit.fit(["points", "laps", "zero", "double"], rows, 2, 40, finished)
    weights = {w.name: w for w in result.weights}
    # The race is won on points: their weight is positive and its interval is clear of 0.
    assert weights["points"].low > 0
    assert set(weights) == {"points", "laps"}
    assert dict(result.dropped) == {"zero": "never varies", "double": "a sum of multiples of the scores before it"}
    # The backwards rank puts a loser first more often than a guess would; the fit does better.
    assert result.rank_hits < result.chance < result.fitted_hits
    assert result.suggestion.startswith("rank by 10 * points")


def test_top_hits_share_ties_and_suggestion_writes_whole_numbers():
    values = np.array([3.0, 1.0, 2.0, 2.0])
    won = np.array([1.0, 0.0, 0.0, 1.0])
    # Position 1: the first player is best and won; position 2: a tie, one of the two won.
    assert evalfit._top_hits(values, won, 2) == pytest.approx(0.75)
    weights = [evalfit.Weight("a", 0.5, 0, 1), evalfit.Weight("b", -0.25, -1, 0), evalfit.Weight("c", 0.01, 0, 1)]
    assert evalfit.suggestion(weights) == "rank by 10 * a - 5 * b"
    assert evalfit.suggestion([evalfit.Weight("a", -0.5, -1, 0)]) == "rank by -10 * a"
    assert evalfit.suggestion([]) is None


def test_a_fit_without_winners_is_a_clear_error():
    with pytest.raises(evalfit.FitError, match="no game finished"):
        evalfit.fit(["a"], [], 2, 3, 0)
    rows = [(0, [({"a": 1}, 1), ({"a": 2}, 2)], set())]
    with pytest.raises(evalfit.FitError, match="every player lost"):
        evalfit.fit(["a"], rows, 2, 1, 1)


def test_command_prints_the_weights_and_writes_json(race, tmp_path, capsys):
    out = tmp_path / "fit.json"
    assert main(["fit-eval", str(race), "--games", "30", "--agents", "random", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "points" in printed and "not weighed: never varies" in printed
    assert "the fitted weights as a rank by line" in printed
    data = json.loads(out.read_text())
    assert data["games"] == 30 and data["agents"] == "random"
    assert [w["score"] for w in data["weights"]] == ["points", "laps"]
    assert data["suggested_rank_by"].startswith("rank by 10 * points")


def test_command_refuses_a_ruleset_without_evaluate_block_and_bad_values(tmp_path, capsys):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    plain = tmp_path / "race.lf"
    plain.write_text((ROOT / "tests" / "rulesets" / "race.lf").read_text())
    assert main(["fit-eval", str(plain)]) == 2
    assert "has no `evaluate` block" in capsys.readouterr().err
    good = tmp_path / "good.lf"
    good.write_text(plain.read_text() + EVALUATE)
    assert main(["fit-eval", str(good), "--every", "0"]) == 2
    assert "--every must be at least 1" in capsys.readouterr().err
    assert main(["fit-eval", str(good), "--agents", "greedy,greedy,greedy,greedy"]) == 2
    assert "4 agents for 2 players" in capsys.readouterr().err
    assert main(["fit-eval", str(good), "--agents", "gredy"]) == 2
    err = capsys.readouterr().err
    assert "gredy" in err and "Traceback" not in err


def test_scores_that_separate_winners_exactly_are_a_clear_error():
    # One position per game, the winner always ahead on `a`: a logistic fit has no finite answer.
    rows = [(g, [({"a": 5 + g % 3}, 0), ({"a": 1}, 0)], {0}) for g in range(12)]
    with pytest.raises(evalfit.FitError, match="perfectly"):
        evalfit.fit(["a"], rows, 2, 12, 12)
