"""Cards held facing the others (issue 29, point 3): a zone `public except owner` is seen by every
player but its owner. The owner's view, trace and options do not tell them their own cards: a card
they choose from such a hand is offered by its place (`card 2 of P1.hand`), and its option id names
the place, not the card."""
from __future__ import annotations

import random

import pytest

from interpreter.engine import Engine
from interpreter.tools.agents import make_agents, play
from rulesdsl import unparse
from rulesdsl.parser import parse

from .conftest import ROOT, player_traces

RULESET = ROOT / "tests" / "rulesets" / "facing.lf"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(RULESET)


def swapped_own_hand(st, player):
    """A copy where two different cards of `player`'s hand exchange what they are."""
    other = st.clone()
    hand = other.zones[f"P{player + 1}.hand"]
    i, j = next((i, j) for i in range(len(hand)) for j in range(len(hand))
                if other.card_def[hand[i]] != other.card_def[hand[j]])
    other.card_def[hand[i]], other.card_def[hand[j]] = other.card_def[hand[j]], other.card_def[hand[i]]
    return other


def test_everyone_sees_a_hand_but_its_owner(engine):
    st = engine.new_game(3, 2)
    for viewer in range(3):
        zones = engine.view(st, viewer).data["zones"]
        for owner in range(3):
            shown = zones[f"P{owner + 1}.hand"]
            assert (all(n is None for n in shown) if owner == viewer else all(n is not None for n in shown))
    printed = unparse.program(parse(RULESET.read_text(), str(RULESET)).items)
    assert "zone hand: row of Card public except owner per player" in printed


def test_the_owner_chooses_their_own_cards_by_place(engine):
    st = engine.new_game(2, 2)
    engine.apply(st, "play")
    assert engine.legal(st) == ["card 1 of P1.hand", "card 2 of P1.hand"]
    assert [o.id for o in engine.options(st)] == ["card:?1@P1.hand", "card:?2@P1.hand"]
    assert all(o.value is None for o in engine.options(st))
    # Whatever the hand holds, the owner is offered the same options and sees the same game.
    other = swapped_own_hand(st, 0)
    assert engine.legal(other) == engine.legal(st) and engine.options(other) == engine.options(st)
    assert engine.view(other, 0) == engine.view(st, 0) and engine.view(other, 1) != engine.view(st, 1)
    # The card played is seen by all once it lies in `played`.
    engine.apply(st, "card 2 of P1.hand")
    assert engine.view(st, 0).data["zones"]["played"] != [None]


def test_another_player_points_at_a_card_they_see_by_its_name(engine):
    st = engine.new_game(2, 2)
    engine.apply(st, "point")
    names = engine.legal(st)
    assert all(not n.startswith("card ") for n in names)


def test_the_owners_trace_and_a_dealt_game_keep_their_own_cards_from_them(engine):
    (own, other), both = player_traces(engine, 0, 1)
    st = engine.new_game(2, 1, sink=both)
    draws = [(e["data"]["card"], e["data"]["to"]) for e in own if e["event"] == "move"]
    assert draws[:2] == [("?", "P1.hand"), ("?", "P1.hand")] and all(c != "?" for c, _ in draws[2:])
    assert [c for c, to in ((e["data"]["card"], e["data"]["to"]) for e in other if e["event"] == "move")
            if to == "P2.hand"] == ["?", "?"]
    v = engine.view(st, 0)
    seen = set()
    for seed in range(20):
        dealt = engine.determinize(v, random.Random(seed))
        assert engine.view(dealt, 0) == v
        seen.add(tuple(sorted(engine.names[dealt.card_def[c]] for c in dealt.zones["P1.hand"])))
    assert len(seen) > 1  # the owner's own hand is dealt from what they do not see


@pytest.mark.parametrize("agents", ["greedy", "mcts:iterations=20", "random"])
def test_bots_play_with_their_own_cards_unseen(engine, agents):
    st = engine.new_game(3, 4)
    play(engine, st, make_agents(agents, 3, 4, engine))
    assert engine.is_over(st)


def test_a_label_does_not_name_a_card_its_chooser_does_not_see(tmp_path):
    (tmp_path / "colours.toml").write_text((ROOT / "tests" / "rulesets" / "colours.toml").read_text())
    (tmp_path / "l.lf").write_text(RULESET.read_text().replace(
        'choose c in p.hand "card to play" {', 'choose c in p.hand "card to play" label c.colour {'))
    labelled = Engine.load(tmp_path / "l.lf")
    st = labelled.new_game(2, 2)
    labelled.apply(st, "play")
    # Two cards of one colour would be one option under their label: by place, each is its own.
    assert labelled.legal(st) == ["card 1 of P1.hand", "card 2 of P1.hand"]
    assert labelled.legal(swapped_own_hand(st, 0)) == labelled.legal(st)
