"""Diagnostics carry where a problem starts and ends and how severe it is; the rendering underlines
the whole construct when it fits on one line."""
from __future__ import annotations

import attrs
import pytest

from interpreter.tools.cli import main, summary
from rulesdsl import ast as A
from rulesdsl.checker import check
from rulesdsl.errors import SHOWN, CheckError, Diagnostic, LanguageError, ParseError, at, make
from rulesdsl.parser import parse

SOURCE = 'game "D" { players 2..2 }\ncounter gold = 0\nround {\n  phase a each p {\n    set gold += golld\n  }\n}\n'


def _check_diagnostics(source):
    with pytest.raises(CheckError) as info:
        check(parse(source, "d.lf"))
    return info.value.diagnostics


def test_a_diagnostic_without_end_or_severity_is_an_error_marked_by_one_caret():
    d = Diagnostic("f.lf", 2, 5, "wrong", None, "abc defgh")
    assert (d.end_line, d.end_col, d.severity) == (0, 0, "error")
    assert d.render() == "f.lf:2:5: wrong\n    abc defgh\n        ^"


def test_a_checker_diagnostic_spans_its_node_and_underlines_it():
    (d,) = _check_diagnostics(SOURCE)
    assert (d.line, d.col, d.end_line, d.end_col) == (5, 17, 5, 22)
    assert d.render().splitlines() == [
        "d.lf:5:17: unknown name `golld`",
        "        set gold += golld",
        "                    ^^^^^",
        "    hint: did you mean `gold`?"]


def test_a_span_over_several_lines_is_marked_by_one_caret():
    source = 'game "D" { players 3..2\n}\nround { phase a { } }\n'
    (d,) = _check_diagnostics(source)
    assert (d.line, d.end_line) == (1, 2)
    assert d.render().splitlines()[1:] == ['    game "D" { players 3..2', "    ^"]


def test_make_and_at_pass_the_ends():
    span = A.Span(1, 5, 1, 8, "x.lf")
    d = at("x.lf", "let abc = 1\n", span, "no")
    assert (d.line, d.col, d.end_line, d.end_col) == (1, 5, 1, 8)
    assert d.render().splitlines()[1:] == ["    let abc = 1", "        ^^^"]
    assert make("x.lf", "a\n", 1, 1, "m").end_col == 0


def test_a_parse_error_underlines_the_unexpected_token():
    with pytest.raises(ParseError) as info:
        parse('game "D" { players 2..four }\n', "p.lf")
    (d,) = info.value.diagnostics
    assert (d.col, d.end_col) == (23, 27)
    assert d.render().splitlines()[2] == "    " + " " * 22 + "^^^^"


def test_a_warning_is_labelled_and_counted_apart():
    w = make("f.lf", "x = 1\n", 1, 1, "never read", end_line=1, end_col=2, severity="warning")
    assert w.render().splitlines()[0] == "f.lf:1:1: warning: never read"
    e = make("f.lf", "x = 1\n", 1, 1, "never read")
    # Same place and message, different severity: two diagnostics, the error first.
    assert LanguageError([w, e]).diagnostics == [e, w]
    assert summary([e, w, w]) == "1 error(s), 2 warning(s)"
    assert summary([e, e]) == "2 error(s)"
    with pytest.raises(ValueError):
        attrs.evolve(e, severity="fatal")


def test_the_end_takes_no_part_in_sorting_and_deduplication():
    a = make("f.lf", "abcdef\n", 1, 2, "m", end_line=1, end_col=4)
    b = make("f.lf", "abcdef\n", 1, 2, "m", end_line=1, end_col=6)
    first = make("f.lf", "abcdef\n", 1, 1, "z")
    assert a == b
    assert LanguageError([a, first, b]).diagnostics == [first, a]


def test_an_underline_stops_at_the_end_of_the_line_and_of_the_shown_window():
    d = make("f.lf", "ab\n", 1, 2, "m", end_line=1, end_col=40)
    assert d.render().splitlines()[2] == "     ^"
    long_line = "x" * 1000
    d = make("f.lf", long_line, 1, 500, "m", end_line=1, end_col=1001)
    text, carets = d.render().splitlines()[1:3]
    assert text.endswith("...") and carets.strip() == "^" * (SHOWN // 2)
    assert len(carets) <= len(text) + 4 - 3


def test_the_cli_shows_the_underline_and_keeps_its_summary(tmp_path, capsys):
    path = tmp_path / "d.lf"
    path.write_text(SOURCE)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{path}:5:17: unknown name `golld`"
    assert err[2] == " " * 20 + "^^^^^"
    assert err[-1] == "lfdsl: 1 error(s) (check)"
