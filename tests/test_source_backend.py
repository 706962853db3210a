"""The expression compiler (interpreter/compile/pysource.py): generated text that no ruleset can write Python
into, expressions nested deeper than Python parses, tracebacks through generated code, and runs of
records that behave as the records one by one. That its games are the rules' games is shown by the
golden traces, the scenarios and the determinism tests."""
from __future__ import annotations

import ast
import builtins
import io
import linecache
import tokenize
import traceback

import pytest

from interpreter.tools.agents import make_agents, play
from interpreter.engine import Engine
from interpreter.compile import pysource
from interpreter.compile.backend import Backend
from interpreter.compile.library import FUNCTIONS
from interpreter.core.runtime import GameError

from .conftest import ROOT


# Every name the generated text may use: its own (rt, env, K, _F, the helpers, fresh `_it3`-style
# variables) and Python's built-ins. A ruleset's names reach the text only inside string literals.
def _own(name: str) -> bool:
    return (name in ("rt", "env", "fr", "st", "fl", "cd", "args", "K", "_F", "_r", "_s", "_n", "_items", "_j", "_labels", "_pcs",
                     "bounded", "charge", "lambda", "for", "in", "if", "else", "and", "or", "not", "is",
                     "return", "def", "del", "True", "False", "None")
            or name in pysource._HELPERS or hasattr(builtins, name) or name[3:] in FUNCTIONS
            or (name.startswith("_") and name.lstrip("_").rstrip("0123456789") in ("it", "d", "c", "xs", "f", "a", "h")))


def _names_and_strings(text: str):
    names, strings = [], []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            names.append(tok.string)
        elif tok.type == tokenize.STRING:
            strings.append(tok.string)
    return names, strings


@pytest.mark.parametrize("ruleset", ["base", "kodama", "solo", "duel", "dartmoor"])
def test_generated_text_names_nothing_of_the_ruleset(ruleset):
    engine = Engine.load(ROOT / "rulesets" / f"{ruleset}.lf")
    texts = engine.program.expression_sources
    assert len(texts) > 100  # most expressions of a real ruleset are written as source
    _names_only_its_own(texts)


def _names_only_its_own(texts):
    for text in texts:
        names, _ = _names_and_strings(text)
        attributes = {n for i, n in enumerate(names) if i and text.count("." + n)}
        assert all(_own(n) or n in attributes for n in names), text
        # Attribute names are the engine's own (rt.st.zones, rt.fields...), never a ruleset's.
        assert attributes <= {"st", "zones", "grids", "counters", "keyed_init", "fields", "card_def", "names",
                              "grid_meta", "track_meta", "width", "cell_data", "line_data", "space_data",
                              "adjacent", "player_count", "markers", "get", "defs_by_kind", "random_choice",
                              "fits", "tracks", "values", "pc", "steps", "step_budget", "set_counter", "emit",
                              "label", "active", "env", "join", "slot_key", "room", "host", "slot_of",
                              "attached", "zone_of", "call_formula", "faces", "face", "ask", "append"}, attributes


ELEMENT_NAMES = """
game "Names" { players 2..2 cards "tiny.toml" round_limit 2 }
kind Token { value: int }
zone pile: row of Token
counter said = 0
action go(p) { set said += 1 }
setup { create defs(Token) into pile }
round {
    phase talk each p {
        set said += count(pile where __import__: __import__.value > 1) + sum(pile, exec: exec.value)
        set said += count(pile where rt: any(pile where env: env.value == rt.value - 1))
        actions 1 for p from go each at most K: if K == go then 1 else 0
        win p "by talking"
    }
}
"""


def test_an_element_s_name_never_reaches_the_generated_text(tmp_path):
    """The rules name elements as they like (`__import__`, `rt`, `env`): the generated text reads
    each from a variable of its own making, and an `actions` limit's from `env` by a quoted key."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "names.lf").write_text(ELEMENT_NAMES)
    engine = Engine.load(tmp_path / "names.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("first", 2, 1))
    assert st.counters["said"] == 2 + 6 + 2 + 1
    texts = engine.program.expression_sources
    _names_only_its_own(texts)
    names, strings = _names_and_strings("\n".join(texts))
    assert not {"__import__", "exec"} & set(names) and "'K'" in strings  # `env["K"]`


HOSTILE = r"""
game "Quotes" { players 2..2 cards "tiny.toml" round_limit 2 }
kind Token { value: int }
counter said = 0
def odd(s) = if s == "\' + __import__('os').system('echo pwned') + '\" then 1 else 2
round {
    phase talk each p {
        set said += odd("'''); exec('1/0') #\")
        if "\n\t\\" == "\n" { set said += 10 }
        win p "by talking"
    }
}
"""


def test_ruleset_text_reaches_the_generated_text_only_as_escaped_literals(tmp_path, capfd):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "quotes.lf").write_text(HOSTILE)
    engine = Engine.load(tmp_path / "quotes.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("first", 2, 1))
    assert st.counters["said"] == 2  # the strings compared as strings: nothing ran
    assert "pwned" not in capfd.readouterr().out
    texts = "\n".join(engine.program.expression_sources)
    names, strings = _names_and_strings(texts)
    assert "__import__" not in names and "exec" not in names and "system" not in names
    assert any("pwned" in s for s in strings) and any("exec(" in s for s in strings)


@pytest.mark.parametrize("depth", [150, 240])
def test_an_expression_nested_deeper_than_python_parses_is_written_in_hoisted_functions(tmp_path, depth):
    """Nested deeper than Python's parser takes (about 200 brackets), an expression is still
    compiled as source: every few levels a node becomes a function of its own, called in place."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    deep = "(" * depth + "1" + " + 1)" * depth
    (tmp_path / "deep.lf").write_text(HOSTILE.replace("set said += 10", f"set said += {deep}")
                                      .replace('"\\n\\t\\\\" == "\\n"', "true"))
    engine = Engine.load(tmp_path / "deep.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("first", 2, 1))
    assert st.counters["said"] == 2 + depth + 1
    texts = engine.program.expression_sources
    assert sum(text.startswith("def _h") for text in texts) >= depth // pysource.SourceCompiler.DEEPEST
    assert max(pysource._nesting(text) for text in texts) < 120


def test_a_hoisted_node_is_evaluated_only_where_it_stands(tmp_path):
    """A hoisted node is called, not computed beforehand: behind a false test it is never evaluated
    (here it would divide by zero), and inside `where` it reads each element."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    deep = "(" * 150 + "1 / 0" + " + 1)" * 150
    near = "(" * 150 + "it" + " + 0)" * 150
    (tmp_path / "deep.lf").write_text(HOSTILE.replace("set said += 10", f"set said += if false then {deep} else "
                                                      f"count([1, 2, 3] where {near} > 1)")
                                      .replace('"\\n\\t\\\\" == "\\n"', "true"))
    engine = Engine.load(tmp_path / "deep.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("first", 2, 1))
    assert st.counters["said"] == 2 + 2
    assert any(text.startswith("def _h") and ", _it" in text for text in engine.program.expression_sources)


def test_a_called_definition_is_hoisted_and_takes_its_defaults(tmp_path):
    """A definition too big to expand in place is one function of its parameters: nested deep, it is
    hoisted like any expression (with no `env` of its own), and a parameter not given takes its
    default, which reads the parameter before it."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    body = "(" * 100 + "s + t" + " + 1)" * 100
    (tmp_path / "deep.lf").write_text(HOSTILE.replace("set said += 10", "set said += deep(1) + deep(1, 5)")
                                      .replace("round {", f"def deep(s, t = s * 10) = {body}\nround {{")
                                      .replace('"\\n\\t\\\\" == "\\n"', "true"))
    engine = Engine.load(tmp_path / "deep.lf")
    st = engine.new_game(2, 1)
    play(engine, st, make_agents("first", 2, 1))
    assert st.counters["said"] == 2 + (1 + 10 + 100) + (1 + 5 + 100)
    assert "deep" in engine.program.compiled_funcs


def test_a_traceback_through_generated_code_shows_its_lines_and_the_rule():
    """Every generated function's text is in `linecache` under a name that gives the rule's place:
    a traceback through it shows the line that failed."""
    engine = Engine.load(ROOT / "rulesets" / "duel.lf")
    fn = next(iter(engine.program.init_exprs.values()))
    assert fn.__code__.co_filename.startswith(f"<rules {ROOT / 'rulesets'}")
    assert linecache.getline(fn.__code__.co_filename, 1).startswith("def _f(rt, env):")
    with pytest.raises(AttributeError) as err:
        fn(None, {})  # no run at all: the prologue's first line fails
    frame = traceback.extract_tb(err.value.__traceback__)[-1]
    assert frame.filename == fn.__code__.co_filename and frame.line == "st = rt.st"


def _linked_by_search(rt, gname, key, card, cell, anchor):
    """`fits` as a plain search from the anchor over the grid with the card placed: the reference."""
    meta = rt.grid_meta[gname]
    cells = dict(rt.st.grids[key])
    cells[cell] = card
    if anchor not in cells:
        return False
    edge = lambda c, name: rt.fields[rt.st.card_def[c]][name]  # noqa: E731
    seen, todo = {anchor}, [anchor]
    while todo:
        i = todo.pop()
        for dx, dy, out, back in meta.edge_pairs:
            x, y = i % meta.width + dx, i // meta.width + dy
            j = y * meta.width + x
            if 0 <= x < meta.width and 0 <= y < meta.height and j in cells and j not in seen \
                    and edge(cells[i], out) and edge(cells[j], back):
                seen.add(j)
                todo.append(j)
    return len(seen) == len(cells)


def test_fits_answers_as_a_search_from_the_anchor_does():
    """`fits` works from the linked groups of the grid, remembered per grid content; on random
    grids of pipes it answers as a plain search over the grid with the card placed does."""
    import random
    from interpreter.core.runtime import Run
    engine = Engine.load(ROOT / "tests" / "rulesets" / "links.lf")
    st = engine.new_game(2, 1)
    rt = Run(engine.program, st)
    defs = len(engine.program.fields)
    rng = random.Random(5)
    base = len(st.card_def)
    st.card_def.extend(rng.randrange(defs) for _ in range(60))
    cards = range(base, base + 60)
    meta = rt.grid_meta["board"]
    checked = linked = 0
    for _ in range(150):
        filled = rng.sample(range(meta.width * meta.height), rng.randint(0, 6))
        st.grids["P1.board"] = {c: rng.choice(cards) for c in filled}
        for _ in range(12):
            card, cell = rng.choice(cards), rng.randrange(meta.width * meta.height)
            anchor = rng.choice(filled + [cell])
            expected = _linked_by_search(rt, "board", "P1.board", card, cell, anchor)
            assert rt.fits("board", "P1.board", card, cell, anchor) == expected
            checked += 1
            linked += expected
    assert checked == 1800 and 150 < linked < 1650, linked  # both answers are well represented


ERRORS = r"""
game "Faults" { players 2..2 cards "tiny.toml" round_limit 3 step_budget 400 }
kind Token { value: int }
counter n = 0
counter k = 0
round {
    phase spin each p {
        let a = 1
        let b = 2
        set k += a + b
        if k > 6 {
            let c = 10 / (a - 1)
        }
        while n >= 0 {
            set n += 1
            let d = n * 2
        }
    }
}
"""


@pytest.mark.parametrize("change, budget", [
    ("", 400), ("", 401), ("", 402), ("", 403),  # the step budget met on each record of a loop's run
    ("set k += 7\n        ", 400),               # a division by zero in the middle of a run
])
def test_an_error_inside_a_run_is_placed_as_record_by_record(tmp_path, monkeypatch, change, budget):
    """A run of records executes as one function: an error inside it (raised, or the step budget
    met) is reported at the same record, with the same message, as record by record."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "faults.lf").write_text(ERRORS.replace("let a = 1\n        ", "let a = 1\n        " + change)
                                        .replace("step_budget 400", f"step_budget {budget}"))
    messages = []
    for longest in (Backend.LONGEST, 1):  # runs of records, then each record alone
        monkeypatch.setattr(Backend, "LONGEST", longest)
        engine = Engine.load(tmp_path / "faults.lf")
        with pytest.raises(GameError) as err:
            st = engine.new_game(2, 1)
            play(engine, st, make_agents("first", 2, 1))
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert ("division by zero" if change else "more than") in messages[0]


MENU = r"""
game "Menus" { players 2..2 cards "tiny.toml" round_limit 3 step_budget 400 }
kind Token { value: int }
counter n = 0
counter taken = 0
round {
    phase ask each p {
        let a = 1
        while n < STOP {
            set n += 1
            choose {
                option go if OPEN {
                    set taken += 1
                }
                option stay if n > 30 and n < 35 {
                    set taken += 100
                }
            }
        }
        end game "the count is done"
    }
}
"""


@pytest.mark.parametrize("open_, budget", [
    ("n > 1000", 400), ("n > 1000", 401), ("n > 1000", 402), ("n > 1000", 403),  # no option ever open
    ("n > 3 and 10 / (a - 1) > 0", 400),   # a division by zero in an option's condition
    ("n % 3 == 0", 400),                   # menus open and closed by turns: the game plays through
])
def test_a_menu_that_ends_a_run_behaves_as_record_by_record(tmp_path, monkeypatch, open_, budget):
    """A menu of options is written into the run before it: its conditions, the options it offers,
    a menu with none open, and an error or the step budget met there are as record by record."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "menus.lf").write_text(MENU.replace("OPEN", open_).replace("STOP", "1000000" if "1000" in open_ else "40").replace("step_budget 400", f"step_budget {budget}"))
    outcomes = []
    for longest in (Backend.LONGEST, 1):  # runs of records, then each record alone
        monkeypatch.setattr(Backend, "LONGEST", longest)
        engine = Engine.load(tmp_path / "menus.lf")
        events = []
        try:
            st = engine.new_game(2, 1, sink=events.append)
            while not engine.is_over(st):
                engine.apply(st, 0, sink=events.append)
            outcomes.append(("played", events, dict(st.counters)))
        except GameError as exc:
            outcomes.append(("failed", str(exc)))
    assert outcomes[0] == outcomes[1]
    if open_ == "n > 1000":
        assert outcomes[0][0] == "failed" and "more than" in outcomes[0][1]
    elif "/" in open_:
        assert outcomes[0][0] == "failed" and "division by zero" in outcomes[0][1]
    else:
        assert outcomes[0][0] == "played" and outcomes[0][2]["taken"] > 100  # both options were taken


def _dead(body) -> list:
    """The statements of a block (and of the blocks within it) that follow a `return`."""
    out = []
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return):
            out += body[i + 1:]
            break
        for field in ("body", "orelse"):
            out += _dead(getattr(stmt, field, []))
    return out


@pytest.mark.parametrize("ruleset", ["base", "kodama", "duel", "dartmoor"])
def test_no_generated_function_holds_text_that_cannot_run(ruleset):
    # A run of records ends at a jump: what follows it is reached only by another jump, into the
    # function of its own run. Text written after it would only be compiled, at every load.
    engine = Engine.load(ROOT / "rulesets" / f"{ruleset}.lf")
    for text in engine.program.expression_sources:
        (fn,) = ast.parse(text).body
        assert not _dead(fn.body), text


@pytest.mark.parametrize("ruleset", ["base", "kodama", "solo", "duel", "dartmoor"])
def test_no_compiled_expression_writes_its_environment(ruleset):
    # `Engine.evaluator` hands an expression the caller's environment without a copy: only the runs
    # of records (`_r`, the statements) bind names, and a block of scores (`_s`, the `evaluate`
    # block as one function) adds its scores to the environment its caller gives it for that.
    engine = Engine.load(ROOT / "rulesets" / f"{ruleset}.lf")
    for text in engine.program.expression_sources:
        (fn,) = ast.parse(text).body
        if fn.name in ("_r", "_s"):
            continue
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                assert not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "env"), text
