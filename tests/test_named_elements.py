"""Named elements (issue 29, point 6): `xs where c: ...`, `sum(xs, c: ...)` and the other forms that
bind an element may name it. The name reads the element exactly as `it` does (both compile
backends, the fast paths included), `it` inside keeps meaning the enclosing element, a name that
would hide another meaning is an error at the name, and an `it` compared with itself where it hides
an outer `it` is a warning."""
from __future__ import annotations

import itertools

import attrs
import pytest

from interpreter.compile import pysource
from interpreter.engine import Engine
from interpreter.tools.cli import main
from rulesdsl import ast as A
from rulesdsl import unparse
from rulesdsl.builtins import LAMBDA_BUILTINS
from rulesdsl.checker import check
from rulesdsl.errors import CheckError, ParseError
from rulesdsl.layers import load_ruleset
from rulesdsl.files import Project
from rulesdsl.parser import parse, parse_expression

from .conftest import ROOT
from .test_builtins import _trace
from .test_resolver import HEAD, load, meanings

# The pool holds Red (1), Blue (2) and Green (3), bottom to top.
FORMS = """
    create defs(Token) into pool
    log "where", count(pool where c: c.value >= 2), count(pool where it.value >= 2)
    log "where list", pool where c: c.value != 2, pool where it.value != 2
    log "sum", sum(pool, c: c.value * 10), sum(pool, it.value * 10)
    log "sum field", sum(pool, c: c.value), sum(pool, it.value)
    log "min max", min(pool, c: c.value), max(pool, c: c.value), min(pool, it.value), max(pool, it.value)
    log "all", all(pool, c: c.value > 0), all(pool, c: c.value > 1), all(pool, it.value > 1)
    log "sort", sort_by(pool, c: 0 - c.value), sort_by(pool, 0 - it.value)
    log "by", min_by(pool, c: c.value), max_by(pool, c: field(c, "value")), max_by(pool, field(it, "value"))
    log "distinct", count_distinct(pool, c: c.value % 2), count_distinct(pool, it.value % 2)
    log "sets", set_sizes(pool, c: c.value % 2), set_sizes(pool, it.value % 2)
    log "names", count_distinct(pool, c: c.name), sum(pool, c: if c.name == "Red" then 1 else 0)
    log "any", any(pool where c: c.value > 2), any(pool where c: c.value > 3)
"""
FORMS_LOGGED = ["where 2 2", "where list [Red, Green] [Red, Green]", "sum 60 60", "sum field 6 6",
                "min max 1 3 1 3", "all true false false", "sort [Green, Blue, Red] [Green, Blue, Red]",
                "by Red Green Green", "distinct 2 2", "sets [2, 1] [2, 1]", "names 3 1", "any true false"]

NESTED = """
    create defs(Token) into pool
    log "runs", count(pool where a: not any(pool where b: b.value == a.value - 1))
    log "the old slip", count(pool where not any(pool where it.value == it.value - 1))
    log "inner reads outer", sum(pool, a: sum(pool, b: a.value * b.value))
    log "fast filter, outer value", count(pool where a: count(pool where b: b.value < a.value) == 1)
    log "it is the outer element", count(pool where any(pool where c: c.value == it.value + 1))
    log "it on the left", count(pool where any(pool where c: it.value > c.value))
    log "sum reads outer it", sum(pool, sum(pool where c: c.value < it.value, c: c.value))
"""
NESTED_LOGGED = ["runs 1", "the old slip 3", "inner reads outer 36", "fast filter, outer value 1",
                 "it is the outer element 2", "it on the left 2", "sum reads outer it 4"]


def test_each_form_reads_its_named_element_as_it_reads_it(tmp_path):
    engine, logs = load(tmp_path, "", FORMS)
    assert logs == FORMS_LOGGED
    # The name is a local of its form, typed as `it` is.
    assert meanings(engine.model, "c")[:2] == [("local it", ("card", "Token"))] * 2


def test_nested_forms_read_each_other_by_name_and_it_is_the_enclosing_element(tmp_path):
    _, logs = load(tmp_path, "", NESTED)
    assert logs == NESTED_LOGGED


@pytest.mark.parametrize("rules", [FORMS, NESTED], ids=["forms", "nested"])
def test_the_library_functions_read_a_named_element_as_the_inline_forms_do(tmp_path, monkeypatch, rules):
    monkeypatch.setattr(pysource.SourceCompiler, "INLINE", False)
    engine, logs = load(tmp_path, "", rules)
    assert any("_b_" in text for text in engine.program.expression_sources)
    assert logs == (FORMS_LOGGED if rules is FORMS else NESTED_LOGGED)


def test_an_actions_limit_may_name_the_action(tmp_path):
    text = (ROOT / "tests" / "rulesets" / "race.lf").read_text()
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    for limit in ("distinct unless a: a == step", "each at most a: if a == step then 2 else 1"):
        path = tmp_path / "race.lf"
        path.write_text(text.replace("distinct unless false", limit))
        race = Engine.load(path)
        st = race.new_game(2, 1)
        race.apply(st, "step")
        race.apply(st, "1")
        assert race.legal(st) == ["step", "build"], limit  # `distinct unless false` leaves ["build"]


def test_the_forms_print_back_as_written():
    for text in ["xs where c: c.value > 1", "sum(xs, c: c.value)", "max(xs where a: a.cost < 2, b: b.cost)",
                 "xs where a: not any(xs where b: b.value == a.value - 1)"]:
        assert unparse.expr(parse_expression(text)) == text
    actions = parse('round { phase a each p { actions 1 for p from x distinct unless a: a == x } }').items[0]
    assert unparse.stmt(actions.phases[0].body[0], 0) == ["actions 1 for p from x distinct unless a: a == x"]


# ---- every element of a real ruleset named: the same game ------------------------------------
def named_everywhere(program, model):
    """The program's declarations with the element of every form that binds one named (`e1`,
    `e2`, ...) and every `it` that read it renamed."""
    names: dict = {}
    fresh = (f"e{i}" for i in itertools.count(1))

    def name_of(site):
        if site not in names:
            names[site] = next(fresh)
        return names[site]

    def binds(node):
        if isinstance(node, A.Filter):
            return True
        if isinstance(node, A.Actions):
            return node.unless is not None or node.most is not None
        b = model.bindings.get(node) if isinstance(node, A.Call) else None
        return (b is not None and b.kind == "builtin" and b.name in LAMBDA_BUILTINS and len(node.args) == 2
                and node not in model.decided.numbers)

    def rename(x):
        if isinstance(x, tuple):
            return tuple(rename(i) for i in x)
        if isinstance(x, list):
            return [rename(i) for i in x]
        if not attrs.has(type(x)) or isinstance(x, A.Span):
            return x
        if isinstance(x, A.Name):
            b = model.bindings.get(x)
            if b is not None and b.kind == "local" and b.decl.how == "it":
                return attrs.evolve(x, id=name_of(b.decl.site))
            return x
        changed = {f.name: rename(getattr(x, f.name)) for f in attrs.fields(type(x)) if f.init}
        if binds(x):
            changed["elem"] = A.Element(name_of(x), x.span)
        return attrs.evolve(x, **changed)

    return [rename(item) for item in program.items]


GAMES = [("tests/rulesets/race.lf", "tests/rulesets/tiny.toml", 3), ("tests/rulesets/links.lf", "tests/rulesets/links.toml", 2),
         ("rulesets/duel.lf", "cards/duel.toml", 2)]


@pytest.mark.parametrize("ruleset,cards,players", GAMES, ids=[g[0].split("/")[-1] for g in GAMES])
def test_a_ruleset_with_every_element_named_plays_the_same_games(tmp_path, ruleset, cards, players):
    program = load_ruleset(ROOT / ruleset, Project.around(ROOT / ruleset))
    model = check(program)
    plain = tmp_path / "plain.lf"
    plain.write_text(unparse.program(program.items))
    named = tmp_path / "named.lf"
    named.write_text(unparse.program(named_everywhere(program, model)))
    a = Engine.load(plain, cards=ROOT / cards)
    b = Engine.load(named, cards=ROOT / cards)
    assert "where e1: " in named.read_text() or "e1: " in named.read_text()
    assert not [n for n in b.model.bindings if isinstance(n, A.Name) and n.id == "it"]  # no `it` is left
    for seed in (1, 2):
        assert _trace(a, players, seed) == _trace(b, players, seed)


# ---- the warning: an inner `it` read on both sides of a comparison -----------------------------
SLIP = """counter n = 0
setup {
    create defs(Token) into pool
    set n += count(pool where not any(pool where it.value == it.value - 1))
}
round { phase a each p { } }
"""


def _checked(text, path="w.lf"):
    return check(parse(HEAD + text, path))


def test_an_inner_it_compared_with_itself_is_a_warning_at_that_it():
    model = _checked(SLIP)
    (w,) = model.warnings
    line = (HEAD + SLIP).splitlines()[w.line - 1]
    assert w.severity == "warning" and line.strip().startswith("set n += count(pool where not any(")
    assert w.col == line.rindex("it.value") + 1 and (w.end_line, w.end_col) == (w.line, w.col + 2)
    inner, outer = line.index("pool where it") + 1, line.index("pool where not") + 1
    assert w.message == (f"`it` here is the element of the inner `where` ({w.line}:{inner}), not of the outer "
                         f"`where` ({w.line}:{outer}): both sides of this comparison read the same card")
    assert w.hint == "name the elements: `xs where a: not any(xs where b: b.value == a.value - 1)`"
    assert w.render().splitlines()[0] == f"w.lf:{w.line}:{w.col}: warning: {w.message}"


@pytest.mark.parametrize("expr", [
    "count(pool where a: not any(pool where b: b.value == a.value - 1))",  # named: nothing hidden
    "count(pool where not any(pool where c: c.value == it.value - 1))",   # the inner one named
    "count(pool where any(pool where it.value == 3))",                      # `it` on one side only
    "count(pool where it.value == it.value)",                               # no outer `it` hidden
    "count(pool where any(pool where it.value == sum(pool, it.value)))",    # two different inner `it`s
    "count(pool where min(2, it.value) == it.value)",                       # min of numbers binds nothing
])
def test_no_warning_where_no_it_hides_one_that_the_comparison_needs(expr):
    assert _checked(SLIP.replace("count(pool where not any(pool where it.value == it.value - 1))", expr)).warnings == ()


def test_the_warning_is_also_found_in_aggregates_and_actions_limits():
    model = _checked(SLIP.replace("count(pool where not any(pool where it.value == it.value - 1))",
                                  "sum(pool, count(pool where it.value < it.value))"))
    (w,) = model.warnings
    assert "inner `where`" in w.message and "outer `sum`" in w.message
    model = _checked("""action go(p) { }
round { phase a each p { actions 1 for p from go each at most count([1, 2] where it == it) } }
""")
    (w,) = model.warnings
    assert "outer `actions` limit" in w.message and "the same element" in w.message


def test_check_prints_the_warning_and_succeeds(tmp_path, capsys):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path = tmp_path / "w.lf"
    path.write_text(HEAD + SLIP)
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "ok: Scopes" in out
    assert ": warning: `it` here is the element of the inner `where`" in err
    assert err.splitlines()[-1] == "lfdsl: 0 error(s), 1 warning(s) (check)"


def test_a_warning_goes_with_the_errors_when_there_are_some():
    with pytest.raises(CheckError) as info:
        _checked(SLIP + "counter m = nope\n")
    assert sorted(d.severity for d in info.value.diagnostics) == ["error", "warning"]


def test_no_shipped_ruleset_has_a_warning():
    for path in sorted((ROOT / "rulesets").glob("*.lf")):
        assert check(load_ruleset(path, Project.around(path))).warnings == (), path.name


# ---- names that cannot be given --------------------------------------------------------------
@pytest.mark.parametrize("expr,message,at", [
    ("count(pool where it: it.value > 1)", "`it:` names the element `it`, which it is without a name", "it:"),
    ("max(2, c: c + 1)", "`max` of two numbers has no element to name", "c:"),
    ("index_of([1, 2], c: 2)", "`index_of` is given values: no element of its arguments can be named", "c:"),
    ("count(pool where c: it.value > 1)", "unknown name `it`", "it.value"),
])
def test_a_name_where_no_element_takes_it_is_an_error_at_the_name(expr, message, at):
    text = SLIP.replace("count(pool where not any(pool where it.value == it.value - 1))", expr)
    with pytest.raises(CheckError) as info:
        _checked(text)
    (d,) = info.value.diagnostics
    line = (HEAD + text).splitlines()[d.line - 1]
    assert d.message == message and d.col == line.index(at) + 1


@pytest.mark.parametrize("text", ["f(c: x, y)", "f(a, b, c: y)", "[c: 1]"])
def test_only_the_second_of_two_arguments_names_an_element(text):
    with pytest.raises(ParseError):
        parse_expression(text)
