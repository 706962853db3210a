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


def _faces(tmp_path: Path, cards: int, faces: int) -> Path:
    """A kind with `faces` hidden faces (every card has each) and `cards` cards of it."""
    hidden = "\n".join(f'    face f{i} hidden {{ name = "back {i}" value = {i} }}' for i in range(faces))
    game = GAME.format(cards="many.toml").replace("    value: int\n", f"    value: int\n    faces front\n{hidden}\n")
    (tmp_path / "many.toml").write_text("".join(f'[[Token]]\nname = "T{i}"\nvalue = {i}\n\n' for i in range(cards)))
    rules = tmp_path / "faces.lf"
    rules.write_text(game + ROUND)
    return rules


def test_four_hundred_cards_of_two_hundred_hidden_faces_are_checked_in_little_memory(tmp_path):
    """The faces of one card share their table of faces: memory grows as cards x faces, not x faces^2
    (a table per face took 593 MB here; the check now takes under 200 MB of address space)."""
    result = lfdsl("check", str(_faces(tmp_path, 400, 200)), memory=256 * 2 ** 20)
    assert_clean_end(result, exits=(0,))


def test_more_faces_than_the_engine_holds_are_refused_at_the_card(tmp_path):
    """Every card has every hidden face: 2,000 cards of 600 faces would be 1.2 million definitions."""
    result = lfdsl("check", str(_faces(tmp_path, 2000, 600)))
    assert_clean_end(result, exits=(2,))
    first = result[2].split("\n", 1)[0]
    assert first.startswith(f"{tmp_path / 'many.toml'}:")
    assert "the cards' faces come to more than 100,000 definitions" in first
