"""Simultaneous choices (issue 29, point 1): `together p in players choose ...`. Every player of the
list makes the choice without seeing the others'; once all have chosen the choices are revealed and
the body runs for each player in the list's order. Views and players' traces keep a choice from the
others until then, a view's dealing gives the choices it hides a legal value, the engine's decision
says it is one, and the bots take the others' parts as unknown."""
from __future__ import annotations

import random

import numpy as np
import pytest

from interpreter.bots.evaluation import Evaluation
from interpreter.bots.lookahead import _scored
from interpreter.core.chance import Sampler
from interpreter.engine import Engine
from interpreter.env import RulesetAECEnv
from interpreter.tools.agents import make_agents, play
from rulesdsl import unparse
from rulesdsl.parser import parse

from .conftest import ROOT, player_traces

RULESET = ROOT / "tests" / "rulesets" / "together.lf"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(RULESET)


def events_of(engine, st, labels):
    """Apply the options named by `labels` in turn; the trace events they caused."""
    out = []
    for label in labels:
        engine.apply(st, label, out.append)
    return out


def test_the_statement_reads_back_as_written():
    printed = unparse.program(parse(RULESET.read_text(), str(RULESET)).items)
    assert 'together p in players choose c in p.hand "card to play" {' in printed
    assert 'together p in players choose "bet" {' in printed
    assert unparse.program(parse(printed, "again.lf").items) == printed


def test_each_player_chooses_unseen_then_all_are_revealed_and_run_in_the_lists_order(engine):
    st = engine.new_game(3, 1)
    assert [engine.current_player(st)] == [0]
    events = events_of(engine, st, ["Blue", "Green", "Blue"])
    kinds = [(e["event"], e["player"]) for e in events if e["event"] in ("choice", "together", "move", "counter")]
    assert kinds[:4] == [("choice", "P1"), ("choice", "P2"), ("choice", "P3"), ("together", None)]
    choices = [e for e in events if e["event"] == "choice"]
    assert all(e["data"]["together"] and not e["data"]["public"] for e in choices)
    shown = next(e for e in events if e["event"] == "together")
    assert shown["data"] == {"prompt": "card to play", "choices": {"P1": "Blue", "P2": "Green", "P3": "Blue"}}
    # The bodies in seat order, after the reveal: P2's Green is the only card no one matched.
    moves = [(e["data"]["from"], e["data"]["card"]) for e in events if e["event"] == "move"]
    assert moves == [("P1.hand", "Blue"), ("P2.hand", "Green"), ("P3.hand", "Blue")]
    assert st.counters["score"] == [0, 3, 0]
    # The menu: `bold` is offered only to a player with 2 points or more.
    assert engine.legal(st) == ["safe"]
    engine.apply(st, "safe")
    assert engine.current_player(st) == 1 and engine.legal(st) == ["safe", "bold"]


def test_a_player_with_nothing_to_choose_is_passed_over(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    text = RULESET.read_text().replace("for p in players { create defs(Token) into p.hand }",
                                       "create defs(Token) into player(1).hand")
    (tmp_path / "t.lf").write_text(text)
    engine = Engine.load(tmp_path / "t.lf")
    st = engine.new_game(2, 1)
    assert engine.current_player(st) == 0
    events = events_of(engine, st, ["Blue"])
    # P2 has no card: only P1 is asked, and only P1's body runs.
    shown = next(e for e in events if e["event"] == "together")
    assert shown["data"]["choices"] == {"P1": "Blue"}
    assert [(e["data"]["card"], e["data"]["to"]) for e in events if e["event"] == "move"] == [("Blue", "P1.played")]


def test_the_decision_says_it_is_a_part_of_a_together(engine):
    st = engine.new_game(2, 1)
    d = engine.decision(st)
    assert d.together and d.kind == "bind" and engine.together(st)
    events_of(engine, st, ["Red", "Red"])
    d = engine.decision(st)
    assert d.together and d.kind == "jump" and [o.id for o in engine.options(st)] == ["option:safe"]
    assert engine.decision_span(st).line == RULESET.read_text().splitlines().index(
        '        together p in players choose "bet" {') + 1


def swapped_choice(st, player: int):
    """A copy of `st` where `player`'s kept choice is another card of their hand."""
    other = st.clone()
    fr = other.stack[-1]
    store = next(k for k in fr.env if k.startswith("$together"))
    entry = next(e for e in fr.env[store]["done"] if e[0] == player)
    hand = other.zones[f"P{player + 1}.hand"]
    entry[1] = next(c for c in hand if other.card_def[c] != other.card_def[entry[1]])
    return other


def test_a_view_does_not_tell_the_others_choices_until_all_are_revealed(engine):
    st = engine.new_game(3, 2)
    events_of(engine, st, ["Red", "Green"])
    assert engine.current_player(st) == 2
    for chooser in (0, 1):
        other = swapped_choice(st, chooser)
        for viewer in range(3):
            same = engine.view(st, viewer) == engine.view(other, viewer)
            assert same == (viewer != chooser), (chooser, viewer)
    # Once all have chosen, the revealed choices are known to all.
    engine.apply(st, "Blue")
    for viewer in range(3):
        played = engine.view(st, viewer).data["zones"]
        assert [played[f"P{p}.played"] for p in (1, 2, 3)] == [["Red"], ["Green"], ["Blue"]]


def test_a_dealt_game_gives_the_choices_it_does_not_know_a_legal_value(engine):
    st = engine.new_game(3, 2)
    events_of(engine, st, ["Red", "Green"])
    rng = random.Random(5)
    seen = set()
    for viewer in (2, 0):  # P3, to choose now; P1, whose view asks P3's question again
        v = engine.view(st, viewer)
        for _ in range(30):
            dealt = engine.determinize(v, rng)
            assert engine.current_player(dealt) == 2 and engine.view(dealt, viewer) == v
            t = next(val for k, val in dealt.stack[-1].env.items() if k.startswith("$together"))
            for p, card, label in t["done"]:
                assert dealt.loc[card] == f"P{p + 1}.hand" and engine.names[dealt.card_def[card]] == label
                seen.add((viewer, p, label))
            engine.apply(dealt, 0)  # and the game goes on: the choices are revealed and run
            assert sum(len(dealt.zones[f"P{p}.played"]) for p in (1, 2, 3)) == 3
    # P3's deals try every card of the others; P1 keeps its own choice, Red.
    assert {label for viewer, p, label in seen if viewer == 2} == {"Red", "Blue", "Green"}
    assert {label for viewer, p, label in seen if viewer == 0 and p == 0} == {"Red"}


def test_a_players_trace_masks_the_others_parts_and_shows_the_reveal(engine):
    st = engine.new_game(3, 3)
    (own, other), both = player_traces(engine, 0, 1)
    for label in ["Red", "Green", "Blue"]:
        engine.apply(st, label, both)
    def parts(trace):
        return [(e["player"], e["data"]["choice"]) for e in trace if e["event"] == "choice"]
    assert parts(own) == [("P1", "Red"), ("P2", "?"), ("P3", "?")]
    assert parts(other) == [("P1", "?"), ("P2", "Green"), ("P3", "?")]
    for trace in (own, other):
        assert next(e for e in trace if e["event"] == "together")["data"]["choices"] == \
            {"P1": "Red", "P2": "Green", "P3": "Blue"}


def test_after_its_own_part_a_bot_judges_the_game_once_every_part_is_revealed(engine):
    # Whichever seat chooses, the copy it scores has the step settled: the others' parts taken
    # at random and every card played, so the first to choose and the last are judged alike.
    st = engine.new_game(3, 4)
    evaluation = Evaluation(engine)
    for seat in range(3):
        base = engine.determinize(engine.view(st, seat), random.Random(seat))
        evaluation.anchor(base)
        copy, score = _scored(engine, evaluation, base, 0, seat, 7)
        assert [len(copy.zones[f"P{p}.hand"]) for p in (1, 2, 3)] == [2, 2, 2]
        engine.apply(st, 0)


@pytest.mark.parametrize("agents", ["greedy", "mcts:iterations=30", "random"])
def test_bots_play_a_together_game_to_its_end_and_again_alike(engine, agents):
    def trace():
        out = []
        st = engine.new_game(3, 8)
        play(engine, st, make_agents(agents, 3, 8, engine), out.append)
        assert engine.is_over(st)
        return out
    assert trace() == trace()


def test_the_environment_plays_it_and_observes_no_other_part():
    env = RulesetAECEnv(RULESET, players=3)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    engine = Engine.load(RULESET)
    st = engine.new_game(3, 2)
    events_of(engine, st, ["Red", "Green"])
    enc = env.encoder
    assert np.array_equal(enc.encode(engine.view(st, 2)), enc.encode(engine.view(swapped_choice(st, 0), 2)))


SECRET_NUMBERS = """
game "S" { players 2..2 cards "tiny.toml" round_limit 3 }
kind Token { value: int }
counter got = 0 per player
round {
    phase a {
        together p in players secretly choose n in 1..3 "number" {
            choose "confirm" by p {
                option yes { set p.got += n }
                option no { }
            }
        }
    }
}
victory for p after a { score g = p.got; win if false; rank by g }
"""


def test_a_secret_choice_stays_secret_while_its_body_runs(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "s.lf").write_text(SECRET_NUMBERS)
    engine = Engine.load(tmp_path / "s.lf")
    one, three = engine.new_game(2, 1), engine.new_game(2, 1)
    events_of(engine, one, ["1", "1"])
    events_of(engine, three, ["3", "1"])
    # P1 confirms their number: P2 may not tell 1 from 3; P1's own view does.
    assert engine.decision(one)[:2] == (0, "confirm") == engine.decision(three)[:2]
    assert engine.view(one, 1) == engine.view(three, 1) and engine.view(one, 0) != engine.view(three, 0)
    for p in (0, 1):
        v = engine.view(three, p)
        assert engine.view(engine.determinize(v, random.Random(p)), p) == v
