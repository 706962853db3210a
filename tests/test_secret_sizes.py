"""Zones whose size some players do not know (issue 29, point 2): `size private` (known to the zone's
owner) and `size hidden` (known to nobody). A view holds neither such a zone's cards nor their
number, and gives no handle that would count them; a view's dealing shares the cards it cannot place
among those zones; players' traces write such a zone `?` in moves, shuffles, passes and states;
sights and observations count it as empty; a choice among its cards keeps its options from the
others; and the checker refuses a rule that would keep such a size in a name (tests/errors/lf/
secret_sizes.lf)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from interpreter.engine import Engine
from interpreter.env import ObservationEncoder
from interpreter.table.app import board_text
from interpreter.tools.agents import make_agents, play
from interpreter.tools.trace import render
from rulesdsl import unparse
from rulesdsl.parser import parse

from .conftest import ROOT, area, player_traces

RULESET = ROOT / "tests" / "rulesets" / "stash.lf"


@pytest.fixture(scope="module")
def engine():
    return Engine.load(RULESET)


def stashed(engine, players=3, seed=2, sink=None):
    """A game where P1 and P2 have each stashed a card and P3 has buried one in the vault, then P1
    has stashed a second card: P1's stash holds 2, P2's 1, the vault 1."""
    st = engine.new_game(players, seed)
    for label in ("stash", 0, "stash", 0, "bury", "stash", 0):
        engine.apply(st, label, sink)
    assert [len(st.zones[k]) for k in ("P1.stash", "P2.stash", "P3.stash", "vault")] == [2, 1, 0, 1]
    return st


def moved(st, source: str, dest: str):
    """A copy of `st` with the top card of zone `source` put on zone `dest`."""
    other = st.clone()
    card = other.zones[source].pop()
    other.zones[dest].append(card)
    other.loc[card] = dest
    return other


def test_a_view_holds_neither_the_cards_nor_the_size_of_a_zone_it_does_not_count(engine):
    st = stashed(engine)
    for viewer in range(3):
        zones = engine.view(st, viewer).data["zones"]
        assert zones["vault"] is None  # `size hidden`: nobody counts it
        for owner in range(3):
            # `size private` and `private`: its owner sees its cards, the others not even how many.
            stash = zones[f"P{owner + 1}.stash"]
            assert stash is None if owner != viewer else len(stash) == len(st.zones[f"P{owner + 1}.stash"])
            assert owner != viewer or None not in stash
        unknown = {p.key for p in engine.places(engine.view(st, viewer)) if p.unknown}
        assert unknown == {"vault"} | {f"P{o + 1}.stash" for o in range(3) if o != viewer}
    # A card more in P1's stash and one less in the vault: only P1 can tell.
    other = moved(st, "vault", "P1.stash")
    for viewer in range(3):
        assert (engine.view(st, viewer) == engine.view(other, viewer)) == (viewer != 0)
    # A card of P2's stash in P1's: P3 cannot tell, nor from P3's handles of the other cards.
    other = moved(st, "P2.stash", "P1.stash")
    assert engine.view(st, 2) == engine.view(other, 2)
    assert engine.view(st, 0) != engine.view(other, 0) and engine.view(st, 1) != engine.view(other, 1)


def test_a_dealt_game_shares_out_the_cards_it_cannot_place(engine):
    st = stashed(engine)
    v = engine.view(st, 2)  # P3: P1's stash, P2's stash and the vault hold 4 cards between them
    sizes = set()
    for seed in range(20):
        dealt = engine.determinize(v, random.Random(seed))
        assert engine.view(dealt, 2) == v
        shares = tuple(len(dealt.zones[k]) for k in ("P1.stash", "P2.stash", "vault"))
        assert sum(shares) == 4 and max(shares) - min(shares) <= 1 and len(dealt.zones["P3.stash"]) == 0
        sizes.add(shares)
    # As evenly as they go, the zone taking one more drawn at random.
    assert sizes == {(2, 1, 1), (1, 2, 1), (1, 1, 2)}


def test_views_of_random_games_deal_games_with_the_same_views(engine):
    rng = random.Random(0)
    for seed in range(6):
        st = engine.new_game(3, seed)
        while not engine.is_over(st):
            for viewer in range(3):
                v = engine.view(st, viewer)
                assert engine.view(engine.determinize(v, rng), viewer) == v
            engine.apply(st, rng.randrange(engine.option_count(st)))


def test_players_traces_write_the_uncounted_zone_as_unknown(engine):
    (own, other), both = player_traces(engine, 0, 1)
    public = []
    st = stashed(engine, sink=lambda e: (both(e), public.append(e)))
    to_stash = [e["data"] for e in public if e["event"] == "move" and e["player"] == "P1"]
    assert [d["to"] for d in to_stash] == ["P1.stash", "P1.stash"]
    assert [(e["data"]["from"], e["data"]["to"]) for e in own if e["event"] == "move" and e["player"] == "P1"] == [
        ("P1.hand", "P1.stash"), ("P1.hand", "P1.stash")]
    theirs = [e for e in other if e["event"] == "move" and e["player"] == "P1"]
    assert [(e["data"]["card"], e["data"]["from"], e["data"]["to"]) for e in theirs] == [("?", "P1.hand", "?")] * 2
    assert render(theirs[0]) == ["    ?: P1.hand -> ?"]
    # Taking a card back from one's stash: the others see neither the options nor how many.
    (own, other), both = player_traces(engine, 0, 1)
    engine.apply(st, "stash", both)
    engine.apply(st, 0, both)
    engine.apply(st, "bury", both)
    engine.apply(st, "back", both)
    engine.apply(st, 0, both)
    back = [e["data"] for e in own if e["event"] == "choice" and e["player"] == "P1"][-1]
    assert back["prompt"] == "card to take back" and len(back["options"]) == 2 and "?" not in back["options"]
    back = [e["data"] for e in other if e["event"] == "choice" and e["player"] == "P1"]
    assert back[-2]["options"] == ["?"] and back[-1]["options"] == ["?"]  # the move offered `back`, too


def test_a_players_state_event_sight_and_observation_count_the_zone_as_nothing(engine):
    events = []
    st = stashed(engine, sink=events.append)
    state = [e for e in events if e["event"] == "state"][-1]  # at the end of the first round
    assert state["data"]["zones"]["P1.stash"] == ["T2"]  # the public trace names them
    seen = []
    engine.player_sink(1, seen.append)(state)
    zones = seen[0]["data"]["zones"]
    assert zones["P1.stash"] == "?" and zones["vault"] == "?" and zones["P2.stash"] == state["data"]["zones"]["P2.stash"]
    sight = {(name, owner): cards for name, owner, _, cards in engine.sight(st, 1).places}
    assert sight[("stash", 0)] == () and sight[("vault", None)] == ()
    assert len(sight[("stash", 1)]) == 1 and None not in sight[("stash", 1)]
    enc = ObservationEncoder(engine, 3)
    other = moved(st, "vault", "P1.stash")
    assert np.array_equal(enc.encode(engine.view(st, 1)), enc.encode(engine.view(other, 1)))
    assert not np.array_equal(enc.encode(engine.view(st, 0)), enc.encode(engine.view(other, 0)))


def test_the_table_shows_a_zone_it_does_not_count(engine):
    st = stashed(engine)
    text = board_text(engine, st, 1)
    assert "stash: ? cards" in area(text, "P1") and "vault: ? cards" in area(text, "Shared")
    assert "stash: ? cards" in area(text, "P3")
    assert "hand: 1 card, hidden" in area(text, "P1")
    assert f"stash: {engine.view(st, 1).data['zones']['P2.stash'][0]}" in area(text, "P2")


@pytest.mark.parametrize("agents", ["greedy", "mcts:iterations=20", "random"])
def test_bots_play_games_with_zones_they_do_not_count(engine, agents):
    for seed in range(2):
        st = engine.new_game(3, seed)
        play(engine, st, make_agents(agents, 3, seed, engine))
        assert engine.is_over(st)


def test_the_declarations_print_back():
    printed = unparse.program(parse(RULESET.read_text(), str(RULESET)).items)
    assert "zone stash: pile of Token private per player size private" in printed
    assert "zone vault: pile of Token hidden size hidden" in printed


PASSED = """
game "Passed" { players 3..3 cards "stash.toml" round_limit 2 }
kind Token { value: int }
zone hand: row of Token private per player size private
setup {
    create defs(Token) into player(1).hand
    move top(player(1).hand) to player(2).hand
    shuffle player(1).hand
}
round {
    phase a {
        pass hand to next
        end game "passed"
    }
}
victory for p after a { score n = count(p.hand); win if false; rank by n }
"""


def test_a_shuffle_and_a_pass_do_not_count_the_cards_of_a_zone_the_player_cannot_count(tmp_path):
    (tmp_path / "stash.toml").write_text((ROOT / "tests" / "rulesets" / "stash.toml").read_text())
    (tmp_path / "passed.lf").write_text(PASSED)
    engine = Engine.load(tmp_path / "passed.lf")
    (p1, p3), both = player_traces(engine, 0, 2)
    public = []
    engine.new_game(3, 1, sink=lambda e: (both(e), public.append(e)))

    def of(trace, kind):
        return next(e["data"] for e in trace if e["event"] == kind)
    assert of(public, "shuffle")["cards"] == 11 and of(p1, "shuffle")["cards"] == 11
    assert of(p3, "shuffle")["cards"] == "?"
    assert of(public, "pass")["cards"] == {"P1": 0, "P2": 11, "P3": 1}
    assert of(p1, "pass")["cards"] == {"P1": 0, "P2": "?", "P3": "?"}
    assert of(p3, "pass")["cards"] == {"P1": "?", "P2": "?", "P3": 1}


HELD = """
game "Held" { players 2..2 cards "stash.toml" }
kind Token { value: int }
kind Gem { worth: int }
zone deck: pile of Token hidden
zone hand: row of Token private per player
zone stash: pile of Token hidden per player size private
zone vault: pile of Token hidden size hidden
zone gems: pile of Gem hidden size hidden
zone shown: row of Token
setup {
    create defs(Token) into deck
    shuffle deck
    for p in players { repeat 3 { move top(deck) to p.hand } }
    repeat 2 { move top(deck) to vault }
    create defs(Gem) into gems
}
round {
    phase play each p {
        choose "move" {
            option stash {
                choose c in p.hand "card to stash" {
                    move c to p.stash
                    choose "again" { option yes { } option no { } }
                }
            }
            option hoard { move vault to p.stash }
            option dig if any(vault) { move random(vault) to shown }
            option pair if count(p.stash) >= 2 and not any(vault) { }
        }
    }
}
"""
GEMS = """
[[Gem]]
name = "Ruby"
worth = 5

[[Gem]]
name = "Opal"
worth = 3
"""


@pytest.fixture()
def held(tmp_path):
    (tmp_path / "stash.toml").write_text((ROOT / "tests" / "rulesets" / "stash.toml").read_text() + GEMS)
    (tmp_path / "held.lf").write_text(HELD)
    return Engine.load(tmp_path / "held.lf")


def test_a_card_held_by_a_running_rule_names_no_place_among_the_uncounted(held):
    st = held.new_game(2, 1)
    held.apply(st, "stash")
    held.apply(st, 0)  # P1 stashes a card and is asked again: the rule still holds the card
    other = moved(st, "vault", "P1.stash")
    # A handle would count the cards of the zones before the card's own; the card is held as none.
    assert held.view(st, 1) == held.view(other, 1) and held.view(st, 0) != held.view(other, 0)
    assert held.view(st, 1).skeleton["stack"][-1]["env"]["c"] is None
    # Two kinds of such zones: the dealt games keep each kind's cards in its own zones.
    for seat in (0, 1):
        v = held.view(st, seat)
        dealt = held.determinize(v, random.Random(seat))
        assert held.view(dealt, seat) == v
        assert {held.program.def_kind[dealt.card_def[c]] for c in dealt.zones["gems"]} == {"Gem"}


def test_moves_between_uncounted_zones_are_not_even_seen_to_happen(held):
    traces = []
    for source in ("vault", None):
        st = held.new_game(2, 1)
        if source:  # a third card in the vault, from P1's hand... as P2 sees it, a card less in P1's hand
            st = moved(st, "P1.hand", "vault")
            st = moved(st, "P2.hand", "P1.hand")
            st = moved(st, "deck", "P2.hand")
        seen = []
        held.apply(st, "hoard", held.player_sink(1, seen.append))  # the vault, card by card, into P1's stash
        traces.append([(e["event"], e["data"]) for e in seen])
    assert [e for e, _ in traces[0]] == [e for e, _ in traces[1]]
    assert not any(e == "move" for e, _ in traces[0])
    assert "seq" not in held.view(held.new_game(2, 1), 1).skeleton


def test_a_random_pick_and_a_dealt_game_that_needs_uneven_sizes(held):
    st = held.new_game(2, 1)
    seen = []
    held.apply(st, "dig", held.player_sink(1, seen.append))
    assert next(e["data"] for e in seen if e["event"] == "random")["of"] == "?"  # not how many it picked among


UNEVEN = """
game "Uneven" { players 2..2 cards "stash.toml" }
kind Token { value: int }
zone deck: pile of Token hidden
zone stash: pile of Token hidden per player size private
zone vault: pile of Token hidden size hidden
setup {
    create defs(Token) into deck
    repeat 2 { move top(deck) to player(1).stash }
}
round {
    phase play each p {
        if count(p.stash) >= 2 {
            choose "pair" { option split if count(p.stash) >= 2 { } option keep if count(p.stash) >= 2 { } }
        }
        end game "done"
    }
}
"""


def test_a_dealt_game_tries_uneven_shares_when_an_even_one_cannot_ask_the_decision(tmp_path):
    # P1 is asked a choice only a stash of two cards asks; P2, who counts neither P1's stash nor the
    # vault, shares their two cards out: evenly (one each) the choice is never asked, so the deals
    # go on to uneven shares.
    (tmp_path / "stash.toml").write_text((ROOT / "tests" / "rulesets" / "stash.toml").read_text())
    (tmp_path / "uneven.lf").write_text(UNEVEN)
    engine = Engine.load(tmp_path / "uneven.lf")
    st = engine.new_game(2, 1)
    assert engine.decision(st)[:2] == (0, "pair")
    v = engine.view(st, 1)
    for seed in range(3):
        dealt = engine.determinize(v, random.Random(seed))
        assert engine.view(dealt, 1) == v and engine.decision(dealt)[:2] == (0, "pair")
        assert len(dealt.zones["P1.stash"]) == 2


def test_a_card_refused_at_a_full_zone_is_named_only_to_who_sees_it_where_it_stays(tmp_path):
    (tmp_path / "stash.toml").write_text((ROOT / "tests" / "rulesets" / "stash.toml").read_text())
    (tmp_path / "full.lf").write_text("""
game "Full" { players 2..2 cards "stash.toml" }
kind Token { value: int }
zone hand: row of Token private per player
zone table: row of Token limit 1
setup { create defs(Token) into player(1).hand }
round {
    phase a {
        move top(player(1).hand) to table
        move top(player(1).hand) to table
        end game "two moves"
    }
}
""")
    engine = Engine.load(tmp_path / "full.lf")
    (own, other), both = player_traces(engine, 0, 1)
    public = []
    engine.new_game(2, 1, sink=lambda e: (both(e), public.append(e)))
    blocked = [e["data"] for e in public if e["event"] == "blocked"]
    assert blocked and blocked[0]["from"] == "P1.hand" and blocked[0]["card"] != "?"
    assert [e["data"]["card"] for e in own if e["event"] == "blocked"][0] == blocked[0]["card"]
    assert [e["data"]["card"] for e in other if e["event"] == "blocked"][0] == "?"
