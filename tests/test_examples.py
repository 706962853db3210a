"""The example game of docs/tutorial.md part 2 (examples/pond/): it checks, plays as the tutorial
shows, its scenario passes, and its misspelt card file gives the error the tutorial prints."""
from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT

POND = ROOT / "examples" / "pond"


def lfdsl(*args):
    return subprocess.run([sys.executable, "-m", "interpreter.tools.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_the_tutorials_outputs_are_what_the_commands_print():
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    check = lfdsl("check", "examples/pond/pond.lf")
    assert check.returncode == 0 and check.stdout.strip() in tutorial
    run = lfdsl("run", "examples/pond/pond.lf", "--seed", "4")
    assert run.returncode == 0
    for line in run.stdout.splitlines()[-5:]:
        assert line in tutorial, line
    assert "    Minnow: P1.hand -> #1.below" in run.stdout
    typo = lfdsl("check", "examples/pond/pond.lf", "--cards", "examples/pond/typo.toml")
    assert typo.returncode != 0 and typo.stderr.strip() in tutorial
    test = lfdsl("test", "examples/pond/pond.lf", "examples/pond/frog_on_a_full_pad.toml")
    assert test.returncode == 0 and test.stdout.strip() in tutorial


# ---- the example games of other shapes (issue 29) --------------------------------------------------
# example -> (players for the random games, scenarios at least)
EXAMPLES = {"sixnimmt": (4, 12), "hanabi": (3, 12), "forsale": (4, 12)}


def test_the_tutorials_third_part_shows_what_the_commands_print():
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    part = tutorial[tutorial.index("# Part 3"):]
    check = lfdsl("check", "examples/sixnimmt/sixnimmt.lf")
    assert check.returncode == 0 and check.stdout.strip() in part
    run = lfdsl("run", "examples/sixnimmt/sixnimmt.lf", "--seed", "3", "--players", "3")
    first = run.stdout[run.stdout.index("-- phase turn"):].splitlines()[:5]
    assert "\n".join(first) in part
    view = lfdsl("run", "examples/sixnimmt/sixnimmt.lf", "--seed", "3", "--players", "3", "--view", "P2")
    seen = view.stdout[view.stdout.index("-- phase turn"):].splitlines()[1:5]
    assert "\n".join(seen) in part
    test = lfdsl("test", "examples/sixnimmt/sixnimmt.lf", "examples/sixnimmt/scenarios/lowest_card_first.toml")
    assert test.returncode == 0 and test.stdout.strip() in part


def test_each_example_game_checks_and_its_scenarios_pass():
    for name, (_, least) in EXAMPLES.items():
        folder = ROOT / "examples" / name
        check = lfdsl("check", f"examples/{name}/{name}.lf")
        assert check.returncode == 0, check.stderr
        scenarios = sorted(str(p.relative_to(ROOT)) for p in (folder / "scenarios").glob("*.toml"))
        assert len(scenarios) >= least
        test = lfdsl("test", f"examples/{name}/{name}.lf", *scenarios)
        assert test.returncode == 0 and test.stdout.strip().endswith(" 0 failed"), test.stdout[-2000:]


def test_each_example_game_plays_100_random_games_to_their_end():
    # 1,000 per game were played with `lfdsl simulate --agents random --games 1000` (issue 29's note).
    from interpreter.engine import Engine
    from interpreter.tools.agents import make_agents, play
    for name, (players, _) in EXAMPLES.items():
        engine = Engine.load(ROOT / "examples" / name / f"{name}.lf")
        for seed in range(100):
            st = engine.new_game(players, seed)
            play(engine, st, make_agents("random", players, seed))
            assert engine.is_over(st) and st.result["reason"], (name, seed)
