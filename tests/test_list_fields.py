"""`list of int` card fields: a table of numbers on a card (points per set size, costs per level)."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from rulesdsl.errors import LanguageError

RULES = """
game "Tables" { players 2..2 cards "tables.toml" round_limit 1 }
kind Scorer {
    value: int = 0
    table: list of int = [0, 1]
}
zone pile: row of Scorer
counter got = 0 per player
setup {
    create defs(Scorer) into pile
}
round {
    phase score each p {
        for c in pile {
            set p.got += sum(set_sizes(pile, it.value), c.table[min(it, count(c.table) - 1)])
        }
        set p.got += count(first(pile).table) * 1000
        win player(1) "scored"
    }
}
"""

CARDS = """
[[Scorer]]
name = "Steps"
value = 1
table = [0, 5, 10, 30]

[[Scorer]]
name = "Flat"
value = 1

[[Scorer]]
name = "Other"
value = 2
table = [7, 7, 7]
"""


def load(tmp_path, rules=RULES, cards=CARDS):
    (tmp_path / "tables.toml").write_text(cards)
    (tmp_path / "tables.lf").write_text(rules)
    return Engine.load(tmp_path / "tables.lf")


def test_a_card_carries_a_table_of_numbers(tmp_path):
    engine = load(tmp_path)
    st = engine.new_game(2, 1)
    # Values 1, 1, 2 make sets of sizes [2, 1]; each card scores its table at those sizes:
    # Steps 10 + 5, Flat (the default [0, 1]) 1 + 1, Other 7 + 7; and the first card's table has 4.
    assert st.counters["got"][0] == 15 + 2 + 14 + 4000


def test_a_wrong_table_is_a_positioned_error(tmp_path):
    with pytest.raises(LanguageError) as err:
        load(tmp_path, cards=CARDS.replace("[0, 5, 10, 30]", '[0, "five"]'))
    text = err.value.render()
    assert "tables.toml:5:" in text and "field 'table': a list of numbers" in text
    with pytest.raises(LanguageError) as err:
        load(tmp_path, cards=CARDS.replace("table = [7, 7, 7]", "table = 7"))
    assert "field 'table': expected a list of numbers, got 7" in err.value.render()
    with pytest.raises(LanguageError) as err:
        load(tmp_path, rules=RULES.replace("= [0, 1]", "= [0, value]"))
    assert "a card field default must be a literal value" in err.value.render()


def test_a_layer_can_change_a_cards_table_and_explain_prints_the_type(tmp_path):
    load(tmp_path)
    (tmp_path / "variant.lf").write_text('extends "tables.lf"\namend card "Steps" { table = [1, 2] }\n')
    engine = Engine.load(tmp_path / "variant.lf")
    steps = engine.program.names.index("Steps")
    assert engine.program.fields[steps]["table"] == [1, 2]
    from rulesdsl import unparse
    kind = engine.program.model.kinds["Scorer"]
    assert any("table: list of int = [0, 1]" in line for line in unparse.item(kind))
