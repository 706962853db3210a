"""Hostile inputs that ask the engine or a bot for unbounded work: bot parameters past their
ceilings, long chains of cards in slots, self-firing triggers, many hidden faces. Each ends with a
positioned error (or plays) within the CPU and memory limits of tests/test_hostile.py."""
from __future__ import annotations

from pathlib import Path

from .test_hostile import GAME, ROUND, _folder, assert_clean_end, lfdsl

PYTHON_WORDING = ("Traceback", "ValueError", "invalid literal", "Exceeds the limit", "integer string conversion")


def _rules(tmp_path: Path) -> Path:
    rules = _folder(tmp_path) / "r.lf"
    rules.write_text(GAME.format(cards="tiny.toml") + ROUND)
    return rules


def test_a_billion_search_iterations_are_refused_at_once(tmp_path):
    result = lfdsl("run", str(_rules(tmp_path)), "--quiet", "--agents", "mcts:iterations=1000000000")
    assert_clean_end(result, exits=(2,), where=("--agents", 1))
    assert result[2].startswith("--agents:1:17: `iterations` of `mcts` must be at most 100,000")


def test_a_parameter_of_five_thousand_digits_is_refused_without_python_wording(tmp_path):
    result = lfdsl("run", str(_rules(tmp_path)), "--quiet", "--agents", "greedy:follow=" + "7" * 5000)
    assert_clean_end(result, exits=(2,), where=("--agents", 1))
    assert result[2].startswith("--agents:1:15: `follow` of `greedy` must be at most 100")
    assert not [w for w in PYTHON_WORDING if w in result[2]], result[2][:2000]
