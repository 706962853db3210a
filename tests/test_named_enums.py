"""Named enums: `enum Colour { warm, cold }` declared once, used as the type of many fields."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from rulesdsl.errors import LanguageError

from .conftest import ROOT

RULES = """
game "Named" { players 2..2 cards "tiny.toml" round_limit 1 }
enum Colour { warm, cold, grey }
kind Token {
    value: int
    tone: Colour = grey
    trim: Colour = cold
}
zone pile: row of Token
counter warmth = 0
setup {
    create defs(Token) into pile
}
round {
    phase look {
        set warmth += count(pile where it.tone == warm or it.trim == warm) * 10 + count(pile where it.trim == cold)
        win player(1) "done"
    }
}
"""


def load(tmp_path, rules=RULES, cards=None, name="named.lf"):
    (tmp_path / "tiny.toml").write_text(cards or (ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / name).write_text(rules)
    return Engine.load(tmp_path / name)


def test_fields_typed_by_a_named_enum_take_its_values(tmp_path):
    cards = (ROOT / "tests" / "rulesets" / "tiny.toml").read_text().replace(
        'name = "Red"\nvalue = 1', 'name = "Red"\nvalue = 1\ntone = "warm"')
    st = load(tmp_path, cards=cards).new_game(2, 1)
    assert st.counters["warmth"] == 1 * 10 + 3  # Red is warm; every trim is the default, cold


def test_a_card_value_outside_the_enum_is_refused_with_its_values(tmp_path):
    cards = (ROOT / "tests" / "rulesets" / "tiny.toml").read_text().replace(
        'name = "Red"\nvalue = 1', 'name = "Red"\nvalue = 1\ntone = "wram"')
    with pytest.raises(LanguageError) as err:
        load(tmp_path, cards=cards)
    text = err.value.render()
    assert "field 'tone': \"wram\" is not one of warm, cold, grey" in text and "warm" in text


@pytest.mark.parametrize("change, message", [
    (("tone: Colour = grey", "tone: Color = grey"), "`Color` is not a type"),
    (("enum Colour { warm, cold, grey }", "enum Colour { warm, cold, warm }"), "enum `Colour` lists a value twice"),
    (("zone pile: row of Token", "zone pile: row of Token\nzone Colour: row of Token"),
     "`Colour` is already declared"),
    (("tone: Colour = grey", "tone: Colour = blue"), "`blue` is not a value of this enum"),
])
def test_mistakes_are_positioned_errors(tmp_path, change, message):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, RULES.replace(*change))
    text = err.value.render()
    assert message in text and "named.lf:" in text
    if "Color" in change[1]:
        assert "did you mean" in text and "Colour" in text


def test_a_layer_replaces_an_enum(tmp_path):
    load(tmp_path)
    (tmp_path / "variant.lf").write_text('extends "named.lf"\nreplace enum Colour { warm, cold, grey, bright }\n')
    engine = Engine.load(tmp_path / "variant.lf")
    assert engine.program.model.kinds["Token"].fields[1].type.values == ("warm", "cold", "grey", "bright")


SETS = RULES.replace("    trim: Colour = cold\n", "    trim: Colour = cold\n    marks: set of Colour = [grey]\n    also: set of enum(a, b) = []\n").replace(
    "set warmth += count(pile where it.tone == warm or it.trim == warm) * 10 + count(pile where it.trim == cold)",
    "set warmth += count(pile where warm in it.marks) * 10 + count(pile where grey in it.marks and b in it.also)")


def test_a_set_field_holds_several_values_of_its_enum(tmp_path):
    cards = (ROOT / "tests" / "rulesets" / "tiny.toml").read_text().replace(
        'name = "Red"\nvalue = 1', 'name = "Red"\nvalue = 1\nmarks = ["warm", "grey"]\nalso = ["b"]')
    engine = load(tmp_path, SETS, cards=cards)
    assert engine.new_game(2, 1).counters["warmth"] == 1 * 10 + 1  # Red alone is warm, and grey with b
    from rulesdsl import unparse
    lines = unparse.item(engine.program.model.kinds["Token"])
    assert "    marks: set of Colour = [grey]" in lines and "    also: set of enum(a, b) = []" in lines


@pytest.mark.parametrize("change, message", [
    (('also = ["b"]', 'also = ["c"]'), "field 'also': \"c\" is not one of a, b"),
    (('also = ["b"]', 'also = "b"'), "field 'also': expected a list of names, got \"b\""),
])
def test_a_wrong_set_in_a_card_is_refused(tmp_path, change, message):
    cards = (ROOT / "tests" / "rulesets" / "tiny.toml").read_text().replace(
        'name = "Red"\nvalue = 1', 'name = "Red"\nvalue = 1\n' + change[1])
    with pytest.raises(LanguageError) as err:
        load(tmp_path, SETS, cards=cards)
    assert message in err.value.render()


def test_a_set_default_must_list_values_of_its_enum(tmp_path):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, SETS.replace("= [grey]", "= [gray]"))
    text = err.value.render()
    assert "default of `marks` is a list of values of its enum" in text and "named.lf:" in text


# A ruleset written by an outsider: an enum value and a definition spelt alike. A definition is
# only ever called, so `r == most` is the enum value and `most(p, c.value)` the definition.
OUTSIDER = """
game "Outsider" { players 2..2 cards "tiny.toml" round_limit 1 }
enum Rank { most, least }
kind Token {
    value: int
    rank: Rank = least
}
zone pile: row of Token
counter score = 0 per player
def most(p, i) = i * 10 + seat(p)
setup { create defs(Token) into pile }
round {
    phase look each p {
        for c in pile {
            let r = c.rank
            if r == most { set p.score += most(p, c.value) } else { set p.score += 1 }
        }
    }
    phase close { end game }
}
victory for p after close { win if false rank by p.score }
"""


def test_an_enum_value_spelt_like_a_def_checks_and_runs(tmp_path):
    cards = (ROOT / "tests" / "rulesets" / "tiny.toml").read_text().replace(
        'name = "Blue"\nvalue = 2', 'name = "Blue"\nvalue = 2\nrank = "most"')
    st = load(tmp_path, OUTSIDER, cards=cards).new_game(2, 1)
    assert st.counters["score"] == [2 * 10 + 1 + 2, 2 * 10 + 2 + 2]  # Blue is most; Red and Green 1 each


def test_a_bare_name_both_an_enum_value_and_a_zone_is_refused_where_it_is_written(tmp_path):
    rules = OUTSIDER.replace("zone pile: row of Token", "zone pile: row of Token\nzone least: row of Token").replace(
        "if r == most {", "if r == least or count(least) > 0 {")
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules)
    line = next(i for i, text in enumerate(rules.splitlines(), 1) if "r == least" in text)
    text = rules.splitlines()[line - 1]
    at = [text.index("least"), text.index("least", text.index("count"))]
    assert [(d.line, d.col, d.end_line, d.end_col) for d in err.value.diagnostics] == [
        (line, col + 1, line, col + 1 + len("least")) for col in at]
    assert {d.message for d in err.value.diagnostics} == {
        "`least` could mean the zone `least` or the value `least` of enum Rank"}
