"""A small fixed-seed fuzz run over the real rules files, card databases, scenarios, traces and
saved games.

Every mutant must end cleanly: accepted, or rejected with a `file:line:col: message` first line;
never a traceback, an internal error, a hang, Python's own wording, or a secret printed (a line of
/etc/passwd, the environment). `benchmarks/fuzz.py` runs the same mutants at 2,000 per kind and
prints every failure signature; `--show K` gives examples to fix.
"""
from __future__ import annotations

import collections

import pytest

from tests.fuzzing import (BAD, CANARY, KINDS, Mutant, Runner, classify, make_mutants, secrets, shown, signature,
                           sources, tally)

MUTANTS_PER_KIND = 30
SEED = 20240601


@pytest.fixture(scope="module")
def runner():
    """One forking runner for the module (it copies the tree and warms the parser once). A mutant
    that computes is stopped by its 8 s of CPU; one still running after a minute waits on something
    (a hang), however busy the machine (`make test` runs a worker per core)."""
    with Runner(workers=2, timeout=60.0, cpu_seconds=8) as r:
        yield r


@pytest.mark.parametrize("kind", KINDS)
def test_mutants_end_cleanly(kind, runner):
    results = runner.run(make_mutants(kind, MUTANTS_PER_KIND, SEED))
    counts = tally(results)
    bad = [r for r in results if r.outcome in BAD]
    report = collections.Counter(signature(r) for r in bad)
    examples = "\n".join(f"  {r.outcome}: {r.mutant.source}: {r.mutant.description}\n"
                         f"    {' '.join(r.argv)}\n    {(shown(r).strip().splitlines() or [''])[-1][:200]}"
                         for r in bad[:5])
    if bad:
        pytest.fail(f"{kind}: {counts}\n" + "\n".join(f"{n:4}  {s}" for s, n in report.most_common())
                    + "\nexamples:\n" + examples, pytrace=False)
    assert counts["positioned_share"] == 1.0


@pytest.mark.parametrize("kind", ["trace", "save"])
def test_the_unmutated_traces_and_saves_load_cleanly(kind, runner):
    """The seed files replay byte for byte and resume: a mutant's failure is the mutation's."""
    files = sources(kind)
    results = runner.run([Mutant(kind, i, f.rel, f.data, "unchanged") for i, f in enumerate(files)])
    assert [(r.outcome, r.exit_code) for r in results] == [("accepted", 0)] * len(files), \
        [shown(r) for r in results]


def test_an_internal_error_is_a_bad_outcome():
    said = ("lfdsl: internal error (ValueError: 3 agents for 2 players); this is a fault of lfdsl, not of "
            "your files: please report it with the command that caused it (LFDSL_DEBUG=1 shows the details)\n")
    assert classify(4, said, False) == "internal-error"
    assert classify(4, "the engine lost a card\nlfdsl: internal error (a fault of lfdsl, not of the ruleset)\n",
                    False) == "internal-error"
    assert "internal-error" in BAD


def test_a_secret_in_either_stream_is_a_leak_whatever_the_exit():
    passwd = "/etc/passwd:1:1: unexpected `root`\n    root:x:0:0:root:/root:/bin/bash\n    ^^^^\n"
    assert classify(2, passwd, False) == "leak"
    assert classify(0, "", False, stdout=f"loaded {CANARY}\n") == "leak"
    assert classify(2, "rules.lf:1:1: unexpected `a`\n", False) == "rejected-positioned"
    for entry in secrets()[2:3]:  # a line of /proc/self/environ, as a parse error would show it
        assert classify(2, f"/proc/self/environ:1:1: unexpected\n    {entry} {entry}\n", False) == "leak"
    assert "leak" in BAD
