"""Parse errors speak the user's language and point at the cause: readable hints, the block left
open, the place where nesting gets too deep, the first byte that is not UTF-8."""
from __future__ import annotations

import contextlib
import io
import re

import pytest

from rulesdsl.errors import ParseError
from rulesdsl.parser import parse, parse_file
from rulesdsl.syntax import MAX_NESTING, _parser, readable_terminal

_GRAMMAR_NAME = re.compile(r"__ANON|\b[A-Z][A-Z_]+\b|\$END")


def test_every_terminal_has_readable_text():
    for t in _parser().terminals:
        text = readable_terminal(t.name)
        assert not _GRAMMAR_NAME.search(text), f"{t.name} is shown as {text!r}"
        if t.pattern.type == "str":
            assert text == f"`{t.pattern.value}`"
    assert readable_terminal("NAME") == "a name"
    assert readable_terminal("INT") == "a number"
    assert readable_terminal("$END") == "end of file"


def _hint(source):
    with pytest.raises(ParseError) as info:
        parse(source, "t.lf")
    (d,) = info.value.diagnostics
    return d.hint or ""


@pytest.mark.parametrize("source, wanted", [
    ('game "T" { players 2 2 }', ["`..`"]),
    ('game "T" { players 2..2 }\ncounter c = 0\nsetup { set c 3 }', ["`=`", "`+=`", "`-=`"]),
    ('game "T" { players 2..2 }\nsetup { if 1 2 { } }', ["`==`", "`{`"]),
    ('game "T" { players 2..2 }\nkind K { a: int = 1 @ }', ["`}`"]),
    ('game "T" { players 2..2 }\nparam', ["a name"]),
    ('game "T" { players ', ["a number"]),
])
def test_hints_list_what_can_be_typed(source, wanted):
    hint = _hint(source)
    assert hint.startswith("expected ")
    assert not _GRAMMAR_NAME.search(hint), hint
    for w in wanted:
        assert w in hint, (w, hint)


# ---- nesting and encoding --------------------------------------------------------------------
def _program(body: str) -> str:
    return ('game "T" { players 1..1 }\ncounter c = 0\nround {\n phase a {\n'
            f'{body}\n }}\n}}\n')


def _only(source, path="deep.lf"):
    with pytest.raises(ParseError) as info:
        parse(source, path)
    (d,) = info.value.diagnostics
    return d


def test_deep_statement_nesting_points_where_it_gets_too_deep():
    body = "set c += 1"
    for _ in range(MAX_NESTING):
        body = "if true { " + body + " }"
    d = _only(_program(body))
    assert d.message == f"nested too deeply (more than {MAX_NESTING} levels)"
    assert d.line == 5 and d.col > 1
    assert d.source_line[d.col - 1:].startswith("if true {")


def test_long_chain_points_at_its_start():
    d = _only(_program("set c += " + " + ".join(["1"] * (MAX_NESTING + 20))))
    assert d.message == f"nested too deeply (more than {MAX_NESTING} levels)"
    assert (d.line, d.col) == (5, len("set c += ") + 1)


def test_deep_not_points_at_a_not():
    d = _only(_program("if " + "not " * (MAX_NESTING + 50) + "false { }"))
    assert d.message.startswith("nested too deeply")
    assert d.line == 5 and d.source_line[d.col - 1:].startswith("not ")


def test_moderate_nesting_is_fine():
    body = "set c += " + " + ".join(["1"] * 100)
    for _ in range(40):
        body = "if true { " + body + " }"
    parse(_program(body), "ok.lf")


def test_invalid_utf8_is_positioned(tmp_path):
    path = tmp_path / "bad.lf"
    path.write_bytes(b'game "T" {\n  players 2..2  # caf\xe9\n}\n')
    with pytest.raises(ParseError) as info:
        parse_file(path)
    (d,) = info.value.diagnostics
    assert (d.path, d.line, d.col, d.message) == (str(path), 2, len("  players 2..2  # caf") + 1, "not valid UTF-8")
    assert d.render().startswith(f"{path}:2:{d.col}: not valid UTF-8")
    assert "byte" not in d.render() and "codec" not in d.render()


def test_invalid_utf8_through_the_cli(tmp_path):
    from interpreter.tools.cli import main
    path = tmp_path / "bad.lf"
    path.write_bytes(b'\xff\xfe')
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["check", str(path)]) == 2
    assert err.getvalue().startswith(f"{path}:1:1: not valid UTF-8")
