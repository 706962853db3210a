"""A runtime error inside a trigger names the trigger and the statement that fired it."""
from __future__ import annotations

import pytest

from interpreter.engine import Engine, GameError

from .conftest import ROOT

RULES = """game "Trig" {{
    players 1..1
    cards "{cards}"
}}
kind Token {{ value: int }}
zone bag: bag of Token
zone hand: row of Token per player
counter zero = 0
setup {{
    create defs(Token) into bag
}}
round {{
    phase a each p {{
        log "start"
        draw c from bag to p.hand
    }}
}}
on enter hand(card, owner) {{
    log "entered"
    set zero += 1 / zero
}}
on reach(p) count(p.hand) > 0 {{
    set zero += 2 / zero
}}
"""


def _error(tmp_path, rules):
    path = tmp_path / "trig.lf"
    (path.parent / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    path.write_text(rules.format(cards="tiny.toml"))
    engine = Engine.load(path)
    with pytest.raises(GameError) as info:
        engine.new_game(1, 1)
    return path, str(info.value)


def test_error_in_trigger_names_trigger_and_firing_statement(tmp_path):
    path, text = _error(tmp_path, RULES)
    first = text.splitlines()[0]
    assert first.startswith(f"{path}:20:")
    assert (f"in the trigger `on enter hand` ({path}:18), fired by the statement at {path}:15:9: "
            in first), first
    assert "division by zero" in first


def test_error_in_reach_trigger_names_it(tmp_path):
    rules = RULES.replace("set zero += 1 / zero", 'log "ok"')
    path, text = _error(tmp_path, rules)
    first = text.splitlines()[0]
    assert first.startswith(f"{path}:23:")
    assert f"in the trigger `on reach` ({path}:22), fired when its condition became true" in first


def test_error_outside_triggers_has_no_trigger_context(tmp_path):
    rules = RULES.replace("set zero += 1 / zero", 'log "ok"').replace(
        "set zero += 2 / zero", 'log "ok"').replace('log "start"', "set zero += 3 / zero")
    path, text = _error(tmp_path, rules)
    assert text.startswith(f"{path}:14:") and "in the trigger" not in text
