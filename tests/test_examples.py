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
