"""Shared fixtures: the repository root and a text snapshot extension (one .txt file per test)."""
from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parent.parent


class TextSnapshot(SingleFileSnapshotExtension):
    """Stores a snapshot as a readable UTF-8 text file, so a rules change shows as a diff."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def text_snapshot(snapshot):
    """A snapshot fixture writing `__snapshots__/<module>/<test>.txt`."""
    return snapshot.use_extension(TextSnapshot)


@pytest.fixture(scope="session")
def base_engine():
    """The base-game ruleset, loaded and compiled once."""
    from interpreter.engine import Engine
    return Engine.load(ROOT / "rulesets" / "base.lf")


def scenario_passes(engine, path):
    """Run a scenario: it must state expectations and meet them all. Returns the runner."""
    from interpreter.scenario import run_scenario
    outcomes, runner = run_scenario(engine, path)
    failed = [o.text for o in outcomes if not o.ok]
    assert outcomes, "the scenario states no expectation"
    assert not failed, "\n".join(failed + runner.log())
    return runner
