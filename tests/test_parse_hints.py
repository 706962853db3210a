"""Parse errors speak the user's language: hints list what can be typed, never grammar names."""
from __future__ import annotations

import re

import pytest

from rulesdsl.errors import ParseError
from rulesdsl.parser import _parser, parse, readable_terminal

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
