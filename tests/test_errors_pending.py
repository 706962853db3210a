"""Error-reporting tests that fail because of known bugs in rulesdsl/ (not yet fixed).

Each test asserts the RIGHT behaviour and is marked `xfail(strict=True)` with the bug in its reason,
so the suite stays green until the fix lands; once it does, the test XPASSes, which strict mode
turns into a failure: then delete the marker (and move the test to tests/test_errors.py).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulesdsl.cards import load_cards
from rulesdsl.checker import check
from rulesdsl.errors import CardError
from rulesdsl.parser import parse_file
from tests.test_errors import expectations, run_annotated

ROOT = Path(__file__).resolve().parent.parent
PENDING_LF = ROOT / "tests" / "errors" / "pending"
CARDS_DIR = ROOT / "tests" / "errors" / "cards"


def bug(reason, raises=AssertionError):
    return pytest.mark.xfail(strict=True, raises=raises, reason=reason)


# ---- rules files -----------------------------------------------------------------------------
def _one_diagnostic_per_annotated_line(name):
    path = PENDING_LF / name
    _, diags = run_annotated(path)
    for line in expectations(path.read_text(encoding="utf-8")):
        on_line = [d.message for d in diags if d.line == line]
        assert len(on_line) == 1, f"line {line}: {on_line}"


@bug("parser.py: _GrammarMisuse for a grid option carries a tuple, not a node, so the "
     "diagnostic falls back to Span(1, 1) instead of the grid's line")
def test_grid_option_error_points_at_the_grid():
    _one_diagnostic_per_annotated_line("grid_option.lf")


@bug("checker.py check_default: a misspelt enum default is reported twice at the same place, "
     "as `unknown name` (from self.expr) and as `not a value of this enum`")
def test_misspelt_enum_default_is_one_diagnostic():
    _one_diagnostic_per_annotated_line("enum_default_misspelt.lf")


@bug("checker.py s_Set: `set gold += 1` on a per-player counter also reports "
     "`only counters can be set` with the hint `declare it with counter`, which is wrong")
def test_set_on_per_player_counter_without_player_is_one_diagnostic():
    _one_diagnostic_per_annotated_line("set_per_player_counter.lf")


# ---- card databases --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kinds():
    return check(parse_file(ROOT / "rulesets" / "base.lf")).kinds


def _card_error(name, kinds) -> CardError:
    path = CARDS_DIR / name
    with pytest.raises(CardError) as info:
        load_cards(path, kinds)
    for d in info.value.diagnostics:
        assert d.path == str(path)
    return info.value


def _field_named(field, message):
    return re.search(rf"[`']{re.escape(field)}[`']", message)


@bug("cards.py _strict_type: the validator ignores `attribute`, so a wrong type does not name "
     "the field: \"Animal card 'Lynx': expected int, got 'two'\"")
def test_wrong_type_names_card_and_field(kinds):
    error = _card_error("wrong_type.toml", kinds)
    [d] = error.diagnostics
    assert "card 'Lynx'" in d.message
    assert "'two'" in d.message
    assert _field_named("sun", d.message), d.message


@bug("cards.py _one_of: an enum value outside the enum does not name the field `type`")
def test_bad_enum_names_card_and_field(kinds):
    error = _card_error("bad_enum.toml", kinds)
    [d] = error.diagnostics
    assert "card 'Fox'" in d.message
    assert "'solitry'" in d.message and "did you mean `solitary`?" in d.message
    assert _field_named("type", d.message), d.message


@bug("cards.py: TOMLDecodeError has no lineno/colno on Python 3.11 (added in 3.14), so the "
     "diagnostic is at 0:0; the line is only inside the message text")
def test_invalid_toml_diagnostic_has_position(kinds):
    error = _card_error("invalid_toml.toml", kinds)
    [d] = error.diagnostics
    assert d.line == 5
    assert d.col >= 1
    assert d.render().startswith(f"{CARDS_DIR / 'invalid_toml.toml'}:5:")


@bug("cards.py load_cards: an array entry that is not a table crashes with AttributeError "
     "('int' object has no attribute 'get') instead of a CardError", raises=AttributeError)
def test_entry_that_is_not_a_table(kinds):
    error = _card_error("not_a_table.toml", kinds)
    assert error.diagnostics
    assert all("Animal" in d.message for d in error.diagnostics)
    assert all("table" in d.message for d in error.diagnostics)


@bug("cards.py: a non-text `name` leaks attrs' raw TypeError args tuple (with an Attribute(...) "
     "repr) into the message")
def test_name_that_is_not_text(kinds):
    error = _card_error("name_not_text.toml", kinds)
    [d] = error.diagnostics
    assert _field_named("name", d.message), d.message
    assert "Attribute(" not in d.message and "<class" not in d.message, d.message
    assert "5" in d.message


@bug("cards.py: load_cards promises every problem, but when a card has an unknown field the "
     "wrong-type value on the same card is not reported")
def test_every_problem_of_a_card_is_listed(kinds):
    error = _card_error("two_problems.toml", kinds)
    text = error.render()
    assert "card 'Weasel'" in text
    assert _field_named("suns", text), text
    assert _field_named("water", text), text
