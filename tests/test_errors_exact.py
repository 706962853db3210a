"""Error reports that must be exactly right: one diagnostic per mistake, every card problem listed,
positions for TOML syntax errors, and no traceback for malformed card tables."""
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
PENDING_LF = ROOT / "tests" / "errors" / "single"
CARDS_DIR = ROOT / "tests" / "errors" / "cards"



# ---- rules files -----------------------------------------------------------------------------
def _one_diagnostic_per_annotated_line(name):
    path = PENDING_LF / name
    _, diags = run_annotated(path)
    for line in expectations(path.read_text(encoding="utf-8")):
        on_line = [d.message for d in diags if d.line == line]
        assert len(on_line) == 1, f"line {line}: {on_line}"


def test_grid_option_error_points_at_the_grid():
    _one_diagnostic_per_annotated_line("grid_option.lf")


def test_misspelt_enum_default_is_one_diagnostic():
    _one_diagnostic_per_annotated_line("enum_default_misspelt.lf")


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


def test_wrong_type_names_card_and_field(kinds):
    error = _card_error("wrong_type.toml", kinds)
    [d] = error.diagnostics
    assert "card 'Lynx'" in d.message
    assert re.search(r"['\"]two['\"]", d.message)
    assert _field_named("sun", d.message), d.message


def test_bad_enum_names_card_and_field(kinds):
    error = _card_error("bad_enum.toml", kinds)
    [d] = error.diagnostics
    assert "card 'Fox'" in d.message
    assert re.search(r"['\"]solitry['\"]", d.message) and "did you mean `solitary`?" in d.message
    assert _field_named("type", d.message), d.message


def test_an_unclosed_table_header_is_positioned_where_the_bracket_is_missing(kinds):
    error = _card_error("unclosed_header.toml", kinds)
    [d] = error.diagnostics
    assert (d.line, d.col) == (2, 9)
    assert d.message == "not valid TOML: expected ']]' at the end of an array declaration"
    assert d.render().startswith(f"{CARDS_DIR / 'unclosed_header.toml'}:2:9: not valid TOML")


def test_entry_that_is_not_a_table(kinds):
    error = _card_error("not_a_table.toml", kinds)
    assert error.diagnostics
    assert all("Animal" in d.message for d in error.diagnostics)
    assert all("table" in d.message for d in error.diagnostics)


def test_name_that_is_not_text(kinds):
    error = _card_error("name_not_text.toml", kinds)
    [d] = error.diagnostics
    assert _field_named("name", d.message), d.message
    assert "Attribute(" not in d.message and "<class" not in d.message, d.message
    assert "5" in d.message


def test_every_problem_of_a_card_is_listed(kinds):
    error = _card_error("two_problems.toml", kinds)
    text = error.render()
    assert "card 'Weasel'" in text
    assert _field_named("suns", text), text
    assert _field_named("water", text), text
