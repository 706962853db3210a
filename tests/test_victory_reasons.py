"""A victory block may give a reason per win condition; the end of the game names the one met.
Layers may rename the game (`amend game { name ... }`), and `lfdsl run` prints that name."""
from __future__ import annotations

import pytest

from interpreter.tools.cli import main
from interpreter.engine import Engine
from rulesdsl import unparse
from rulesdsl.errors import ParseError
from rulesdsl.layers import load_ruleset
from rulesdsl.parser import parse

from .conftest import ROOT

RULES = """game "Reasons" {{
    players 2..2
    cards "{cards}"
}}
kind Token {{ value: int }}
counter gold = 0 per player
counter gems = 0 per player
round {{
    phase a each p {{
        set p.gold += 1
        if seat(p) == 2 {{ set p.gems += 2 }}
    }}
}}
victory for p after a {{
    score g = p.gold
    win if p.gems >= 4 "four gems"
    win if g >= {gold_goal} "{gold_reason}"
    rank by g + p.gems
}}
"""


def _end(tmp_path, gold_goal=9, gold_reason="nine gold"):
    path = tmp_path / "reasons.lf"
    (path.parent / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path.write_text(RULES.format(cards="tiny.toml", gold_goal=gold_goal,
                                 gold_reason=gold_reason))
    engine = Engine.load(path)
    st = engine.new_game(2, 1)
    assert st.result is not None
    return st.result


def test_the_reason_of_the_condition_met(tmp_path):
    result = _end(tmp_path)
    assert result["winners"] == ["P2"] and result["round"] == 2
    assert result["reason"] == "four gems"


def test_reasons_of_several_winners(tmp_path):
    result = _end(tmp_path, gold_goal=2)
    # Both win in round 2: P1 with gold only, P2 with gems (its first condition met); P2 ranks higher.
    assert result["winners"] == ["P2"]
    assert result["reason"] == "four gems; tie broken by rank (6)"


def test_several_win_lines_are_one_condition_for_the_printer():
    program = parse(RULES.format(cards="x.toml", gold_goal=9, gold_reason="nine gold"), "r.lf")
    text = unparse.program(program.items)
    assert '    win if p.gems >= 4 "four gems"\n    win if g >= 9 "nine gold"\n' in text
    again = parse(text, "again.lf")
    assert unparse.program(again.items) == text


def test_a_win_line_without_reason_keeps_the_generic_text(tmp_path):
    path = tmp_path / "plain.lf"
    (path.parent / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path.write_text(RULES.format(cards="tiny.toml", gold_goal=9,
                                 gold_reason="x").replace(' "four gems"', ""))
    st = Engine.load(path).new_game(2, 1)
    assert st.result["reason"] == "win condition met after phase `a`"


def test_name_belongs_to_amend_game():
    with pytest.raises(ParseError) as info:
        parse('game "T" { players 1..1 name "U" }', "t.lf")
    assert "`name` is for `amend game`" in info.value.diagnostics[0].message


@pytest.mark.parametrize("ruleset, name", [("base.lf", "Living Forest"), ("kodama.lf", "Living Forest: Kodama"),
                                           ("solo.lf", "Living Forest: Kodama solo")])
def test_run_header_carries_the_layer_name(ruleset, name, capsys):
    assert load_ruleset(ROOT / "rulesets" / ruleset).items[0].name == name
    assert main(["run", str(ROOT / "rulesets" / ruleset), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(f"{name}: ")


def test_base_game_names_the_goal_met(base_engine):
    st = base_engine.new_game(2, 11)
    from interpreter.tools.agents import make_agents, play
    play(base_engine, st, make_agents("random", 2, 11), None)
    assert st.result["reason"].split(";")[0] in (
        "different trees reached the goal", "fires reached the goal", "flowers reached the goal")
