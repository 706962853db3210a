"""The instruction records bodies are lowered to (interpreter/core/ir.py), and the back end built on them.

That the closures built from the records behave exactly as before is shown by the golden traces
(tests/test_games.py), the scenarios and the determinism tests, which every game played through
this back end must still match byte for byte; the tests here check the records themselves.
"""
from __future__ import annotations

import pickle

import attrs
import pytest

from interpreter.core import ir
from interpreter.compile.backend import Backend
from interpreter.engine import Engine

from .conftest import ROOT

SMALL = """
game "Small" {
    players 1..2
    cards "tiny.toml"
}
kind Token { value: int }
zone bag: bag of Token
zone hand: row of Token per player
counter score = 0 per player

action take(p) {
    draw c from bag to p.hand
}

setup {
    for d in defs(Token) {
        create d times 2 into bag
    }
    shuffle bag
}

round {
    phase play each p {
        if p.score > 3 {
            return
        } else {
            set p.score += 1
        }
        for t in p.hand where it.value > 1 {
            move t to bag
        }
        choose "Draw?" {
            option yes if any(bag) { do take(p) }
            option no { }
        }
        while count(p.hand) < 2 {
            break
        }
        pick c in bag spend c.value within 3 {
            log "picked", c
        }
        actions 1 for p from take
    }
}
"""

# Read as: an `if` is a branch to its `else` part and a jump over it; a loop an init, a head
# that leaves to the loop's end, and a jump back to the head; a choice an ask whose options
# start at their targets.
PHASE = """\
 0  branch p.score > 3 else 3
 1  return
 2  jump 4
 3  call set_counter counter='score' player=p key=- op='+=' value=1
 4  loop_init $items3, $i4 <- each p.hand where it.value > 1
 5  loop_next t <- $items3[$i4] else 8
 6  call move card=t dest=bag bottom=False
 7  jump 5
 8  ask_option 'Draw?' by=- [yes if any(bag) -> 9, no -> 11] else 12
 9  call perform action='take' bonus=True args=[p]
10  jump 12
11  jump 12
12  branch count(p.hand) < 2 else 15
13  jump 15
14  jump 12
15  pick_init $left5 = 3, $picked6 = 0
16  ask_pick c in bag cost=c.value by=- left=$left5 count=$picked6 else 19
17  log 'picked', c
18  jump 16
19  actions_init $actions7 = 1, $used8 = []
20  ask_action p [take] unless=- most=- left=$actions7 used=$used8 else 21"""

SETUP = """\
0  loop_init $items1, $i2 <- each defs(Token)
1  loop_next d <- $items1[$i2] else 4
2  call create defs=d times=2 dest=bag many=False
3  jump 1
4  call shuffle zone=bag"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    (folder / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (folder / "small.lf").write_text(SMALL)
    return Engine.load(folder / "small.lf")


def test_a_small_body_lowers_to_the_expected_listing(small):
    assert ir.dump(small.program.procs["phase:play"].ir) == PHASE
    assert ir.dump(small.program.procs["setup"].ir) == SETUP
    assert ir.dump(small.program.procs["action:take"].ir) == "0  call draw src=bag refill=- dest=p.hand -> c"


def test_the_listing_can_show_where_each_record_comes_from(small):
    lines = ir.dump(small.program.procs["phase:play"].ir, spans=True).splitlines()
    assert lines[0].endswith("; 24:12")    # the condition of the `if`
    assert lines[3].endswith("; 27:13")    # the `set` of the `else` part


def test_the_small_game_runs_on_the_records_it_was_built_from(small):
    st = small.new_game(1, 3)
    assert st.pending["prompt"] == "Draw?" and small.legal(st) == ["yes", "no"]
    small.apply(st, "yes")
    assert len(st.zones["P1.hand"]) == 1
    assert st.pending["prompt"] == "pick c"


def targets(rec):
    """The jump targets a record holds."""
    out = [getattr(rec, f) for f in ("target", "end") if hasattr(rec, f)]
    return out + list(getattr(rec, "targets", ()))


def shipped():
    return sorted(p.name for p in (ROOT / "rulesets").glob("*.lf"))


@pytest.fixture(scope="module", params=shipped())
def engine(request):
    return Engine.load(ROOT / "rulesets" / request.param)


def test_every_shipped_body_has_well_formed_records(engine):
    assert engine.program.procs
    for key, proc in engine.program.procs.items():
        assert len(proc.ir) == len(proc.code) == len(proc.spans), key
        for i, rec in enumerate(proc.ir):
            assert type(rec) in ir.RECORDS, (key, i, rec)
            assert proc.spans[i] is rec.span
            assert all(0 <= t <= len(proc.ir) for t in targets(rec)), (key, i, str(rec))
            if isinstance(rec, ir.Call):
                assert len(rec.args) == len(ir.SERVICES[rec.service]), (key, i, str(rec))
            if isinstance(rec, ir.LoopInit):
                assert rec.over in ir.LOOP_SOURCES
            assert str(rec) and "\n" not in str(rec)


def test_every_shipped_body_pickles_to_the_same_records(engine):
    for key, proc in engine.program.procs.items():
        back = pickle.loads(pickle.dumps(proc.ir))
        assert [type(r) for r in back] == [type(r) for r in proc.ir], key
        assert ir.dump(back, spans=True) == ir.dump(proc.ir, spans=True), key
        assert [r.span for r in back] == [r.span for r in proc.ir], key


def test_every_record_and_service_has_a_builder():
    for cls in ir.RECORDS:
        assert callable(getattr(Backend, "b_" + cls.__name__, None)), cls.__name__
        assert cls.op and cls.__doc__
    for service in ir.SERVICES:
        assert callable(getattr(Backend, "call_" + service, None)), service
    # The decisions' records say which `how.kind` of pending decision they make.
    assert {c.how for c in (ir.AskOption, ir.AskItem, ir.AskPick, ir.AskAction)} == {"jump", "bind", "pick", "act"}


def test_records_are_data_not_code(engine):
    """Nothing callable hides in a record: a second back end can emit from the records alone."""
    def values(v):
        if isinstance(v, tuple):
            for x in v:
                yield from values(x)
        else:
            yield v
    for proc in engine.program.procs.values():
        for rec in proc.ir:
            for f in attrs.fields(type(rec)):
                assert not any(callable(v) for v in values(getattr(rec, f.name))), (f.name, str(rec))


def test_a_pick_compiles_its_expressions_in_written_order(tmp_path, monkeypatch):
    """Which `def` calls are compiled in place depends on the order of compilation (the inlining
    allowance is spent first come, first served), so the back end keeps the written order even
    where a pick's budget is evaluated by the record before its head."""
    from interpreter.compile.pysource import SourceCompiler as compiler
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "small.lf").write_text(SMALL)
    pick_line = next(i for i, line in enumerate(SMALL.splitlines(), 1) if "pick c in" in line)
    seen = []
    text = compiler.text

    def spy(self, e):
        if e.span.line == pick_line:
            seen.append(e.span.col)
        return text(self, e)
    monkeypatch.setattr(compiler, "text", spy)
    Engine.load(tmp_path / "small.lf")
    assert len(seen) >= 3 and seen == sorted(seen)
