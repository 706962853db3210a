"""A small fixed-seed fuzz run over the real rules files, card databases and scenarios.

Every mutant must end cleanly: accepted, or rejected with a `file:line:col: message` first line;
never a traceback, a hang, or Python's own wording. `benchmarks/fuzz.py` runs the same mutants at
2,000 per kind and prints every failure signature; `--show K` gives examples to fix.
"""
from __future__ import annotations

import collections

import pytest

from tests.fuzzing import BAD, KINDS, Runner, make_mutants, signature, tally

MUTANTS_PER_KIND = 30
SEED = 20240601


@pytest.fixture(scope="module")
def runner():
    """One forking runner for the module (it copies the tree and warms the parser once)."""
    with Runner(workers=2, timeout=10.0, cpu_seconds=8) as r:
        yield r


@pytest.mark.parametrize("kind", KINDS)
def test_mutants_end_cleanly(kind, runner):
    results = runner.run(make_mutants(kind, MUTANTS_PER_KIND, SEED))
    counts = tally(results)
    bad = [r for r in results if r.outcome in BAD]
    report = collections.Counter(signature(r) for r in bad)
    examples = "\n".join(f"  {r.outcome}: {r.mutant.source}: {r.mutant.description}\n"
                         f"    {' '.join(r.argv)}\n    {(r.stderr.strip().splitlines() or [''])[-1][:200]}"
                         for r in bad[:5])
    if bad:
        pytest.fail(f"{kind}: {counts}\n" + "\n".join(f"{n:4}  {s}" for s, n in report.most_common())
                    + "\nexamples:\n" + examples, pytrace=False)
    assert counts["positioned_share"] == 1.0
