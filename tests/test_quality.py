"""How the game plays (issue 30, points 2 and 3; interpreter/lab/quality.py): each measure on a small
game built to give it a known value, the per-round curves, and their place in `simulate`'s output,
JSON and page."""
from __future__ import annotations

import json

import pytest

from interpreter.engine import Engine
from interpreter.lab.figures import summarize
from interpreter.lab.games import play_many
from interpreter.lab.quality import decided_at, lead_changes, leader, skill_spread
from interpreter.tools.cli import main

from .conftest import ROOT

HEAD = """
game "G" { players 2..2 cards "tiny.toml" round_limit ROUNDS }
kind Token { value: int }
counter points = 0 per player
counter turns = 0
"""
TAIL = """
victory for p after b { score s = p.points; win if false; rank by s }
evaluate for p { score s = p.points; rank by s }
"""
# P1's first move decides the game: ten points, and nothing else ever scores.
FIRST = """
round {
    phase a each p { choose "move" { option go { if turns == 0 { set p.points += 10 } set turns += 1 } } }
    phase b { if turns >= 6 { end game "three rounds" } }
}
"""
# The lead changes hands every round: P1 overtakes in odd rounds, P2 in even ones.
SEESAW = """
counter r = 0
round {
    phase a each p {
        choose "move" {
            option go {
                if (r % 2 == 0 and p == player(1)) or (r % 2 == 1 and p == player(2)) {
                    set p.points = sum(players, q: q.points) + 1
                }
            }
        }
    }
    phase b { set r += 1  if r >= 6 { end game "six rounds" } }
}
"""
# A coin decides: the moves do nothing; one point to a player drawn at random.
COIN = """
round {
    phase a each p { choose "move" { option heads { } option tails { } } }
    phase b { set random(players).points += 1  end game "the coin fell" }
}
"""
# Skill tells: each player takes 0 to 5 points once, over the 10 each starts with; the more, the better.
SKILL = """
setup { for p in players { set p.points = 10 } }
round {
    phase a each p { choose n in 0..5 "points" { set p.points += n } }
    phase b { end game "one turn each" }
}
"""
# Always a draw, or never an end.
TIE = """
round {
    phase a each p { choose "move" { option go { set p.points += 1 } } }
    phase b { if turns >= 0 { end game "even" } }
}
"""
STALL = """
round {
    phase a each p { choose "move" { option go { } } }
    phase b { }
}
"""


def _engine(tmp_path, body, rounds=20, name="g"):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / f"{name}.lf").write_text(HEAD.replace("ROUNDS", str(rounds)) + body + TAIL)
    return Engine.load(tmp_path / f"{name}.lf")


def _quality(engine, games=20, agents="random"):
    return summarize(play_many(engine, 2, agents, range(1, games + 1)), 2)


def test_leaders_changes_and_the_point_of_decision():
    assert leader([3, 3]) is None and leader([1, 4]) == 1 and leader([]) is None
    assert lead_changes([[0, 0], [1, 0], [1, 1], [1, 2], [3, 2]]) == 2  # a tie passes over
    assert decided_at([[0, 0], [1, 0], [0, 1], [2, 1], [3, 1]], 0) == 3
    assert decided_at([[1, 0], [0, 1]], 0) is None


def test_a_game_decided_by_the_first_move(tmp_path):
    f = _quality(_engine(tmp_path, FIRST))
    q = f["quality"]
    assert q["decisiveness"]["round"]["mean"] == 1 and q["decisiveness"]["round"]["n"] == 20
    assert q["lead_changes"]["mean"] == 0
    # The first player always wins: half the games more than a fair share, the interval above 0.
    assert q["first_player_advantage"]["value"] == 0.5 and q["first_player_advantage"]["ci95"][0] > 0.3
    assert q["drama"]["mean"] == pytest.approx(1 / 3, abs=1e-3)  # not ahead as round 1 began (a tie), then ahead
    assert q["phases"] == {"a": {"decisions_per_game": {"mean": 6.0, "ci95": [6.0, 6.0], "n": 20},
                                 "branching": 1.0}}
    # Per-round curves: P1 leads by 10 from round 2 on.
    assert [c["round"] for c in f["curves"]] == [1, 2, 3]
    assert f["curves"][0]["mean"] == [0.0, 0.0] and f["curves"][1]["mean"] == [10.0, 0.0]


def test_a_seesaw_changes_leader_every_round_and_is_decided_at_the_end(tmp_path):
    q = _quality(_engine(tmp_path, SEESAW))["quality"]
    assert q["lead_changes"]["mean"] == 5  # P1, P2, P1, P2, P1 as rounds 2-6 begin, then P2 at the end
    assert q["decisiveness"]["share_of_game"]["mean"] == 1.0 and q["decisiveness"]["round"]["mean"] == 6
    assert q["drama"]["mean"] == pytest.approx(4 / 6, abs=1e-3)  # P2 led as rounds 3 and 5 began only
    assert q["first_player_advantage"]["value"] == -0.5


def test_draws_and_stalls(tmp_path):
    q = _quality(_engine(tmp_path, TIE, name="tie"))["quality"]
    assert q["drawishness"]["share"] == 1.0 and q["stalls"]["share"] == 0.0
    q = _quality(_engine(tmp_path, STALL, rounds=3, name="stall"))["quality"]
    assert q["stalls"]["share"] == 1.0 and q["stalls"]["ci95"][0] > 0.8 and q["lead_changes"]["n"] == 0


def test_skill_spread_is_nothing_in_a_game_of_luck_and_much_in_a_game_of_skill(tmp_path):
    luck = skill_spread(_engine(tmp_path, COIN, name="coin"), 2, 100)
    assert luck["ci95"][0] < 0 < luck["ci95"][1]
    skill = skill_spread(_engine(tmp_path, SKILL, name="skill"), 2, 40)
    assert skill["ci95"][0] > 0.2
    # A ladder of three: every pair is played, the spread is the strongest against the weakest.
    three = skill_spread(_engine(tmp_path, SKILL, name="skill"), 2, 10, bots=("greedy", "first", "random"))
    assert [(p["strong"], p["weak"]) for p in three["pairs"]] == [("greedy", "first"), ("greedy", "random"),
                                                                    ("first", "random")]
    assert (three["strong"], three["weak"]) == ("greedy", "random")


def test_simulate_prints_writes_and_draws_how_the_game_plays(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    _engine(tmp_path, FIRST)
    out_json, page = tmp_path / "s.json", tmp_path / "s.html"
    assert main(["simulate", str(tmp_path / "g.lf"), "--games", "10", "--agents", "random", "--workers", "1",
                 "--spread", "--json", str(out_json), "--report", str(page)]) == 0
    printed = capsys.readouterr().out
    for text in ("How the game plays", "first-player advantage", "decisiveness", "drama", "lead changes",
                 "Per phase", "Skill spread: greedy against random"):
        assert text in printed
    doc = json.loads(out_json.read_text())
    assert doc["quality"]["decisiveness"]["round"]["mean"] == 1 and "skill_spread" in doc["quality"]
    assert doc["curves"][1]["mean"] == [10.0, 0.0]
    html = page.read_text()
    assert "How the game plays" in html and "Standing as each round begins" in html  # the curves' plot
    assert html.count("<svg") >= 4 and "skill spread" in html


def test_a_game_of_one_has_no_first_player_and_its_losses_are_no_draws(tmp_path):
    solo = HEAD.replace("players 2..2", "players 1..1") + """
round {
    phase a each p { choose "move" { option win { win p "scored" } option lose { lose p "missed" } } }
    phase b { }
}
"""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "solo.lf").write_text(solo.replace("ROUNDS", "5"))
    engine = Engine.load(tmp_path / "solo.lf")
    f = summarize(play_many(engine, 1, "random", range(1, 21)), 1)
    assert 0 < f["seats"][0]["wins"] < 20  # some games won, some lost
    assert f["quality"]["first_player_advantage"] is None and f["quality"]["drawishness"]["share"] == 0.0
