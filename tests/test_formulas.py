"""Scoring formulas named by card data: a `formula` field holds "name(arguments)", a ruleset `def`
and the card's own arguments to it, and `call(c.field, ...)` runs it."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from rulesdsl.cards import formula_text, parse_formula
from rulesdsl.errors import LanguageError

RULES = """
game "Formulas" { players 2..2 cards "formulas.toml" }
enum Type { bird, plant }
kind Card {
    type: Type = bird
    points: formula = none
}
zone table: row of Card per player
def per_type(c, p, t, n) = n * count(p.table where it.type == t)
def flat(c, p, n) = n
def by_size(c, p, xs) = xs[min(count(p.table), count(xs) - 1)]
def named(c, p, s) = if c.name == s then 100 else 1
setup { for d in defs(Card) { create d into player(1).table } }
round {
    phase tally each p {
        log "points", names(p.table), [sum(p.table, call(it.points, it, p))]
        end game
    }
}
victory for p after tally { win if false rank by sum(p.table, call(it.points, it, p)) }
"""

CARDS = """
[[Card]]
name = "Owl"
points = "per_type(bird, 3)"

[[Card]]
name = "Fern"
type = "plant"
points = "flat(7)"

[[Card]]
name = "Moss"
type = "plant"
points = "by_size([0, 10, 20])"

[[Card]]
name = "Rock"

[[Card]]
name = "Elm"
points = 'named("Elm")'
"""


def load(tmp_path, rules=RULES, cards=CARDS):
    (tmp_path / "formulas.toml").write_text(cards)
    (tmp_path / "formulas.lf").write_text(rules)
    return Engine.load(tmp_path / "formulas.lf")


def test_total_scoring_is_a_sum_of_the_cards_formulas(tmp_path):
    engine = load(tmp_path)
    events = []
    st = engine.new_game(2, 1, sink=events.append)
    while st.result is None:
        st = engine.apply(st, 0, sink=events.append)
    # Owl: 3 per bird (Owl, Rock, Elm); Fern 7; Moss: the table's third entry (5 cards); Rock: no
    # formula, 0; Elm: its own name given as a text.
    assert [e["data"]["text"] for e in events if e["event"] == "log"] == [
        "points [Owl, Fern, Moss, Rock, Elm] [136]"]
    assert 3 * 3 + 7 + 20 + 0 + 100 == 136
    assert st.result["rank"]["P1"] == 136


def test_a_formula_reads_back_as_written():
    for text in ('per_type(bird, 3)', 'flat(-7)', 'by_size([0, 10, 20])', 'named("Elm")', 'f()', 'g(true, false)'):
        assert formula_text(parse_formula(text)) == text
    assert parse_formula(' per_type ( bird , 3 ) ') == ("per_type", ("bird", 3), ("name", "int"))


@pytest.mark.parametrize("change, message, line", [
    (('points = "flat(7)"', 'points = "flat(7"'), "field 'points': expected `,` or `)` at column 7 of the formula", 9),
    (('points = "flat(7)"', 'points = "flat 7"'), "expected `(` after the definition's name at column 6", 9),
    (('points = "flat(7)"', 'points = "(7)"'), "expected the name of a definition at column 1", 9),
    (('points = "flat(7)"', 'points = 7'), "expected a formula, written as \"name(arguments)\", or \"none\"", 9),
    (('points = "flat(7)"', 'points = "flot(7)"'), "'flot' is not a definition of the ruleset", 9),
    (('points = "flat(7)"', 'points = "flat(7, 8)"'), "`flat` takes 3 arguments; `call` gives it 2 and this card 2", 9),
    (('points = "per_type(bird, 3)"', 'points = "per_type(brid, 3)"'), "'brid' in per_type(...) is not an enum value", 4),
])
def test_mistakes_in_a_cards_formula_are_placed_in_the_database(tmp_path, change, message, line):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, cards=CARDS.replace(*change))
    text = err.value.render()
    assert message in text and f"formulas.toml:{line}:" in text


@pytest.mark.parametrize("change, message", [
    (("points: formula = none", "points: formula = flat"), "the default of formula field `points` can only be none"),
    (("def flat(c, p, n) = n", "def flat(c, p, n) = c"), "`flat` is a formula of Card's `points` in the card database, so it must give a number"),
    (("[sum(p.table, call(it.points, it, p))]", "[sum(p.table, call(it.type, it, p))]"), "`call` runs a card's formula field"),
    (("rank by sum(p.table, call(it.points, it, p))", "rank by sum(p.table, call(it.points, p))"),
     "every `call` of Card's `points` passes the same arguments before the card's own"),
    (("def flat(c, p, n) = n", "def flat(c, p, n) = n + count(p)"), "formulas.lf:"),
])
def test_mistakes_with_formulas_in_the_rules_are_positioned(tmp_path, change, message):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, RULES.replace(*change))
    text = err.value.render()
    assert message in text and "formulas.lf:" in text


def test_a_formula_field_belongs_to_cards_only(tmp_path):
    rules = RULES.replace("zone table:", "track ring: ring 3 { f: formula = none }\nzone table:")
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules)
    assert "only cards have formula fields" in err.value.render()


def test_formulas_that_run_one_another_forever_stop_with_a_clear_error(tmp_path):
    from interpreter.core.runtime import GameError
    rules = RULES.replace("def flat(c, p, n) = n", "def flat(c, p, n) = n + call(c.points, c, p)")
    engine = load(tmp_path, rules)
    with pytest.raises(GameError) as err:
        engine.new_game(2, 1)
    assert "cards' formulas run one another more than 32 deep" in str(err.value) and "formulas.lf:" in str(err.value)
