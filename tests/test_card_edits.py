"""A layer changes single cards: `amend card`, `replace card`, `remove card` (docs/language.md,
"Changing a card")."""
from __future__ import annotations

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.tools.cli import main
from interpreter.engine import Engine
from rulesdsl.errors import CardError, CheckError

from .conftest import ROOT

LAYERS = ROOT / "tests" / "rulesets" / "layers"
VARIANT = ROOT / "tests" / "rulesets" / "variants" / "strong_lynx.lf"


def card(engine, name):
    return next(d for d in engine.program.cards.defs if d.name == name)


def layer(tmp_path, text, cards=None):
    """A layer over tests/rulesets/layers/parent.lf, written with its parent into `tmp_path`."""
    (tmp_path / "parent.lf").write_text((LAYERS / "parent.lf").read_text().replace("../tiny.toml", "tiny.toml"))
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    if cards is not None:
        (tmp_path / "more.toml").write_text(cards)
    path = tmp_path / "variant.lf"
    path.write_text('extends "parent.lf"\n' + text)
    return path


def errors_of(path):
    with pytest.raises((CardError, CheckError)) as err:
        Engine.load(path)
    return [d.render() for d in err.value.diagnostics]


def test_a_variant_changes_one_card_and_the_goal_and_explain_shows_both(capsys):
    base = Engine.load(ROOT / "rulesets" / "base.lf")
    variant = Engine.load(VARIANT)
    assert card(base, "Lynx").fields["sun"] == 2 and card(base, "Lynx").fields["wind"] == 0
    assert card(variant, "Lynx").fields["sun"] == 3 and card(variant, "Lynx").fields["wind"] == 1
    assert card(variant, "Lynx").fields["water"] == 1  # a field the layer does not name is kept
    assert card(variant, "Lynx").index == card(base, "Lynx").index
    assert variant.program.params["goal"] == 10
    assert main(["check", str(VARIANT)]) == 0
    assert main(["explain", str(VARIANT)]) == 0
    out = capsys.readouterr().out
    assert f"replace param goal  ({VARIANT}:4)" in out
    assert f'amend card "Lynx": sets sun = 3, wind = 1  ({VARIANT}:6)' in out


def test_amend_replace_and_remove_change_the_database_in_order(tmp_path):
    path = layer(tmp_path, 'amend card "Red" { value = 5 }\n'
                           'remove card "Blue"\n'
                           'replace card Token "Green" { value = 7 }\n'
                           'amend card "Red" { value = 6 }\n')
    engine = Engine.load(path)
    defs = engine.program.cards.defs
    assert [(d.name, d.fields["value"], d.index) for d in defs] == [("Red", 6, 0), ("Green", 7, 1)]
    assert [d.name for d in engine.program.cards.by_kind["Token"]] == ["Red", "Green"]
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("random", 2, 1))
    assert engine.is_over(st)


def test_a_card_that_is_not_there_is_a_positioned_error_with_a_suggestion(tmp_path):
    path = layer(tmp_path, 'amend card "Rde" { value = 5 }\n')
    assert errors_of(path) == [
        f'{path}:2:1: `amend card "Rde"`: no card of that name in the databases below\n'
        '    amend card "Rde" { value = 5 }\n'
        '    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
        '    hint: did you mean "Red"?']


def test_a_removed_card_cannot_be_amended_after(tmp_path):
    path = layer(tmp_path, 'remove card "Blue"\namend card "Blue" { value = 1 }\n')
    assert errors_of(path)[0].startswith(f'{path}:3:1: `amend card "Blue"`: no card of that name')


def test_every_mistake_of_an_edit_is_reported_at_its_place(tmp_path):
    path = layer(tmp_path, 'amend card "Red" { valeu = 5 }\n'
                           'amend card "Blue" { value = "two" }\n'
                           'amend card "Green" { value = 1 + 1 }\n'
                           'amend card "Green" { name = "Lime" }\n'
                           'amend card "Green" { value = 1; value = 2 }\n'
                           'remove card Tokn "Red"\n')
    found = errors_of(path)
    assert [e.splitlines()[0] for e in found] == [
        f'{path}:2:20: `amend card "Red"`: Token cards have no field `valeu`',
        f'{path}:3:29: `amend card "Blue"`: field \'value\': expected int, got "two"',
        f'{path}:4:30: `amend card "Green"`: field `value`: a card\'s value is a number, true or false, '
        'a text, a name or a list of numbers',
        f"{path}:5:22: a card's name cannot be changed",
        f'{path}:6:33: `amend card "Green"`: field `value` is given twice',
        f'{path}:7:1: `remove card Tokn "Red"`: `Tokn` is not a card kind of the ruleset']
    assert "hint: did you mean `value`?" in found[0]
    assert "hint: did you mean `Token`?" in found[-1]


def test_a_name_two_kinds_share_needs_the_kind(tmp_path):
    text = 'kind Chip { value: int }\namend game { cards "more.toml" }\n'
    path = layer(tmp_path, text + 'amend card "Red" { value = 9 }\n', '[[Chip]]\nname = "Red"\nvalue = 4\n')
    assert errors_of(path) == [
        f'{path}:4:1: `amend card "Red"`: cards of kinds Token, Chip have that name\n'
        '    amend card "Red" { value = 9 }\n'
        '    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
        '    hint: name the kind: `amend card Token "Red"`']
    path.write_text('extends "parent.lf"\n' + text + 'amend card Chip "Red" { value = 9 }\n')
    engine = Engine.load(path)
    assert [(d.kind, d.name, d.fields["value"]) for d in engine.program.cards.defs] == [
        ("Token", "Red", 1), ("Token", "Blue", 2), ("Token", "Green", 3), ("Chip", "Red", 9)]


def test_an_amended_action_is_checked_against_the_rules_where_the_layer_wrote_it(tmp_path):
    path = layer(tmp_path, 'amend kind Token { act: action = none }\namend card "Red" { act = gian }\n')
    found = errors_of(path)
    assert found[0].splitlines()[0] == (f"{path}:3:26: Token card 'Red': field 'act': 'gian' is not an action "
                                        "of the ruleset (did you mean `gain`?)")
    assert found[0].splitlines()[1] == '    amend card "Red" { act = gian }'


def test_a_card_edit_needs_a_ruleset_below(tmp_path):
    path = tmp_path / "alone.lf"
    path.write_text((LAYERS / "parent.lf").read_text() + 'remove card "Red"\n')
    found = errors_of(path)
    assert found[0].splitlines()[0].endswith("`remove` changes a lower layer, but this ruleset extends none")
