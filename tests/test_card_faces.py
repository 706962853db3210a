"""Cards with several faces, one showing: `faces whole, top, bottom`, `face back hidden { ... }`,
`turn c to f`, `c.face`, `faces(c)`, `face(c, f).field`, and a face-down card in a player's view."""
from __future__ import annotations

import random

import pytest

from interpreter.engine import Engine
from rulesdsl.errors import LanguageError

RULES = """
game "Faces" { players 2..2 cards "faces.toml" }
enum Type { bird, plant, moor }
kind Card {
    cost: int = 0
    value: int
    types: set of Type = []
    faces whole, top, bottom
    face top { cost = 9 }
    face back hidden { name = "moor" types = [moor] value = 0 }
}
zone pile: row of Card
zone table: row of Card per player
setup { create defs(Card) into pile }
round {
    phase play each p {
        choose c in pile {
            choose f in faces(c) where it != whole {
                log "face", f, face(c, f).cost, face(c, f).name, face(c, f).value
                turn c to f
            }
            move c to p.table
        }
        log "table", names(p.table), sum(p.table, it.value), count(p.table where moor in it.types), last(p.table).face
        if count(pile) == 0 { end game }
    }
}
victory for p after play { win if false rank by sum(p.table, it.value) }
"""

CARDS = """
[[Card]]
name = "Owl / Fern"
value = 1
top = { name = "Owl", types = ["bird"], value = 5 }
bottom = { name = "Fern", cost = 2, types = ["plant"] }

[[Card]]
name = "Oak"
value = 3
cost = 1

[[Card]]
name = "Elm"
value = 4
[Card.top]
name = "Elm crown"
cost = 4
"""


def load(tmp_path, rules=RULES, cards=CARDS):
    (tmp_path / "faces.toml").write_text(cards)
    (tmp_path / "faces.lf").write_text(rules)
    return Engine.load(tmp_path / "faces.lf")


def play(engine, seed, choices):
    st = engine.new_game(2, seed)
    events = []
    while st.result is None:
        st = engine.apply(st, choices.get(st.decisions, 0), sink=events.append)
    return st, events


def logs(events):
    return [e["data"]["text"] for e in events if e["event"] == "log"]


def test_each_face_takes_the_most_specific_value(tmp_path):
    engine = load(tmp_path)
    by = {(d.name): d.fields for d in engine.program.cards.defs + engine.program.cards.face_defs}
    # The first face is the card's definition: the card's own values.
    assert by["Owl / Fern"] == {"cost": 0, "value": 1, "types": [], "face": "whole"}
    # The card's face table beats the kind's face block, which beats the kind's default.
    assert by["Owl"] == {"cost": 9, "value": 5, "types": ["bird"], "face": "top"}
    assert by["Fern"] == {"cost": 2, "value": 1, "types": ["plant"], "face": "bottom"}
    # The card's own value beats the kind's face block.
    assert by["Elm crown"] == {"cost": 4, "value": 4, "types": [], "face": "top"}
    # A hidden face shows nothing of the card: the kind's defaults and its own block only.
    backs = [d for d in engine.program.cards.face_defs if d.face == "back"]
    assert len(backs) == 3 and all(d.name == "moor" and d.fields == {"cost": 0, "value": 0, "types": ["moor"],
                                                                     "face": "back"} for d in backs)
    # Oak has no face table: its faces are the first and the hidden one.
    oak = next(d for d in engine.program.cards.defs if d.name == "Oak")
    assert [f for f, _ in oak.faces] == ["whole", "back"]
    assert [d.name for d in engine.program.cards.defs] == ["Owl / Fern", "Oak", "Elm"]  # defs(Card)


def test_turn_shows_another_face(tmp_path):
    # P1 takes Elm and turns it to its top; P2 takes Owl / Fern, to its bottom; P1 Oak, face down.
    st, events = play(load(tmp_path), 1, {0: 0, 1: 1, 2: 1, 3: 1, 4: 0, 5: 0})
    assert [e["data"] for e in events if e["event"] == "face"] == [
        {"card": "Elm", "face": "top", "now": "Elm crown", "zone": "pile"},
        {"card": "Owl / Fern", "face": "bottom", "now": "Fern", "zone": "pile"},
        {"card": "Oak", "face": "back", "now": "moor", "zone": "pile"}]
    assert logs(events) == [
        "face top 4 Elm crown 4", "table [Elm crown] 4 0 top",
        "face bottom 2 Fern 1", "table [Fern] 1 0 bottom",
        "face back 0 moor 0", "table [Elm crown, moor] 4 1 back"]


def test_turning_to_a_face_the_card_lacks_stops_the_game(tmp_path):
    from interpreter.core.runtime import GameError
    engine = load(tmp_path, RULES.replace("turn c to f", "turn c to bottom"))
    with pytest.raises(GameError) as err:
        play(engine, 1, {0: 0, 1: 0})  # Elm: a top, no bottom
    assert "card Elm has no face `bottom`" in str(err.value) and "faces.lf:" in str(err.value)


def test_a_face_down_card_is_seen_as_its_back_and_dealt_again_as_one(tmp_path):
    engine = load(tmp_path)
    st = engine.new_game(2, 1)
    for choice in (1, 0):  # P1 takes Oak (of Elm, Oak, Owl / Fern) and turns it face down
        st = engine.apply(st, choice)
    oak = next(c for c in st.zones["P1.table"])
    assert engine.program.names[st.card_def[oak]] == "moor"
    v = engine.view(st, 1)
    assert v.data["zones"]["P1.table"] == ["moor"]
    assert list(v.skeleton["backs"].values()) == ["back"]
    other = st.clone()  # the same, but the face-down card is Elm (which stays in the pile as Oak)
    elm = next(c for c in st.zones["pile"] if engine.program.names[st.card_def[c]] == "Elm")
    faces = engine.program.face_table
    other.card_def[oak] = faces[st.card_def[elm]]["back"]
    other.card_def[elm] = faces[st.card_def[oak]]["whole"]
    assert engine.view(other, 1).to_json() != v.to_json()  # Elm and Oak are seen in the pile
    for seed in range(5):
        d = engine.determinize(v, random.Random(seed))
        dealt = d.card_def[d.zones["P1.table"][0]]
        assert dealt in engine.program.hidden_faces
        while d.result is None:
            d = engine.apply(d, 0)


@pytest.mark.parametrize("table", ["row of Card per player", "row of Card private per player"])
def test_views_do_not_tell_which_card_is_face_down(tmp_path, table):
    # Each face of a card is a definition of its own: a view that listed Oak's back, on a table
    # all see or among the cards P2 does not see (P1's private table), would tell which card is
    # face down. It shows the back, or lists the card's first face and keeps the back at its
    # place, which a dealt game turns the card dealt there to.
    rules = RULES.replace("zone table: row of Card per player", f"zone table: {table}").replace(
        "zone pile: row of Card", "zone pile: row of Card\nzone stock: pile of Card hidden").replace(
        "setup { create defs(Card) into pile }", "setup { create defs(Card) into pile  move last(pile) to stock }")
    engine = load(tmp_path, rules)
    st = engine.new_game(2, 1)
    for choice in (0, 0):  # P1 takes Oak (of Oak, Owl / Fern) face down
        st = engine.apply(st, choice)
    oak = st.zones["P1.table"][0]
    elm = st.zones["stock"][0]
    faces = engine.program.face_table
    assert st.card_def[oak] == faces[st.card_def[oak]]["back"]
    swapped = st.clone()  # Elm face down on the table, Oak in the hidden stock
    swapped.card_def[oak] = faces[st.card_def[elm]]["back"]
    swapped.card_def[elm] = faces[st.card_def[oak]]["whole"]
    for p in (0, 1):
        assert engine.view(swapped, p).to_json() == engine.view(st, p).to_json()
        v = engine.view(st, p)
        for seed in range(3):
            dealt = engine.determinize(v, random.Random(seed))
            assert engine.view(dealt, p) == v
            assert engine.program.def_face[dealt.card_def[dealt.zones["P1.table"][0]]] == "back"


@pytest.mark.parametrize("change, message", [
    (("    face top { cost = 9 }\n", "    face top { cost = 9 }\n    face top { cost = 8 }\n"), "face `top` of kind Card is declared twice"),
    (("faces whole, top, bottom", "faces whole, top, cost"), "face `cost` has the name of a field of kind Card"),
    (("face top { cost = 9 }", "face top { costs = 9 }"), "kind Card has no field `costs`"),
    (("face top { cost = 9 }", "face top { cost = true }"), "field `cost`: expected int, got True"),
    (("face top { cost = 9 }", "face top { cost = 1 + 2 }"), "a card's value is a literal"),
    (("face top { cost = 9 }", 'face top { name = "x" }'), "only a `hidden` face, which shows nothing of the card, is named here"),
    (('face back hidden { name = "moor" types = [moor] value = 0 }', 'face back hidden { name = "moor" }'),
     "face `back` is hidden, so it shows nothing of the card: it needs a value for `value`"),
    (("turn c to f", "turn c to sideways"), "unknown name `sideways`"),
    (("turn c to f", "turn c to bird"), "cards of kind Card have no face `bird`"),
    (("turn c to f", "turn p to f"), "`turn` takes a card, not player"),
])
def test_mistakes_with_faces_are_positioned_errors(tmp_path, change, message):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, RULES.replace(*change))
    text = err.value.render()
    assert message in text and "faces.lf:" in text


def test_a_kind_without_faces_cannot_be_turned(tmp_path):
    rules = RULES.replace("zone pile:", "kind Plain { v: int = 0 }\nzone plains: row of Plain\nzone pile:").replace(
        "turn c to f", "turn first(plains) to f")
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules)
    assert "cards of kind Plain have one face" in err.value.render()


@pytest.mark.parametrize("change, message, line", [
    (('bottom = { name = "Fern", cost = 2,', 'bottom = { name = "Fern", costs = 2,'), "face 'bottom': unknown field 'costs'", 6),
    (('bottom = { name = "Fern", cost = 2,', 'bottom = { name = "Fern", cost = "two",'), "face 'bottom': field 'cost': expected int", 6),
    (('top = { name = "Owl", types = ["bird"], value = 5 }', 'top = 5'), "face 'top': expected a table of field values", 5),
    (('[Card.top]\nname = "Elm crown"\ncost = 4', '[Card.top]\nname = "Elm crown"\ncost = -'), "not valid TOML", 18),
    (('[Card.top]\nname = "Elm crown"\ncost = 4', '[Card.top]\nname = 4\ncost = 4'), "face 'top': field 'name': expected text", 17),
])
def test_mistakes_in_a_cards_faces_are_placed_in_the_database(tmp_path, change, message, line):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, cards=CARDS.replace(*change))
    text = err.value.render()
    assert message in text and f"faces.toml:{line}:" in text


def test_a_card_turned_in_a_hand_is_not_named_in_the_other_players_trace(tmp_path):
    from interpreter.core.view import PlayerSink
    rules = RULES.replace("zone table: row of Card per player", "zone table: row of Card per player\nzone hand: row of Card private per player").replace(
        "            move c to p.table\n", "            move c to p.hand\n            turn c to back\n            move c to p.table\n").replace(
        "                turn c to f\n", "")
    engine = load(tmp_path, rules)
    st = engine.new_game(2, 1)
    own, other = [], []
    sinks = [PlayerSink(engine.program, 0, own.append), PlayerSink(engine.program, 1, other.append)]
    while st.result is None:
        st = engine.apply(st, 0, sink=lambda e: [s(e) for s in sinks])
    turned = [e["data"] for e in own if e["event"] == "face" and e["data"]["face"] == "back"]
    seen_by_other = [e["data"] for e in other if e["event"] == "face" and e["data"]["face"] == "back"]
    assert turned and turned[0]["card"] != "?" and turned[0]["now"] == "moor"
    assert seen_by_other[0]["card"] == "?" and seen_by_other[0]["now"] == "moor"
