"""Zones kept one per value and zones passed around the table (issue 29, point 7): `zone stacks:
pile of Card per Colour` is one zone per value of an enum (or of an enum field of the kind), read
`stacks[c.colour]`; `pass hand to next` moves every player's zone to the next player at once."""
from __future__ import annotations

import random

import pytest

from interpreter.bots.features import FeatureLayout
from interpreter.core.place import Place, place
from interpreter.engine import Engine
from interpreter.env import ObservationEncoder
from interpreter.tools.agents import make_agents, play
from interpreter.tools.trace import render
from rulesdsl import unparse
from rulesdsl.parser import parse

from .conftest import ROOT, player_traces

KEYED = ROOT / "tests" / "rulesets" / "keyed.lf"
DRAFT = ROOT / "tests" / "rulesets" / "draft.lf"


@pytest.fixture(scope="module")
def keyed():
    return Engine.load(KEYED)


@pytest.fixture(scope="module")
def draft():
    return Engine.load(DRAFT)


def test_a_zone_per_value_has_one_zone_per_value_named_by_its_key(keyed):
    assert keyed.zone_keys == {"stacks": ("stacks[red]", "stacks[blue]"),
                               "discards": ("discards[red]", "discards[blue]")}
    st = keyed.new_game(2, 2)
    assert {k for k in st.zones if "[" in k} == {"stacks[red]", "stacks[blue]", "discards[red]", "discards[blue]"}
    assert place("stacks[red]") == Place("stacks", part="red") and Place("stacks", part="red").key == "stacks[red]"
    printed = unparse.program(parse(KEYED.read_text(), str(KEYED)).items)
    assert "zone stacks: pile of Card per Colour" in printed and "zone discards: pile of Card hidden except top per colour" in printed


def test_a_card_goes_to_the_zone_its_value_names(keyed):
    st = keyed.new_game(2, 2)
    events = []
    # P1 holds Blue 2 and Red 1: Red 1 is the next red card, so it is stacked; Blue 2 is not.
    keyed.apply(st, "Red 1", events.append)
    moves = [(e["data"]["card"], e["data"]["to"]) for e in events if e["event"] == "move"]
    assert moves[0] == ("Red 1", "stacks[red]")
    keyed.apply(st, "Red 2", events.append)
    assert [st.card_def[c] for c in st.zones["stacks[red]"]] and len(st.zones["stacks[red]"]) == 2
    keyed.apply(st, "Blue 2", events.append)
    assert len(st.zones["discards[blue]"]) == 1
    assert render(next(e for e in events if e["event"] == "move" and e["data"]["to"] == "discards[blue]")) == \
        ["    Blue 2: P1.hand -> discards[blue]"]


def test_each_zone_of_a_zone_per_value_is_seen_as_declared(keyed):
    st = keyed.new_game(2, 2)
    for label in ["Red 1", "Red 2", "Blue 2", "Blue 2"]:
        keyed.apply(st, label)
    v = keyed.view(st, 0)
    # `discards` is `hidden except top`: its top card only; `stacks` is public.
    assert v.data["zones"]["discards[blue]"] == [None, "Blue 2"]
    assert v.data["zones"]["stacks[red]"] == ["Red 1", "Red 2"]
    dealt = keyed.determinize(v, random.Random(0))
    assert [keyed.names[dealt.card_def[c]] for c in dealt.zones["stacks[red]"]] == ["Red 1", "Red 2"]


def test_bots_features_and_observations_count_each_zone_of_a_zone_per_value(keyed):
    for agents in ("greedy", "mcts:iterations=20"):
        st = keyed.new_game(2, 4)
        play(keyed, st, make_agents(agents, 2, 4, keyed))
        assert keyed.is_over(st)
    features = FeatureLayout(keyed, 2)
    assert any("stacks[red]" in label for label in features.labels)
    enc = ObservationEncoder(keyed, 2)
    assert any("zone stacks[blue]" in label for label, _, _ in enc.layout)
    st = keyed.new_game(2, 2)
    keyed.apply(st, "Red 1")
    assert enc.encode(keyed.view(st, 1)).sum() > 0


def test_every_hand_goes_to_the_next_player_at_once(draft):
    st = draft.new_game(3, 1)
    events = []
    for label in ["Red 1", "Red 2", "Red 1"]:
        draft.apply(st, label, events.append)
    passed = next(e for e in events if e["event"] == "pass")
    assert passed["data"] == {"zone": "hand", "to": "next", "cards": {"P1": 3, "P2": 3, "P3": 3}}
    assert render(passed) == ["    every hand passed to the next player (now: P1 3, P2 3, P3 3)"]
    # P1's hand now is what P3 had after keeping Red 1: Blue 1, Blue 2, Red 2.
    assert sorted(draft.names[st.card_def[c]] for c in st.zones["P1.hand"]) == ["Blue 1", "Blue 2", "Red 2"]
    assert all(st.loc[c] == key for key in ("P1.hand", "P2.hand", "P3.hand") for c in st.zones[key])
    # A player sees the hand they now hold, and no longer the one they passed.
    v = draft.view(st, 0)
    assert sorted(v.data["zones"]["P1.hand"]) == ["Blue 1", "Blue 2", "Red 2"]
    assert v.data["zones"]["P2.hand"] == [None, None, None]


def test_a_draft_keeps_each_choice_from_the_others(draft):
    st = draft.new_game(3, 1)
    (own, other), both = player_traces(draft, 0, 1)
    for label in ["Red 1", "Red 2", "Red 1"]:
        draft.apply(st, label, both)
    assert next(e for e in own if e["event"] == "together")["data"]["choices"] == {"P1": "Red 1", "P2": "?", "P3": "?"}
    assert next(e for e in other if e["event"] == "together")["data"]["choices"] == {"P1": "?", "P2": "Red 2", "P3": "?"}
    # Nor is a kept card shown to all: P2 does not see what P1 kept.
    assert draft.view(st, 1).data["zones"]["P1.kept"] == [None]
    st2 = draft.new_game(3, 7)
    play(draft, st2, make_agents("greedy", 3, 7, draft))
    assert draft.is_over(st2) and all(len(st2.zones[f"P{p}.kept"]) == 4 for p in (1, 2, 3))
