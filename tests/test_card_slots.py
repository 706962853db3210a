"""A card's own counters (`counter eggs = 0` in a kind) and slots, small zones attached to a card
(`slot above: row of Card limit tops`), with `slot`, `room`, `host`, `slot_of` and `attached`."""
from __future__ import annotations

import random

import pytest

from interpreter.engine import Engine
from rulesdsl.errors import LanguageError

CARDS = """
[[Card]]
name = "Oak"
tops = 2
[[Card]]
name = "Reed"
tops = 0
[[Card]]
name = "Owl"
[[Card]]
name = "Bat"
[[Card]]
name = "Moth"
"""

RULES = """
game "Slots" { players 2..2 cards "slots.toml" }
kind Card {
    tops: int = 1
    counter eggs = 1 min 0 max 3
    slot above: row of Card limit tops
    slot tucked: pile of Card hidden
}
zone supply: row of Card
zone table: row of Card per player
setup {
    create defs(Card) into supply
    move first(supply where it.name == "Oak") to player(1).table
    move first(supply where it.name == "Reed") to player(2).table
}
round {
    phase play each p {
        let h = first(p.table)
        choose c in supply {
            if room(h, above) > 0 { move c to slot(h, above) } else { move c to slot(h, tucked) }
            set c.eggs += 5
            set h.eggs -= 1
        }
        if count(supply) == 0 { end game }
    }
}
victory for p after play {
    win if false
    rank by count(attached(p.table)) * 10 + sum(attached(p.table), it.eggs)
}
"""


def load(tmp_path, rules=RULES, cards=CARDS):
    (tmp_path / "slots.toml").write_text(cards)
    (tmp_path / "slots.lf").write_text(rules)
    return Engine.load(tmp_path / "slots.lf")


def play(engine, seed, choices=None):
    st = engine.new_game(2, seed)
    events = []
    while st.result is None:
        st = engine.apply(st, (choices or {}).get(st.decisions, 0), sink=events.append)
    return st, events


def test_a_slot_holds_cards_up_to_its_hosts_field_and_the_queries_find_them(tmp_path):
    engine = load(tmp_path)
    st, events = play(engine, 1)
    names = engine.program.names
    by_name = {names[st.card_def[c]]: c for c in range(len(st.card_def))}
    oak, reed = by_name["Oak"], by_name["Reed"]
    # Oak (tops = 2) took the first two cards P1 chose above it, Reed (tops = 0) none.
    assert [names[st.card_def[c]] for c in st.zones[f"#{oak}.above"]] == ["Bat", "Owl"]
    assert f"#{reed}.above" not in st.zones  # an empty slot is not kept
    assert [names[st.card_def[c]] for c in st.zones[f"#{reed}.tucked"]] == ["Moth"]
    moves = [e["data"]["to"] for e in events if e["event"] == "move" and e["data"]["to"][0] == "#"]
    assert moves == [f"#{oak}.above", f"#{reed}.tucked", f"#{oak}.above"]
    # Each card's counter: 1 at first, +5 clamped to 3 for the attached cards; the hosts lost 1 per
    # card they took (Oak twice, Reed once), clamped at 0.
    assert st.counters["eggs"] == {str(by_name["Bat"]): 3, str(oak): 0, str(by_name["Moth"]): 3,
                                   str(reed): 0, str(by_name["Owl"]): 3}
    assert st.result["rank"] == {"P1": 2 * 10 + 6, "P2": 1 * 10 + 3}
    labels = [e["data"]["name"] for e in events if e["event"] == "counter"]
    assert labels[:2] == [f"eggs[Bat #{by_name['Bat']}]", f"eggs[Oak #{oak}]"]


def test_host_slot_of_attached_and_room(tmp_path):
    rules = RULES.replace('        if count(supply) == 0 { end game }', '''        log "q", names(attached(h)), room(h, above), slot_of(last(attached(h))), names([host(last(attached(h)))]), slot_of(h), host(h) == none
        if count(supply) == 0 { end game }''')
    st, events = play(load(tmp_path, rules), 1)
    logs = [e["data"]["text"] for e in events if e["event"] == "log"]
    assert logs == ["q [Bat] 1 above [Oak] none true", "q [Moth] 0 tucked [Reed] none true",
                    "q [Bat, Owl] 0 above [Oak] none true"]


def test_a_full_slot_refuses_a_card(tmp_path):
    rules = RULES.replace("if room(h, above) > 0 { move c to slot(h, above) } else { move c to slot(h, tucked) }",
                          "move c to slot(h, above)").replace("if count(supply) == 0 { end game }",
                                                               "set turns += 1  if turns == 4 { end game }").replace(
        "zone supply: row of Card", "zone supply: row of Card\ncounter turns = 0")
    st, events = play(load(tmp_path, rules), 1)
    blocked = [e["data"] for e in events if e["event"] == "blocked"]
    # Reed (tops = 0) refuses P2's cards; Oak takes two of P1's.
    assert [b["limit"] for b in blocked] == [0, 0]
    assert all(b["zone"].endswith(".above") for b in blocked)
    assert sum(len(v) for k, v in st.zones.items() if k[0] == "#") == 2


def test_a_view_names_slots_by_handle_hides_a_hidden_slot_and_determinizes(tmp_path):
    engine = load(tmp_path)
    st = engine.new_game(2, 1)
    st = engine.apply(st, 0)  # P1: a card above Oak
    st = engine.apply(st, 0)  # P2: a card tucked under Reed
    for player in (0, 1):
        v = engine.view(st, player)
        slot_keys = [k for k in v.data["zones"] if k[0] == "#"]
        assert len(slot_keys) == 2
        tucked = next(k for k in slot_keys if k.endswith(".tucked"))
        assert v.data["zones"][tucked] == [None]  # a hidden slot: nobody sees its card
        above = next(k for k in slot_keys if k.endswith(".above"))
        assert v.data["zones"][above] != [None]
        # The card counters are keyed by the same handles as the slots.
        assert len(v.data["counters"]["eggs"]) == len(st.counters["eggs"])
        d = engine.determinize(v, random.Random(3))
        assert sorted(k for k in d.zones if k[0] == "#") == sorted(slot_keys)
        while d.result is None:  # the dealt game plays on to its end
            d = engine.apply(d, 0)


def test_views_are_equal_when_only_a_hidden_slots_card_differs(tmp_path):
    rules = RULES.replace("zone supply: row of Card", "zone supply: row of Card\nzone bag: pile of Card hidden").replace(
        "    create defs(Card) into supply\n", "    create defs(Card) into supply\n    move last(supply) to bag\n")
    engine = load(tmp_path, rules)
    st = engine.new_game(2, 1)
    st = engine.apply(st, 0)  # P1: a card above Oak
    st = engine.apply(st, 0)  # P2: Reed has no room above, so it goes tucked
    tucked = next(k for k in st.zones if k.endswith(".tucked"))
    a, b = st.zones[tucked][0], st.zones["bag"][0]
    assert st.card_def[a] != st.card_def[b]
    before = [engine.view(st, p).to_json() for p in (0, 1)]
    swapped = st.clone()  # the tucked card and the bagged one exchange what they are
    swapped.card_def[a], swapped.card_def[b] = st.card_def[b], st.card_def[a]
    assert [engine.view(swapped, p).to_json() for p in (0, 1)] == before
    shown = st.clone()  # the same exchange with the card in the public slot is seen
    c = st.zones[next(k for k in st.zones if k.endswith(".above"))][0]
    shown.card_def[c], shown.card_def[b] = st.card_def[b], st.card_def[c]
    assert engine.view(shown, 0).to_json() != before[0]


@pytest.mark.parametrize("change, message", [
    (("    slot tucked: pile of Card hidden\n", "    slot tucked: pile of Card hidden\n    slot above: row of Card\n"),
     "slot `above` is already declared"),
    (("zone supply: row of Card", "zone supply: row of Card\nzone tucked: row of Card"),
     "has the name of zone `tucked`"),
    (("slot(h, tucked)", "slot(h, below)"), "unknown name `below`"),
    (("slot(h, tucked)", "slot(h, inner)"), "cards of kind Card have no slot `inner`"),
    (("room(h, above)", "room(h, tucked)"), "slot `tucked` has no limit"),
    (("slot tucked: pile of Card hidden", "slot tucked: pile of Card per player"), "cannot be `per player`"),
    (("slot tucked: pile of Card hidden", "slot tucked: pile of Card private"), "no owner to be `private`"),
    (("limit tops", "limit eggs"), "a slot's limit is a number or an int field of the card"),
    (("limit tops", "limit -1"), "a slot's limit"),
    (("    counter eggs = 1 min 0 max 3\n", "    counter eggs = 1 min 0 max 3\n    counter tops = 0\n"),
     "kind Card has a field `tops` already"),
    (("    counter eggs = 1 min 0 max 3\n", "    counter eggs = 1 min 0 max 3\n    counter hatch[] = 0\n"),
     "belongs to each card: it cannot be keyed"),
    (("zone supply: row of Card", "zone supply: row of Card\ncounter eggs = 0"), "`eggs` is already declared"),
    (("set c.eggs += 5", "set c.egs += 5"), "has no field `egs`"),
    (("rank by count", "rank by count(attached(p)) + count"), "`attached` takes a card or a collection of cards"),
])
def test_mistakes_with_counters_and_slots_are_positioned_errors(tmp_path, change, message):
    rules = RULES.replace("zone supply:", "kind Box { slot inner: row of Card }\nzone supply:")
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules.replace(*change))
    text = err.value.render()
    assert message in text and "slots.lf:" in text


def test_the_slot_of_no_card_stops_the_game_with_a_positioned_error(tmp_path):
    from interpreter.core.runtime import GameError
    engine = load(tmp_path, RULES.replace("let h = first(p.table)", "let h = first(p.table where it.tops == 9)"))
    with pytest.raises(GameError) as err:
        play(engine, 1)
    text = str(err.value)
    assert "`room` of none" in text or "`slot` of none" in text
    assert "slots.lf:" in text


def test_a_card_cannot_go_into_its_own_slot_or_one_it_holds(tmp_path):
    from interpreter.core.runtime import GameError
    rules = RULES.replace("if room(h, above) > 0 { move c to slot(h, above) } else { move c to slot(h, tucked) }",
                          "move c to slot(h, tucked)\n            move h to slot(c, tucked)")
    with pytest.raises(GameError) as err:
        play(load(tmp_path, rules), 1)
    assert "cannot go into a slot of itself or of a card in its own slots" in str(err.value)
    rules = RULES.replace("if room(h, above) > 0 { move c to slot(h, above) } else { move c to slot(h, tucked) }",
                          "move c to slot(c, tucked)")
    with pytest.raises(GameError):
        play(load(tmp_path, rules), 1)
