"""The library of built-ins: one table row, one type rule and one function each, read by every
phase; the compiler's inline forms of a few are only a faster way of writing the same meaning."""
from __future__ import annotations

import inspect

import pytest

from interpreter.compile import library, pysource
from interpreter.tools.agents import make_agents, play
from interpreter.engine import Engine
from interpreter.core.runtime import GameError
from interpreter.tools.trace import ListSink, render
from rulesdsl import resolver
from rulesdsl.builtins import BUILTINS, SHAPES
from rulesdsl.checker import Checker

from .conftest import ROOT


def test_each_built_in_has_a_row_a_type_rule_and_a_function():
    rules = {name[2:] for name, _ in inspect.getmembers(Checker) if name.startswith("b_")}
    assert rules == set(BUILTINS)
    assert set(library.FUNCTIONS) == set(BUILTINS)
    assert resolver.BUILTINS is BUILTINS  # the resolver reads the table, not a copy
    for name, row in BUILTINS.items():
        assert row.name == name and row.doc and all(s in SHAPES for s in row.shapes), name
        fn = library.FUNCTIONS[name]
        assert fn.__doc__, name
        # The function takes the run, the span and then what the row's shapes give.
        given = sum(2 if s in ("grid", "card_or_def", "cards_or_defs") else 1 for s in row.shapes)
        params = list(inspect.signature(fn).parameters.values())
        assert [p.name for p in params[:2]] == ["rt", "span"], name
        positional = [p for p in params[2:] if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert len([p for p in positional if p.default is p.empty]) <= given <= len(positional) or \
            any(p.kind is p.VAR_POSITIONAL for p in params), name


def test_the_docs_and_the_language_server_list_every_built_in():
    text = (ROOT / "docs" / "language.md").read_text()
    assert [n for n in BUILTINS if f"`{n}(" not in text] == []


def _trace(engine, players, seed) -> str:
    sink = ListSink()
    try:
        st = engine.new_game(players, seed, sink=sink)
        play(engine, st, make_agents("random", players, seed, engine), sink)
    except GameError as exc:
        sink.events.append({"error": str(exc)})
    return "\n".join(line for ev in sink.events
                     for line in (render(ev, full_state=True) if "error" not in ev else [ev["error"]]))


GAMES = [("rulesets/base.lf", 3), ("rulesets/kodama.lf", 2), ("rulesets/duel.lf", 2), ("rulesets/dartmoor.lf", 2),
         ("tests/rulesets/links.lf", 2), ("tests/rulesets/race.lf", 3)]


@pytest.mark.parametrize("ruleset,players", GAMES, ids=[f"{r.split('/')[-1]}-{p}p" for r, p in GAMES])
def test_the_inline_forms_mean_what_the_library_functions_mean(monkeypatch, ruleset, players):
    """Every built-in written as a call of its library function plays the same game as with the
    compiler's inline forms (`count` of a `where`, `sum` of a field...)."""
    inline = Engine.load(ROOT / ruleset)
    monkeypatch.setattr(pysource.SourceCompiler, "INLINE", False)
    called = Engine.load(ROOT / ruleset)
    assert any("_b_" in text for text in called.program.expression_sources)
    assert _trace(inline, players, 2) == _trace(called, players, 2)


def test_a_built_in_written_as_a_method_of_the_run_is_one_that_only_calls_it():
    """The compiler writes `rt.METHOD(...)` for the built-ins of `RUN_METHODS`: their functions do
    nothing else than call that method with their arguments."""
    class Run:
        def __getattr__(self, method):
            return lambda *args: (method, args)
    for name, method in library.RUN_METHODS.items():
        row = BUILTINS[name]
        args = tuple(range(sum(2 if s == "grid" else 1 for s in row.shapes)))
        assert library.FUNCTIONS[name](Run(), None, *args) == (method, args), name


def test_a_new_built_in_is_a_table_row_a_type_rule_and_a_function(tmp_path, monkeypatch):
    """What adding a built-in takes: its row, its type rule and its function; the resolver, the
    checker, the compiler and the language server need nothing else."""
    from rulesdsl.builtins import Builtin
    from rulesdsl.checker import INT
    monkeypatch.setitem(BUILTINS, "twice", Builtin("twice", ("value",), "a number doubled"))

    def b_twice(self, e):
        self.expect(e.args[0], (INT,), "a number")
        return INT
    monkeypatch.setattr(Checker, "b_twice", b_twice, raising=False)
    monkeypatch.setitem(library.FUNCTIONS, "twice", lambda rt, span, n: 2 * n)
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "twice.lf").write_text("""
game "Twice" { players 2..2 cards "tiny.toml" round_limit 1 }
kind Token { value: int }
counter n = 0
round { phase go { for p in players { set n += twice(n + 1) } end game "done" } }
""")
    engine = Engine.load(tmp_path / "twice.lf")
    st = engine.new_game(2, 1)
    assert st.counters["n"] == 8  # 0 + 2 * 1, then 2 + 2 * 3
