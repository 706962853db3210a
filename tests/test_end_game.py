"""`end game ["reason"]`: the game stops at once, wherever it is, and the victory block decides it."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from interpreter.tools.trace import ListSink

from .conftest import ROOT

RULES = """
game "Ending" { players 2..3 cards "tiny.toml" round_limit 5 }
kind Token { value: int }
counter points = 0 per player
counter after = 0
round {
    phase score each p {
        set p.points += seat(p) * BONUS
        if p == player(2) {
            let end = 1
            end game "the second player scored"
            set after += end
        }
    }
    phase never {
        set after += 100
    }
}
VICTORY
"""

VICTORY = """
victory for p after never {
    score total = p.points
    win if total >= GOAL "a goal reached"
    rank by total
}
"""


def play(tmp_path, bonus=1, goal=99, victory=VICTORY, players=2):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    text = RULES.replace("VICTORY", victory.replace("GOAL", str(goal))).replace("BONUS", str(bonus))
    (tmp_path / "ending.lf").write_text(text)
    engine = Engine.load(tmp_path / "ending.lf")
    sink = ListSink()
    st = engine.new_game(players, 1, sink=sink)
    return st, sink.events


def test_the_game_stops_at_once_and_the_best_rank_wins_when_nobody_met_a_goal(tmp_path):
    st, events = play(tmp_path, players=3)
    assert st.stage == "over" and st.pending is None and st.stack == []
    assert st.counters["after"] == 0          # nothing after `end game`, no later phase
    assert st.counters["points"] == [1, 2, 0]  # the third player's turn never came
    assert st.round == 1
    assert st.result["winners"] == ["P2"]
    assert st.result["reason"] == "the second player scored; the best rank (2)"
    assert st.result["reached"] == [] and st.result["rank"] == {"P1": 1, "P2": 2, "P3": 0}
    assert events[-1]["event"] == "game_end"


def test_a_player_meeting_a_goal_wins_as_after_the_phase(tmp_path):
    st, _ = play(tmp_path, bonus=3, goal=4)   # P1 3 points, P2 6: only P2 reaches 4
    assert st.result["winners"] == ["P2"] and st.result["reason"] == "a goal reached"
    assert st.result["reached"] == ["P2"]


def test_equal_best_ranks_share_the_win(tmp_path):
    victory = VICTORY.replace("rank by total", "rank by 7")
    st, _ = play(tmp_path, victory=victory)
    assert st.result["winners"] == ["P1", "P2"]
    assert st.result["reason"] == "the second player scored; shared win at equal rank (7)"


def test_without_a_victory_block_nobody_wins(tmp_path):
    st, _ = play(tmp_path, victory="")
    assert st.stage == "over" and st.result["winners"] == []
    assert st.result["reason"] == "the second player scored"


def test_the_reason_may_be_left_out_and_the_statement_prints_back(tmp_path):
    from rulesdsl import ast as A
    from rulesdsl import unparse
    from rulesdsl.parser import parse
    text = RULES.replace('end game "the second player scored"', "end game").replace("VICTORY", "")
    text = text.replace("BONUS", "1")
    program = parse(text, "plain.lf")
    phase = next(i for i in program.items if isinstance(i, A.RoundDecl)).phases[0]
    ended = [s for s in phase.body[1].branches[0][1] if isinstance(s, A.EndGame)]  # in the `if`
    assert len(ended) == 1 and ended[0].reason is None
    assert unparse.stmt(ended[0], 0) == ["end game"]
    assert unparse.stmt(A.EndGame("why", ended[0].span), 1) == ['    end game "why"']
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "plain.lf").write_text(text)
    st = Engine.load(tmp_path / "plain.lf").new_game(2, 1)
    assert st.result["reason"] == "the game was ended" and st.result["winners"] == []


LAZY_RULES = """
game "Lazy" { players 2..2 cards "tiny.toml" round_limit 5 }
kind Token { value: int }
zone pile: row of Token
counter rounds = 0
setup { }
round {
    phase play {
        set rounds += 1
        if rounds == 3 {
            create defs(Token) into pile
            end game "three rounds"
        }
    }
}
victory for p after play {
    score share = 30 / count(pile)
    win if WIN
    rank by share + seat(p)
}
"""


def test_scores_no_win_line_reads_wait_for_the_end(tmp_path):
    # The pile is empty until the game ends: a score computed after rounds 1 and 2 would divide by 0.
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "lazy.lf").write_text(LAZY_RULES.replace("WIN", "rounds > 9"))
    engine = Engine.load(tmp_path / "lazy.lf")
    assert engine.program.victory_lazy
    st = engine.new_game(2, 1)
    assert st.result["winners"] == ["P2"] and st.result["counts"] == {"P1": {"share": 10}, "P2": {"share": 10}}
    assert st.result["rank"] == {"P1": 11, "P2": 12}
    # A win line that reads a score needs it every round: then the division by zero is met.
    (tmp_path / "lazy.lf").write_text(LAZY_RULES.replace("WIN", "share > 99"))
    engine = Engine.load(tmp_path / "lazy.lf")
    assert not engine.program.victory_lazy
    from interpreter.core.runtime import GameError
    with pytest.raises(GameError) as err:
        engine.new_game(2, 1)
    assert "lazy.lf:" in str(err.value)
