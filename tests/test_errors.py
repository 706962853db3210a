"""Error reporting: annotated broken rules files and broken card databases.

Each `tests/errors/lf/*.lf` file marks the lines that must be reported with a trailing
`# expect-error: <regex>` comment (several markers may share a line). The file must fail with
exactly the annotated diagnostics: one per annotated line at least, none anywhere else. Files
named `parse_*` must fail in the parser, all others in the checker.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulesdsl.cards import load_cards
from rulesdsl.checker import check
from rulesdsl.errors import CardError, CheckError, LanguageError, ParseError
from rulesdsl.parser import parse, parse_file

ROOT = Path(__file__).resolve().parent.parent
LF_DIR = ROOT / "tests" / "errors" / "lf"
CARDS_DIR = ROOT / "tests" / "errors" / "cards"
MARKER = "# expect-error:"

LF_FILES = sorted(LF_DIR.glob("*.lf"))


def rel(path: Path) -> str:
    """The path as it is shown in diagnostics: relative to the repository root."""
    return path.relative_to(ROOT).as_posix()


def expectations(source: str) -> dict[int, list[str]]:
    """Line number -> the regexes annotated on that line."""
    out: dict[int, list[str]] = {}
    for number, text in enumerate(source.splitlines(), start=1):
        if MARKER in text:
            regexes = [part.strip() for part in text.split(MARKER)[1:]]
            assert all(regexes), f"line {number}: empty `{MARKER}` annotation"
            out[number] = regexes
    return out


def run_annotated(path: Path) -> tuple[LanguageError, list]:
    """Parse and check an annotated file; assert its diagnostics are exactly the annotated ones.

    Returns the error and its diagnostics so callers can add their own assertions.
    """
    source = path.read_text(encoding="utf-8")
    shown = rel(path)
    wanted = expectations(source)
    assert wanted, f"{shown} has no `{MARKER}` annotation"
    with pytest.raises(LanguageError) as info:
        check(parse(source, shown))
    error = info.value
    diags = list(error.diagnostics)
    assert diags, "a LanguageError must carry at least one diagnostic"
    lines = source.splitlines()

    for d in diags:
        assert d.path == shown
        assert d.line in wanted, f"unexpected diagnostic {d.line}:{d.col}: {d.message}"
        assert any(re.search(rx, d.message) for rx in wanted[d.line]), (
            f"line {d.line}: {d.message!r} matches none of {wanted[d.line]}")
        assert 1 <= d.col <= len(lines[d.line - 1]) + 1, f"column {d.col} outside line {d.line}"
        assert d.source_line == lines[d.line - 1]
        rendered = d.render()
        assert f"{shown}:{d.line}:{d.col}: {d.message}" in rendered
        rendered_lines = rendered.splitlines()
        assert "    " + lines[d.line - 1] in rendered_lines
        # Every diagnostic of a rules file knows where its construct ends; the caret line underlines
        # the construct when it ends on the line it starts on.
        at_end_or_whole_file = "end of file" in d.message or d.message.startswith("the ruleset has no")
        assert at_end_or_whole_file or (d.end_line, d.end_col) > (d.line, d.col), (d.end_line, d.end_col)
        one_line = d.end_line == d.line
        width = min(d.end_col, len(lines[d.line - 1]) + 1) - d.col if one_line else 1
        assert "    " + " " * (d.col - 1) + "^" * width in rendered_lines
        assert d.severity == "error"

    for number, regexes in wanted.items():
        on_line = [d.message for d in diags if d.line == number]
        for rx in regexes:
            assert any(re.search(rx, m) for m in on_line), (
                f"line {number}: nothing matches {rx!r}; reported there: {on_line}")

    # The whole error renders every diagnostic.
    assert all(d.render() in error.render() for d in diags)
    return error, diags


def test_enough_annotated_files():
    assert len(LF_FILES) >= 20


@pytest.mark.parametrize("path", LF_FILES, ids=lambda p: p.stem)
def test_annotated_errors(path):
    error, diags = run_annotated(path)
    if path.stem.startswith("parse_"):
        assert isinstance(error, ParseError)
        # A parse stops at its first error.
        assert len(diags) == 1
        assert len(expectations(path.read_text(encoding="utf-8"))) == 1
    else:
        assert isinstance(error, CheckError)


def _diag_for(path: Path, message: str):
    source = path.read_text(encoding="utf-8")
    with pytest.raises(LanguageError) as info:
        check(parse(source, rel(path)))
    found = [d for d in info.value.diagnostics if d.message == message]
    assert len(found) == 1, [d.message for d in info.value.diagnostics]
    return found[0]


def test_did_you_mean_hint_for_misspelt_name():
    d = _diag_for(LF_DIR / "unknown_name.lf", "unknown name `markte`")
    assert d.hint == "did you mean `market`?"
    assert "    hint: did you mean `market`?" in d.render().splitlines()
    # No guess when nothing is close.
    far = _diag_for(LF_DIR / "unknown_name.lf", "unknown name `bonnus`")
    assert far.hint is None
    assert "hint:" not in far.render()


def test_missing_brace_hint_lists_closing_brace():
    d = _diag_for(LF_DIR / "parse_missing_brace.lf",
                 "unexpected `zone`: the block of kind `Animal` opened at line 3 is not closed")
    assert d.hint is not None and "`}`" in d.hint


# ---- card databases --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kinds():
    return check(parse_file(ROOT / "rulesets" / "base.lf")).kinds


def test_base_cards_load(kinds):
    """Control: the real database loads, so the failures below come from the broken files."""
    db = load_cards(ROOT / "cards" / "base.toml", kinds)
    assert {d.name for d in db.by_kind["Fire"]} == {"Fire 2", "Fire 3", "Fire 4"}


def load_broken(name: str, kinds) -> tuple[str, CardError]:
    path = CARDS_DIR / name
    with pytest.raises(CardError) as info:
        load_cards(path, kinds)
    error = info.value
    assert error.diagnostics
    for d in error.diagnostics:
        assert d.path == str(path)
        assert d.render().startswith(f"{path}:")
    return str(path), error


# file, the one expected message as regexes that must all match it
CARD_CASES = [
    ("unknown_field.toml", [r"\bAnimal\b", r"card 'Beetle'", r"unknown field [`']suns[`']"]),
    ("missing_field.toml", [r"\bFire\b", r"card 'Fire 3'", r"missing field [`']value[`']"]),
    ("duplicate_name.toml", [r"\bAnimal\b", r"card 'Owl'", r"second card with this name"]),
    ("unknown_table.toml", [r"\[\[Animals\]\] is not a card kind", r"did you mean `Animal`\?"]),
]


@pytest.mark.parametrize("name, patterns", CARD_CASES, ids=[c[0] for c in CARD_CASES])
def test_broken_card_database(kinds, name, patterns):
    path, error = load_broken(name, kinds)
    assert len(error.diagnostics) == 1, error.render()
    message = error.diagnostics[0].message
    for rx in patterns:
        assert re.search(rx, message), f"{rx!r} not in {message!r}"
    assert path in error.render()


def test_a_key_given_twice_is_invalid_toml_at_the_second(kinds):
    """A quote left open is `test_positions.py`'s case; here TOML itself refuses a key written twice
    in one card. The report is at the second `sun`, and the line is in the position (`file:5:`),
    not repeated in the message."""
    path, error = load_broken("key_twice.toml", kinds)
    [d] = error.diagnostics
    assert d.message == "not valid TOML: cannot overwrite a value"
    assert d.line == 5 and d.source_line == "sun = 2"
    assert "line" not in d.message and "column" not in d.message


def test_missing_card_database(kinds, tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(CardError) as info:
        load_cards(path, kinds)
    [d] = info.value.diagnostics
    assert d.path == str(path) and "not found" in d.message
