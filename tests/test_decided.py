"""The checker records what it decided about nodes besides their types (what each `a.b` reads, the
elements of each collection, which `min`/`max` calls are of two numbers) and the compiler reads
that side table rather than deciding again."""
from __future__ import annotations

import attrs
import pytest

from interpreter.engine import Engine
from interpreter.compile.pysource import SourceCompiler
from rulesdsl import ast as A
from rulesdsl.checker import ANY, READS, Reads

from .conftest import ROOT


@pytest.mark.parametrize("ruleset", ["base", "kodama", "duel", "dartmoor"])
def test_every_typed_attribute_access_and_collection_has_its_decision(ruleset):
    model = Engine.load(ROOT / "rulesets" / f"{ruleset}.lf").program.model
    accesses = [n for n in model.types if isinstance(n, A.Attr) and model.types.get(n.obj, ANY) != ANY]
    assert accesses and all(model.decided.reads[n].what in READS for n in accesses)
    assert {r.what for r in model.decided.reads.values()} >= {"player_place", "card_field"}
    filters = [n for n in model.types if isinstance(n, A.Filter)]
    assert filters and all(n.coll in model.decided.elems for n in filters)


def test_the_compiler_writes_what_the_side_table_says():
    """Change a decision in the side table and the compiler follows it: it does not look again at
    the declarations or the types to find what `c.name` reads."""
    program = Engine.load(ROOT / "rulesets" / "base.lf").program
    model = program.model
    node = next(n for n, r in model.decided.reads.items() if r.what == "card_name")
    as_field = attrs.evolve(model.decided, reads={**model.decided.reads, node: Reads("card_field")})
    read = SourceCompiler(model, program.params, program.player_keys).text(node)
    changed = SourceCompiler(attrs.evolve(model, decided=as_field), program.params, program.player_keys).text(node)
    assert read.startswith("rt.names[cd[") and changed.startswith("fl[cd[") and changed.endswith("['name']")
