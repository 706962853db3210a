"""Hostile inputs that ask the engine or a bot for unbounded work: bot parameters past their
ceilings, long chains of cards in slots, self-firing triggers, many hidden faces. Each ends with a
positioned error (or plays) within the CPU and memory limits of tests/test_hostile.py."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from interpreter.engine import Engine
from interpreter.core.runtime import GameError
from interpreter.tools.trace import ListSink

from .test_hostile import GAME, HOSTILE, ROUND, _folder, assert_clean_end, lfdsl

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


def test_a_bot_reads_the_view_of_a_chain_of_twelve_thousand_cards_in_slots():
    """A view names a slot by its host's handle, so hosts come before what they hold: a chain is
    walked level by level, each level once (it took 43 s of CPU per view, walking all slots per level)."""
    rules = HOSTILE / "slot_chain_deep.lf"
    assert_clean_end(lfdsl("run", str(rules), "--quiet", "--seed", "1", "--agents", "greedy"), exits=(0,))


def _stops(tmp_path: Path, name: str, budget: int) -> str:
    """The error the engine stops hostile file `name` with, its step budget set to `budget`."""
    shutil.copy(HOSTILE / "tiny.toml", tmp_path / "tiny.toml")
    rules = tmp_path / name
    rules.write_text((HOSTILE / name).read_text().replace("step_budget 1000000", f"step_budget {budget}")
                     .replace("times 12000", "times 40"))
    engine = Engine.load(rules)
    with pytest.raises(GameError) as err:
        engine.new_game(1, 1)
    return str(err.value).split("\n")[0]


@pytest.mark.parametrize("budget", range(200, 240))
def test_a_chain_of_cards_in_slots_is_charged_a_step_a_card(tmp_path, budget):
    """The walk up a chain of cards in slots is charged a step a card, in the runtime: the budget is
    met at the move with its own message. 40 cards make a chain whose walks cost 741 steps, more than
    the budget; the moves and loop alone cost less."""
    source = _stops(tmp_path, "slot_chain.lf", budget)
    assert source.endswith("more than %d steps without a decision: this move goes up a chain of cards held "
                           "in one another's slots" % budget) or "a rule loops" in source


def test_a_trigger_firing_itself_is_charged_where_it_is_fired(tmp_path):
    """A trigger fired costs TRIGGER_STEPS besides its body: the budget is met where the trigger is
    fired (most budgets) or at its body's statement."""
    stops = [_stops(tmp_path, "self_firing_leave.lf", budget) for budget in range(100, 120)]
    assert sum("keep going off" in source for source in stops) >= 16
    assert all("keep going off" in source or "a rule loops" in source for source in stops)


def test_a_trigger_firing_itself_is_charged_for_each_firing(tmp_path):
    """Each firing costs its body's two steps and TRIGGER_STEPS (8): a budget of N steps allows about
    N / 10 firings (N / 2 when only the body was charged)."""
    fired = []
    for budget in (900, 9000):
        rules = tmp_path / "count.lf"
        shutil.copy(HOSTILE / "tiny.toml", tmp_path / "tiny.toml")
        rules.write_text((HOSTILE / "self_firing_leave.lf").read_text()
                         .replace("step_budget 1000000", f"step_budget {budget}")
                         .replace("    move card to a\n", "    set n += 1\n    move card to a\n"))
        engine = Engine.load(rules)
        sink = ListSink()
        with pytest.raises(GameError):
            engine.new_game(1, 1, sink=sink)
        fired.append(sum(1 for ev in sink.events if ev["event"] == "move"))
    assert 85 <= fired[0] <= 91 and 890 <= fired[1] <= 901, fired
