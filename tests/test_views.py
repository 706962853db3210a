"""Player views: what a player sees, that a view leaks nothing it should not, and determinize."""
from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from interpreter.tools.agents import make_agents
from interpreter.engine import Engine
from interpreter.core.view import _visibility, seen_in_place

from .conftest import ROOT

RULESETS = ["base", "kodama", "solo", "duel", "dartmoor"]


@pytest.fixture(scope="module")
def engines():
    out = {r: Engine.load(ROOT / "rulesets" / f"{r}.lf") for r in RULESETS}
    out["hands"] = Engine.load(ROOT / "tests" / "rulesets" / "hands.lf")
    out["held"] = Engine.load(ROOT / "tests" / "rulesets" / "held.lf")
    return out


def played(engine, seed, decisions, players=None):
    """A game after up to `decisions` random decisions, stopped at a pending decision."""
    st = engine.new_game(players, seed)
    agents = make_agents("random", st.player_count, seed)
    for _ in range(decisions):
        if engine.is_over(st):
            break
        engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), None))
    return st


def played_open(engine, seed, decisions):
    """A game after up to `decisions` random decisions, never past its last decision."""
    st = engine.new_game(None, seed)
    agents = make_agents("random", st.player_count, seed)
    for _ in range(decisions):
        before = st.clone()
        engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), None))
        if engine.is_over(st):
            return before
    return st


def unseen_cards(engine, st, player):
    """Cards `player` does not see, by place: [(key, index, card)]."""
    out = []
    for key, cards in st.zones.items():
        vis = _visibility(engine.program, key)
        for i, c in enumerate(cards):
            if not seen_in_place(vis, key, player, i == len(cards) - 1) and not st.revealed.get(c, 0) & (1 << player):
                out.append((key, i, c))
    return out


def referenced(st):
    """Integers held by running bodies and the pending decision: a card they name must not move."""
    held = set()
    for fr in st.stack:
        for v in fr.env.values():
            held.update(v if isinstance(v, list) else [v])
    if st.pending and hasattr(st.pending["how"], "values"):
        held.update(st.pending["how"].values)
    return held


@pytest.mark.parametrize("ruleset", RULESETS + ["hands"])
@settings(max_examples=15, deadline=None)
@given(seed=hs.integers(0, 10_000), decisions=hs.integers(0, 60), pick=hs.randoms(use_true_random=False))
def test_a_view_does_not_change_when_unseen_cards_are_exchanged(engines, ruleset, seed, decisions, pick):
    engine = engines[ruleset]
    st = played(engine, seed, decisions)
    unseen = unseen_cards(engine, st, 0)
    before = engine.view(st, 0).to_json()
    distinct = [(a, b) for a in unseen for b in unseen
                if st.card_def[a[2]] != st.card_def[b[2]]
                and engine.program.def_kind[st.card_def[a[2]]] == engine.program.def_kind[st.card_def[b[2]]]]
    if not distinct:
        return
    (ka, ia, a), (kb, ib, b) = pick.choice(distinct)
    # Exchange what the two cards are (across zones too: a pile and another player's hand).
    swapped = st.clone()
    swapped.card_def[a], swapped.card_def[b] = st.card_def[b], st.card_def[a]
    assert engine.view(swapped, 0).to_json() == before
    # Exchange the two cards' places, so that their numbers are in each other's place.
    held = referenced(st)
    if a not in held and b not in held:
        moved = st.clone()
        moved.zones[ka][ia], moved.zones[kb][ib] = b, a
        moved.loc[a], moved.loc[b] = kb, ka
        assert engine.view(moved, 0).to_json() == before


@pytest.mark.parametrize("ruleset", RULESETS + ["hands"])
def test_a_view_changes_with_what_its_player_sees(engines, ruleset):
    engine = engines[ruleset]
    st = played(engine, 4, 10)
    before = engine.view(st, 0).to_json()
    seen = [c for key, cards in st.zones.items() for i, c in enumerate(cards)
            if seen_in_place(_visibility(engine.program, key), key, 0, i == len(cards) - 1)]
    other = next(d.index for d in engine.program.cards.defs
                 if d.kind == engine.program.cards.defs[st.card_def[seen[0]]].kind and d.index != st.card_def[seen[0]])
    changed = st.clone()
    changed.card_def[seen[0]] = other
    assert engine.view(changed, 0).to_json() != before
    counted = st.clone()
    counted.round += 1
    assert engine.view(counted, 0).to_json() != before


def test_a_hand_is_seen_by_its_owner_only_and_a_reveal_is_remembered(engines):
    engine = engines["hands"]
    st = engine.new_game(2, 1)
    mine, theirs = engine.view(st, 0), engine.view(st, 1)
    assert None not in mine.data["zones"]["P1.hand"] and mine.data["zones"]["P2.hand"] == [None, None]
    assert theirs.data["zones"]["P1.hand"] == [None, None]
    assert mine.data["zones"]["stock"] == [None] * len(st.zones["stock"])
    assert mine.data["zones"]["shelf"][:-1] == [None] * (len(st.zones["shelf"]) - 1)
    assert mine.data["zones"]["shelf"][-1] is not None
    assert mine.data["pending"]["options"] and "options" not in theirs.data["pending"]
    engine.apply(st, 0)  # P1 plays a card, looks at the stock's top, takes the shelf's revealed top
    top = st.zones["stock"][-1]
    assert st.revealed[top] == 1
    assert engine.view(st, 0).data["zones"]["stock"][-1] is not None
    assert engine.view(st, 1).data["zones"]["stock"][-1] is None
    engine.apply(st, 0)
    engine.apply(st, 0)  # P1 again: the stock unchanged, its top still known to both now
    assert st.revealed.get(top) == 3


@pytest.mark.parametrize("ruleset", RULESETS + ["hands"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_determinize_is_indistinguishable_plays_on_and_varies(engines, ruleset, seed):
    engine = engines[ruleset]
    st = played_open(engine, seed, 25)
    who = st.pending["player"]
    v = engine.view(st, who)
    dealt = [engine.determinize(v, random.Random(k)) for k in range(4)]
    for d in dealt:
        assert engine.view(d, who) == v
        assert [(o.id, o.label) for o in engine.options(d)] == [(o.id, o.label) for o in engine.options(st)]
    if any(x is None for x in v.skeleton["defs"]) and len(set(v.skeleton["unseen"])) > 1:
        assert len({tuple(d.card_def) for d in dealt}) > 1
    for k, d in enumerate(dealt[:2]):
        agents = make_agents("random", d.player_count, k)
        for _ in range(150):
            if engine.is_over(d):
                break
            engine.apply(d, agents[d.pending["player"]].choose(engine.options(d), None))
        assert engine.is_over(d) or d.pending is not None


@pytest.mark.parametrize("ruleset", RULESETS + ["hands"])
def test_playing_on_a_deal_leaves_the_next_deal_of_the_view_alone(engines, ruleset):
    """A view is dealt from a template built at its first deal: a game played on from one deal
    shares nothing with it, so the same seed deals the same game again afterwards."""
    engine = engines[ruleset]
    st = played_open(engine, 4, 30)
    for who in range(st.player_count):
        v = engine.view(st, who)
        first = engine.determinize(v, random.Random(5))
        before = first.to_json()
        agents = make_agents("random", first.player_count, 5)
        for _ in range(60):
            if engine.is_over(first):
                break
            engine.apply(first, agents[first.pending["player"]].choose(engine.options(first), None))
        again = engine.determinize(v, random.Random(5))
        assert again.to_json() == before
        assert engine.view(again, who) == v


@pytest.mark.parametrize("ruleset", RULESETS + ["hands", "held"])
def test_every_players_view_deals_games_it_cannot_tell_apart(engines, ruleset):
    """At each decision of a game, every player's view, the one deciding or not, deals games whose
    view is that view again: a decision withheld from a player is asked again of the dealt cards,
    and a deal that would ask otherwise, or on which the rules fail, is dealt again."""
    engine = engines[ruleset]
    for seed in (1, 2):
        st = engine.new_game(None, seed)
        agents = make_agents("random", st.player_count, seed)
        for _ in range(60):
            if engine.is_over(st):
                break
            for who in range(st.player_count):
                v = engine.view(st, who)
                for k in range(2):
                    assert engine.view(engine.determinize(v, random.Random(k)), who) == v
            engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), None))


def test_a_choice_whose_options_read_a_held_card_is_withheld_but_an_action_menu_is_not(engines):
    engine = engines["held"]
    prompts = {}
    for seed in range(1, 20):
        st = engine.new_game(2, seed)
        agents = make_agents("random", 2, seed)
        while not engine.is_over(st):
            who = st.pending["player"]
            pending = engine.view(st, 1 - who).skeleton["pending"]
            prompts.setdefault(st.pending["prompt"], set()).add("ask_again" in pending)
            if "ask_again" not in pending:
                assert pending["options"] == st.pending["options"]
            engine.apply(st, agents[who].choose(engine.options(st), None))
    assert prompts == {"action": {False}, "show": {True}}


def test_a_view_is_copied_without_what_determinize_keeps_on_it(engines):
    engine = engines["hands"]
    v = engine.view(engine.new_game(2, 1), 1)
    before = pickle.dumps(v)
    engine.determinize(v, random.Random(0))
    assert pickle.dumps(v) == before
    copied = copy.deepcopy(v)
    assert copied == v and engine.view(engine.determinize(copied, random.Random(0)), 1) == v


def test_a_view_holds_neither_the_seed_nor_the_generator(engines):
    """Either would let the deal be computed again from the rules."""
    engine = engines["hands"]
    st = engine.new_game(2, 123456789)
    text = engine.view(st, 0).to_json()
    assert "123456789" not in text and str(st.rng) not in text and '"seed"' not in text


def test_another_players_choice_among_unseen_cards_is_dealt_again(engines):
    engine = engines["hands"]
    st = engine.new_game(2, 1)  # P1 chooses a card of their hand, which P2 does not see
    v = engine.view(st, 1)
    assert "options" not in v.data["pending"] and "options" not in v.skeleton["pending"]
    hands = set()
    for k in range(12):
        d = engine.determinize(v, random.Random(k))
        assert engine.view(d, 1) == v
        labels = [o.label for o in engine.options(d)]
        assert sorted(labels) == labels and set(labels) <= {"Red", "Blue", "Green"}
        hands.add(tuple(labels))
        engine.apply(d, 0)
    assert len(hands) > 1


def test_a_choice_read_from_a_card_another_player_holds_is_dealt_again(engines):
    """In Dartmoor a player chooses which half of a card of their hand to play: the halves are read
    from that card, which the others do not see. Another player's view keeps the prompt only, not
    the halves' names; each deal asks the question again of the card it dealt, and deals again
    when that card would not ask it (a card without halves), so every deal plays on."""
    engine = engines["dartmoor"]
    found = None
    for seed in range(1, 40):
        st = engine.new_game(None, seed)
        agents = make_agents("random", st.player_count, seed)
        for _ in range(120):
            if engine.is_over(st):
                break
            if st.pending["prompt"] == "half to play":
                found = st
                break
            engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), None))
        if found is not None:
            break
    assert found is not None
    who = found.pending["player"]
    other = (who + 1) % found.player_count
    v = engine.view(found, other)
    assert v.skeleton["pending"] == {"player": who, "prompt": "half to play", "ask_again": True}
    assert "options" not in v.data["pending"]
    held = set()
    for k in range(20):
        d = engine.determinize(v, random.Random(k))
        assert engine.view(d, other) == v
        assert (d.pending["player"], d.pending["prompt"]) == (who, "half to play")
        held.add(engine.program.names[d.card_def[d.stack[-1].env["c"]]])
        agents = make_agents("random", d.player_count, k)
        for _ in range(40):  # every deal plays on: the options asked are those of the dealt card
            if engine.is_over(d):
                break
            engine.apply(d, agents[d.pending["player"]].choose(engine.options(d), None))
    assert len(held) > 1  # the card held is dealt, not known


@pytest.mark.parametrize("ruleset", RULESETS + ["hands"])
def test_running_bodies_name_cards_by_place_not_by_number(engines, ruleset):
    """Locals holding cards are written as the card's rank in the walk of the places (zones in
    order, bottom to top, then grid cells in order, then the cards' slots), never as its number in
    the game."""
    from interpreter.core.view import _card_locals
    engine = engines[ruleset]
    shapes = _card_locals(engine.program)
    checked = 0
    for seed in range(6):
        st = engine.new_game(None, seed)
        agents = make_agents("random", st.player_count, seed)
        for _ in range(80):
            if engine.is_over(st):
                break
            walk = [c for key, cards in st.zones.items() if key[0] != "#" for c in cards]
            walk += [cells[i] for cells in st.grids.values() for i in sorted(cells)]
            # Then the cards' slots, by their card's rank (a card before what its slots hold).
            slots = [(key, cards) for key, cards in st.zones.items() if key[0] == "#"]
            while slots:
                rank = {c: i for i, c in enumerate(walk)}
                ready = sorted((rank[int(k[1:k.index(".")])], k[k.index(".") + 1:], k) for k, _ in slots
                               if int(k[1:k.index(".")]) in rank)
                assert ready
                walk += [c for _, _, k in ready for c in st.zones[k]]
                done = {k for _, _, k in ready}
                slots = [(k, cards) for k, cards in slots if k not in done]
            rank = {c: i for i, c in enumerate(walk)}
            frames = engine.view(st, 0).skeleton["stack"]
            for fr, shown in zip(st.stack, frames):
                for name, shape in shapes.get(fr.proc, {}).items():
                    if fr.env.get(name) is None:
                        continue
                    value = fr.env[name]
                    want = rank[value] if shape == "card" else [rank[c] for c in value]
                    assert shown["env"][name] == want
                    checked += 1
            engine.apply(st, agents[st.pending["player"]].choose(engine.options(st), None))
    if ruleset in ("base", "kodama", "duel"):  # their decisions are taken with cards in locals
        assert checked > 0


GRIDS = """
game "Mats" { players 2..2 }
kind Token { value: int }
zone stock: pile of Token hidden
grid mat: 2 x 1 of Token private per player
grid board: 2 x 1 of Token
round {
    phase play each p {
        choose c in [1, 2] by p { }
    }
}
setup {
    create defs(Token) times 2 into stock
    shuffle stock
    for p in players {
        place top(stock) on p.mat at cell(p.mat, 1, 1)
    }
    place top(stock) on board at cell(board, 2, 1)
}
"""


def test_a_private_grid_is_seen_by_its_owner_and_a_public_one_by_all(tmp_path):
    rules = tmp_path / "mats.lf"
    rules.write_text(GRIDS)
    engine = Engine.load(rules, cards=ROOT / "tests" / "rulesets" / "tiny.toml")
    st = engine.new_game(2, 3)
    mine, theirs = engine.view(st, 0).data["grids"], engine.view(st, 1).data["grids"]
    assert mine["P1.mat"]["(1,1)"] is not None and theirs["P1.mat"] == {"(1,1)": None}
    assert mine["board"] == theirs["board"] and None not in mine["board"].values()
    swapped = st.clone()
    a, b = st.grids["P2.mat"][0], st.zones["stock"][0]
    assert st.card_def[a] != st.card_def[b]  # seed 3 deals two different cards there
    swapped.card_def[a], swapped.card_def[b] = st.card_def[b], st.card_def[a]
    assert engine.view(swapped, 0) == engine.view(st, 0)
    assert engine.view(swapped, 1) != engine.view(st, 1)
    d = engine.determinize(engine.view(st, 0), random.Random(1))
    assert engine.view(d, 0) == engine.view(st, 0)


ROUTINE = """
game "Acts" { players 2..2 }
kind Token { value: int }
zone stock: pile of Token hidden
zone hand: bag of Token private per player
routine keep(p, c = top(stock)) {
    choose n in [1, 2] by p { move c to p.hand }
}
setup {
    create defs(Token) times 2 into stock
    shuffle stock
}
round {
    phase play each p {
        if count(stock) > 0 {
            do keep(p, top(stock))
        }
    }
}
"""


def test_a_card_passed_to_a_routine_is_shown_by_its_place(tmp_path):
    rules = tmp_path / "acts.lf"
    rules.write_text(ROUTINE)
    engine = Engine.load(rules, cards=ROOT / "tests" / "rulesets" / "tiny.toml")
    numbers = set()
    for seed in range(6):
        st = engine.new_game(2, seed)
        numbers.add(st.stack[-1].env["c"])
        v = engine.view(st, 1)
        assert v.skeleton["stack"][-1]["env"]["c"] == len(st.zones["stock"]) - 1
        assert engine.view(engine.determinize(v, random.Random(seed)), 1) == v
    assert len(numbers) > 1  # the card's number changes with the deal; its place does not
