"""Choice labels: `choose x in coll label a, b, ...` shows each element as its values joined by
spaces, a card numbered among the cards of its name in its place (`above Ash #2`)."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from rulesdsl import unparse
from rulesdsl.errors import LanguageError

CARDS = """
[[Card]]
name = "Ash"
[[Card]]
name = "Oak"
[[Card]]
name = "Owl"
"""

RULES = """
game "Labels" { players 1..1 cards "labels.toml" }
kind Card {
    slot above: row of Card limit 1
}
zone supply: row of Card
zone forest: row of Card
setup {
    create defs(Card) into supply
    create first(defs(Card)) into forest
    create defs(Card) into forest
}
round {
    phase play each p {
        choose h in forest where room(it, above) > 0 label "above", h, "at", index_of(forest, h) + 1 {
            move first(supply) to slot(h, above)
        }
        if count(supply) == 0 { end game }
    }
}
"""


def load(tmp_path, rules=RULES):
    (tmp_path / "labels.toml").write_text(CARDS)
    (tmp_path / "labels.lf").write_text(rules)
    return Engine.load(tmp_path / "labels.lf")


def test_a_label_names_each_option_in_the_collections_order(tmp_path):
    engine = load(tmp_path)
    st = engine.new_game(1, 1)
    # The forest holds Ash, Ash, Oak, Owl: the two Ash are told apart by their rank.
    assert st.pending["prompt"] == "choose h"
    assert st.pending["options"] == ["above Ash #1 at 1", "above Ash #2 at 2", "above Oak at 3", "above Owl at 4"]
    st = engine.apply(st, "above Ash #2 at 2")
    assert st.pending["options"] == ["above Ash #1 at 1", "above Oak at 3", "above Owl at 4"]


def test_elements_shown_alike_are_one_option(tmp_path):
    engine = load(tmp_path, RULES.replace('label "above", h, "at", index_of(forest, h) + 1', 'label h.name'))
    st = engine.new_game(1, 1)
    assert st.pending["options"] == ["Ash", "Oak", "Owl"]  # the first Ash stands for both


def test_a_label_is_written_back_and_checked(tmp_path):
    engine = load(tmp_path)
    phase = engine.program.model.round.phases[0]
    line = next(ln for ln in unparse.phase(phase, 0) if "choose h" in ln)
    assert 'label "above", h, "at", index_of(forest, h) + 1 {' in line
    with pytest.raises(LanguageError) as err:
        load(tmp_path, RULES.replace('label "above", h,', 'label "above", forest,'))
    assert "a label shows values such as cards, numbers, names and texts, not zone" in err.value.render()
    with pytest.raises(LanguageError) as err:
        load(tmp_path, RULES.replace('label "above", h,', 'label "above", g,'))
    assert "unknown name `g`" in err.value.render()


def test_a_choice_of_an_element_asks_its_own_question(tmp_path):
    rules = RULES.replace("choose h in forest where room(it, above) > 0 label",
                          'choose h in forest where room(it, above) > 0 "where it goes" label')
    engine = load(tmp_path, rules)
    st = engine.new_game(1, 1)
    assert st.pending["prompt"] == "where it goes"
    line = next(ln for ln in unparse.phase(engine.program.model.round.phases[0], 0) if "choose h" in ln)
    assert '"where it goes" label' in line
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules.replace('"where it goes"', '" "'))
    assert "the prompt of this choice is empty" in err.value.render()


def test_a_pick_asks_its_own_question_in_the_shipped_rules():
    from interpreter.engine import Engine
    from .conftest import ROOT
    engine = Engine.load(ROOT / "rulesets" / "base.lf")
    picks = [ln for ln in unparse.item(engine.program.model.actions["attract"]) if ln.strip().startswith("pick ")]
    assert picks and picks[0].rstrip().endswith('within sun(p) + amount "animal to attract" {')


NUMBERED = """
[[Card]]
name = "Red 10"
[[Card]]
name = "Red 2"
[[Card]]
name = "Red 1"
[[Card]]
name = "Blue 12"
"""

def test_options_come_in_natural_order(tmp_path):
    # Cards by name, cells and players by label: runs of digits compare by value, so Red 2 comes
    # before Red 10, (2,1) before (10,1) and P2 before P10 (docs/language.md, "Options").
    (tmp_path / "labels.toml").write_text(NUMBERED)
    rules = """
game "Natural" { players 1..12 cards "labels.toml" }
kind Card { }
zone supply: row of Card
grid board: 12 x 1 of Card
setup {
    create defs(Card) into supply
}
round {
    phase play each p {
        if p == player(1) {
            choose c in supply { move c to supply }
            choose q in players { }
            choose x in empty_cells(board) where it == cell(board, 2, 1) or it == cell(board, 10, 1) or it == cell(board, 1, 1) { }
        }
        end game
    }
}
"""
    (tmp_path / "natural.lf").write_text(rules)
    engine = Engine.load(tmp_path / "natural.lf")
    st = engine.new_game(11, 1)
    assert st.pending["options"] == ["Blue 12", "Red 1", "Red 2", "Red 10"]
    st = engine.apply(st, "Red 2")
    assert st.pending["options"] == ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11"]
    st = engine.apply(st, "P10")
    assert st.pending["options"] == ["(1,1)", "(2,1)", "(10,1)"]
