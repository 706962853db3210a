"""Games played in hands (issue 29, point 4): a `hand` block starts each hand (`start`), ends it
after a round in which `end if` holds or at once by `end hand`, closes it (`finish`), and the next
hand begins; counters carry over; the trace and the log say which hand each event belongs to."""
from __future__ import annotations

import random

import pytest

from interpreter.core.runtime import LimitError
from interpreter.engine import Engine
from interpreter.tools.agents import make_agents, play
from interpreter.tools.trace import render, result_lines
from rulesdsl import unparse
from rulesdsl.parser import parse

from .conftest import ROOT

RULESET = ROOT / "tests" / "rulesets" / "deals.lf"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(RULESET)


def played(engine, seed, players=2):
    events = []
    st = engine.new_game(players, seed, sink=events.append)
    play(engine, st, make_agents("random", players, seed), events.append)
    return st, events


def test_hands_follow_one_another_and_carry_the_points_over(engine):
    st, events = played(engine, 2)
    marks = [(e["event"], e["data"].get("hand"), e["data"].get("reason")) for e in events
             if e["event"] in ("hand", "hand_end")]
    assert marks == [("hand", 1, None), ("hand_end", 1, "every card is played"), ("hand", 2, None),
                     ("hand_end", 2, "every card is played"), ("hand", 3, None), ("hand_end", 3, "a big three")]
    # Every event after the set-up says its hand; the rounds start again in each hand.
    assert all(e["hand"] == 1 for e in events[1:5]) and "hand" not in events[0]
    rounds = [(e["hand"], e["round"]) for e in events if e["event"] == "state"]
    assert rounds == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    # The finish adds each hand's points to the total: 5 and 2, then 4 and 5, then 4 and 5.
    totals = [(e["player"], e["data"]["value"]) for e in events if e["event"] == "counter" and e["data"]["name"] == "points"]
    assert totals == [("P1", 5), ("P2", 2), ("P1", 9), ("P2", 7), ("P1", 13), ("P2", 12)]
    assert st.result["winners"] == ["P1"] and st.result["hand"] == 3 and st.result["reason"].startswith("10 points")
    assert "reason: 10 points; the best rank (13) (hand 3, round 2)" in result_lines(st.result)
    assert render(next(e for e in events if e["event"] == "hand_end")) == \
        ["==== end of hand 1: every card is played ===="]


def test_end_hand_drops_the_rest_of_the_round_and_runs_the_finish(engine):
    st, events = played(engine, 3)
    i = next(i for i, e in enumerate(events) if e["event"] == "hand_end")
    assert events[i]["data"] == {"hand": 1, "reason": "a big three"}
    turns = [(e["round"], e["player"]) for e in events[:i] if e["event"] == "turn"]
    # P1 played the big three in round 2: P2's turn of that round never came, and P2 keeps a card
    # until the finish; the next hand deals again.
    assert turns == [(1, "P1"), (1, "P2"), (2, "P1")]
    assert events[i + 1]["event"] == "counter" and events[i + 1]["data"]["name"] == "points"
    assert next(e for e in events[i:] if e["event"] == "hand")["data"] == {"hand": 2}


def test_a_game_that_never_ends_its_hands_stops_at_its_limits(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    text = RULESET.read_text()
    stuck = text.replace('if any(players where q: q.points >= 10) { end game "10 points" }', "")
    (tmp_path / "a.lf").write_text(stuck)
    with pytest.raises(LimitError, match="the game did not end within 10 hands"):
        played(Engine.load(tmp_path / "a.lf"), 2)
    (tmp_path / "b.lf").write_text(text.replace('end if all(players, count(it.hand) == 0) "every card is played"',
                                                "end if false"))
    with pytest.raises(LimitError, match="the hand did not end within 5 rounds"):
        played(Engine.load(tmp_path / "b.lf"), 4)


def test_views_say_the_hand_and_bots_play_through_hands(engine):
    st = engine.new_game(2, 3)
    v = engine.view(st, 0)
    assert v.data["hand"] == 1
    dealt = engine.determinize(v, random.Random(0))
    assert dealt.hand == 1 and engine.view(dealt, 0) == v
    for agents in ("greedy", "mcts:iterations=30"):
        st = engine.new_game(3, 6)
        play(engine, st, make_agents(agents, 3, 6, engine))
        assert st.result is not None and st.result["hand"] >= 2


def test_the_hand_block_reads_back_as_written():
    printed = unparse.program(parse(RULESET.read_text(), str(RULESET)).items)
    assert "hand {\n    begin {" in printed and '    end if all(players, count(it.hand) == 0) "every card is played"' in printed
    assert 'end hand "a big three"' in printed and "hand_limit 10" in printed
    assert unparse.program(parse(printed, "again.lf").items) == printed


def test_a_game_without_hands_keeps_its_trace_as_it_was():
    engine = Engine.load(ROOT / "tests" / "rulesets" / "together.lf")
    events = []
    st = engine.new_game(2, 1, sink=events.append)
    play(engine, st, make_agents("random", 2, 1), events.append)
    assert all("hand" not in e for e in events) and "hand" not in st.result and st.hand == 0
