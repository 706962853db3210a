"""The resolver decides once what every name stands for; the checker and the compiler both read it.

Each case below names something twice (a local named like a counter, a loop variable named like a
zone, ...) and shows the same answer three times: in the binding the resolver recorded, in the type
the checker gave the name, and in the value the compiled rule produces when it runs.
"""
from __future__ import annotations

import pytest

from interpreter.engine import Engine
from interpreter.tools.trace import ListSink
from rulesdsl import ast as A
from rulesdsl.checker import check
from rulesdsl.errors import CheckError
from rulesdsl.parser import parse
from rulesdsl.resolver import resolve

from .conftest import ROOT

HEAD = """game "Scopes" {
    players 2..2
    cards "tiny.toml"
}
kind Token { value: int }
zone pool: pile of Token
zone hand: row of Token per player
"""


def load(tmp_path, decls, setup, round_="phase a each p { }"):
    """An engine for a small ruleset, and the texts its set-up logs (the set-up runs once)."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path = tmp_path / "scopes.lf"
    path.write_text(f"{HEAD}{decls}\nsetup {{\n{setup}\n}}\nround {{ {round_} }}\n")
    engine = Engine.load(path)
    sink = ListSink()
    engine.new_game(2, 1, sink=sink, setup_only=True)
    return engine, [e["data"]["text"] for e in sink.events if e["event"] == "log"]


def names(model, ident):
    """The Name nodes spelt `ident`, in source order (callees excluded)."""
    callees = {id(n.func) for n in model.bindings if isinstance(n, A.Call)}
    found = [n for n in model.bindings if isinstance(n, A.Name) and n.id == ident and id(n) not in callees]
    return sorted(found, key=lambda n: (n.span.line, n.span.col))


def meanings(model, ident):
    """For each use of `ident`: the binding's kind (with how a local is introduced) and its type."""
    out = []
    for n in names(model, ident):
        b = model.bindings[n]
        out.append((f"local {b.decl.how}" if b.kind == "local" else b.kind, model.types.get(n)))
    return out


# ---- shadowing, statically and at run time ---------------------------------------------------
def test_a_let_named_like_a_counter_hides_it_until_the_end_of_its_block(tmp_path):
    engine, logs = load(tmp_path, "counter gold = 10", """
        log "counter", gold
        if true {
            let gold = "many"
            log "inside", gold
        }
        log "after the block", gold
        let gold = gold + 1
        log "after the let", gold
    """)
    assert meanings(engine.model, "gold") == [
        ("counter", ("int",)), ("local let", ("text",)), ("counter", ("int",)),
        ("counter", ("int",)), ("local let", ("int",))]
    assert logs == ["counter 10", "inside many", "after the block 10", "after the let 11"]


def test_a_loop_variable_named_like_a_zone(tmp_path):
    engine, logs = load(tmp_path, "", """
        create defs(Token) into pool
        for pool in [7, 8] { log "loop", pool }
        log "zone", count(pool)
    """)
    assert meanings(engine.model, "pool") == [
        ("zone", ("zone", "Token")), ("local for", ("int",)), ("zone", ("zone", "Token"))]
    assert logs == ["loop 7", "loop 8", "zone 3"]


def test_a_def_parameter_named_like_a_ruleset_parameter(tmp_path):
    # `inc` is small enough to be compiled in place; `twice` is called with an argument that its
    # body would evaluate twice, so it stays a call: both must read the argument.
    engine, logs = load(tmp_path, """
        param bonus = 3
        def inc(bonus) = bonus + 1
        def twice(bonus) = bonus + bonus
    """, """
        log "param", bonus
        log "in place", inc(10)
        log "called", twice(10 + 1)
    """)
    assert meanings(engine.model, "bonus") == [
        ("local parameter", ("int",)), ("local parameter", ("int",)), ("local parameter", ("int",)),
        ("param", ("int",))]
    assert logs == ["param 3", "in place 11", "called 22"]


def test_a_def_body_never_sees_the_callers_locals(tmp_path):
    engine, logs = load(tmp_path, """
        param limit = 4
        def cap() = limit
    """, """
        let limit = 99
        log "local", limit
        log "def", cap()
    """)
    assert [m[0] for m in meanings(engine.model, "limit")] == ["param", "local let"]
    assert logs == ["local 99", "def 4"]


def test_it_in_nested_filters_is_the_innermost_element(tmp_path):
    engine, logs = load(tmp_path, "", """
        create defs(Token) into pool
        log "kept", names(pool where count(pool where 1 < it.value) == it.value)
    """)
    model = engine.model
    inner_it, outer_it = names(model, "it")
    inner_filter = model.bindings[inner_it].decl.site
    outer_filter = model.bindings[outer_it].decl.site
    assert isinstance(inner_filter, A.Filter) and isinstance(outer_filter, A.Filter)
    assert inner_filter is not outer_filter and inner_filter.span.col > outer_filter.span.col
    # Two tokens are worth more than 1, so the outer filter keeps the token worth 2.
    assert logs == ["kept [Blue]"]


def test_min_of_two_numbers_binds_no_it_but_over_a_collection_it_does(tmp_path):
    engine, logs = load(tmp_path, "", """
        create defs(Token) into pool
        log "numbers", names(pool where min(2, it.value) == 2)
        log "collection", min(pool, it.value)
    """)
    model = engine.model
    in_numbers, in_collection = names(model, "it")
    assert isinstance(model.bindings[in_numbers].decl.site, A.Filter)   # the `where` element
    assert isinstance(model.bindings[in_collection].decl.site, A.Call)  # min's own element
    assert logs == ["numbers [Blue, Green]", "collection 1"]


def test_a_local_named_like_an_action_and_a_do_of_that_action(tmp_path):
    engine, logs = load(tmp_path, """
        action buy(p) { log "bought by", p }
    """, """
        let buy = 3
        log "local", buy
        do buy(player(2))
    """)
    model = engine.model
    assert meanings(model, "buy") == [("local let", ("int",))]
    call = next(n for n in model.bindings if isinstance(n, A.Call) and n.func.id == "buy")
    assert model.bindings[call].kind == "action" and model.calls[call] == ("action", "buy")
    assert logs == ["local 3", "bought by P2"]


def test_a_let_named_like_a_kind_leaves_defs_reading_the_kind(tmp_path):
    engine, logs = load(tmp_path, "", """
        let Token = 2
        log "kinds", count(defs(Token)) + Token
    """)
    assert [m[0] for m in meanings(engine.model, "Token")] == ["kind", "local let"]
    assert logs == ["kinds 5"]


def test_a_let_in_a_nested_block_assigns_the_enclosing_variable(tmp_path):
    engine, logs = load(tmp_path, "", """
        let n = 1
        for x in [5, 6] { let n = n + x }
        log "sum", n
    """)
    model = engine.model
    lets = [s for s in model.bindings if isinstance(s, A.Let)]
    assert len(lets) == 2
    assert model.bindings[lets[0]].decl is model.bindings[lets[1]].decl
    assert logs == ["sum 12"]


def test_a_def_parameter_named_it_is_not_the_element_of_a_filter_in_its_body(tmp_path):
    # Compiled in place, the parameter `it` used to replace the filter's own `it`.
    engine, logs = load(tmp_path, """
        def above(it) = count(pool where 1 < it.value) + it
        def above_twice(it) = count(pool where 1 < it.value) + it + it
    """, """
        create defs(Token) into pool
        log "in place", above(10)
        log "called", above_twice(5 + 5)
    """)
    model = engine.model
    hows = [model.bindings[n].decl.how for n in names(model, "it")]
    assert hows == ["it", "parameter", "it", "parameter", "parameter"]
    assert logs == ["in place 12", "called 22"]


def test_a_keyed_counter_given_to_a_def(tmp_path):
    engine, logs = load(tmp_path, """
        counter stock[] = 1
        def level(c, k) = c[k]
        def level_twice(c, k) = c[k] + c[k]
    """, """
        set stock["x"] += 4
        log "in place", level(stock, "x")
        log "called", level_twice(stock, if true then "x" else "y")
    """)
    assert logs == ["in place 5", "called 10"]


def test_a_let_named_like_a_piece_is_the_player_it_holds(tmp_path):
    # The piece stands on another track: a check about the piece must not apply to the local.
    engine, logs = load(tmp_path, """
        track ring: ring 4 { }
        track lane: ring 4 { }
        piece pawn on ring
    """, """
        let pawn = player(1)
        put pawn on lane at 0
        advance pawn on lane by 1
        log "at", position(lane, pawn)
    """)
    assert [m[0] for m in meanings(engine.model, "pawn")] == ["local let"] * 3
    assert logs == ["at 1"]


# ---- what the checker refuses because of the bindings ----------------------------------------
def _check_error(tmp_path, decls, setup, round_="phase a each p { }") -> str:
    with pytest.raises(CheckError) as info:
        load(tmp_path, decls, setup, round_)
    return "\n".join(d.message for d in info.value.diagnostics)


def test_setting_a_counter_hidden_by_a_local_is_refused(tmp_path):
    message = _check_error(tmp_path, "counter gold = 10", "let gold = 2\nset gold += 1")
    assert message == "`gold` here is a local variable, which hides the counter `gold`"


def test_the_first_player_of_a_phase_cannot_be_its_own_variable(tmp_path):
    # The `from` expression is evaluated before anybody plays the phase.
    message = _check_error(tmp_path, "", "", "phase a turns p from p { }")
    assert message == "unknown name `p`"


def test_an_enum_value_named_like_an_action_is_refused_only_where_a_bare_name_could_be_either(tmp_path):
    decls = "kind Tag { how: enum(buy, sell) = buy }\naction buy(p) { }"
    engine, logs = load(tmp_path, decls, "do buy(player(1))\nlog \"sold\", sell")
    assert logs == ["sold sell"]
    with pytest.raises(CheckError) as info:
        load(tmp_path, decls, "do buy(player(1))\nlog \"bought\", buy")
    (d,) = info.value.diagnostics
    assert d.message == "`buy` could mean the action `buy` or the value `buy` of kind Tag's field how"
    assert (d.line, d.col, d.end_col) == (12, 15, 18) and d.source_line[d.col - 1:d.end_col - 1] == "buy"


def test_an_enum_value_named_like_a_def_is_the_value_bare_and_the_def_called(tmp_path):
    engine, logs = load(tmp_path, "enum Rank { most, least }\nkind Medal { rank: Rank = most }\ndef most(n) = n * 2",
                        "let r = most\nlog \"r\", r == most, most(4), least")
    assert [m[0] for m in meanings(engine.model, "most")] == ["enum", "enum", "enum"]  # the default too
    calls = [b.kind for n, b in engine.model.bindings.items() if isinstance(n, A.Call) and n.func.id == "most"]
    assert calls == ["def"]
    assert logs == ["r true 8 least"]


def test_a_misspelt_name_suggests_a_local_in_scope():
    program = parse('game "S" { players 2..2 }\nsetup { let total = 1\nlog "t", totl }\n'
                    'round { phase a { } }\n', "s.lf")
    with pytest.raises(CheckError) as info:
        check(program)
    (d,) = info.value.diagnostics
    assert (d.message, d.hint) == ("unknown name `totl`", "did you mean `total`?")


# ---- the resolver on its own ----------------------------------------------------------------
def test_every_name_of_a_ruleset_is_bound():
    from rulesdsl.layers import load_ruleset
    for name in ("base", "duel", "kodama", "solo"):
        program = load_ruleset(ROOT / "rulesets" / f"{name}.lf")
        bindings = resolve(program).bindings
        every = [n for item in program.items for n in _all_names(item)]
        assert every and all(n in bindings for n in every), name
        assert not [n.id for n in every if bindings[n].kind in ("unknown", "ambiguous")], name


def _all_names(node):
    """Every Name node below a declaration or statement."""
    seen, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (list, tuple)):
            todo.extend(n)
        elif isinstance(n, A.Name):
            seen.append(n)
        elif hasattr(n, "__attrs_attrs__") and not isinstance(n, A.Span):
            todo.extend(getattr(n, f.name) for f in n.__attrs_attrs__)
    return seen
