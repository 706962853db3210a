"""The step budget's error says what used the steps up, not which piece of work happened to meet
it: a loop that sets off a trigger on each turn is a rule that loops, triggers are blamed only
when one runs inside itself, and a statement that takes most of the budget on its own is named."""
from __future__ import annotations

import re

import pytest

from interpreter.engine import Engine, GameError

from .test_hostile import HOSTILE

GAME = """game "Budget" {{ players 1..1 cards "tiny.toml" step_budget {budget} }}
kind Token {{ value: int }}
zone a: pile of Token
zone b: pile of Token
counter n = 0
setup {{ create defs(Token) into a }}
"""

LOOP_SETTING_OFF_A_TRIGGER = """
on enter b (card, owner) {
    set n += 1
}
round {
    phase go each p {
        while n >= 0 {
            move top(a) to b
            move top(b) to a
        }
    }
}
"""

TRIGGERS_SETTING_OFF_EACH_OTHER = """
on enter b (card, owner) {
    move card to a
}
on enter a (card, owner) {
    set n += 1
    move card to b
}
round {
    phase go each p {
        move top(a) to b
    }
}
"""

TREE_OF_CALLS = "def d1(x) = x + x\n" + "".join(f"def d{i}(x) = d{i - 1}(d{i - 1}(x))\n" for i in range(2, 20)) + """
round {
    phase go each p {
        set n = d19(0)
    }
}
"""


def _stop(tmp_path, rules: str, budget: int) -> str:
    (tmp_path / "tiny.toml").write_text((HOSTILE / "tiny.toml").read_text())
    path = tmp_path / "budget.lf"
    path.write_text(GAME.format(budget=budget) + rules)
    with pytest.raises(GameError) as err:
        Engine.load(path).new_game(1, 1)
    return err.value.diagnostic.message


@pytest.mark.parametrize("budget", range(100, 110))
def test_a_loop_that_sets_off_a_trigger_each_turn_is_a_rule_that_loops(tmp_path, budget):
    """Each turn of the loop costs more in the trigger set off (8 steps) than in its statements, so
    the budget was mostly met while setting the trigger off; the loop is what goes on."""
    message = _stop(tmp_path, LOOP_SETTING_OFF_A_TRIGGER, budget)
    assert "keep going off" not in message
    assert message.endswith(f"more than {budget} steps without a decision in phase `go`: a rule loops") \
        or message.endswith(f"more than {budget} steps without a decision in `on enter b`: a rule loops")


@pytest.mark.parametrize("budget", range(100, 110))
def test_triggers_setting_each_other_off_are_named_wherever_the_budget_is_met(tmp_path, budget):
    """The budget is met on a statement of a body as often as on setting a trigger off: either
    way the triggers are what goes on, and the one that runs inside itself is named."""
    message = _stop(tmp_path, TRIGGERS_SETTING_OFF_EACH_OTHER, budget)
    assert message.endswith(f"more than {budget} steps without a decision: the triggers `on enter a` keep going off") \
        or message.endswith(f"more than {budget} steps without a decision: the triggers `on enter b` keep going off")


def test_a_statement_that_takes_most_of_the_budget_is_named_rather_than_its_last_call(tmp_path):
    message = _stop(tmp_path, TREE_OF_CALLS, 1000)
    assert re.fullmatch(r"round 1: this statement goes over the step budget \(1,000 steps without a decision\) "
                        r"with 9\d\d steps of its own \(the last: calls of `d\d+`\)", message), message


def test_work_that_takes_most_of_the_budget_in_one_go_is_named(tmp_path):
    message = _stop(tmp_path, """
round {
    phase go each p {
        set n = count(1..5000)
    }
}
""", 1000)
    assert message == "round 1: the range 1..5000: more than the step budget (1,000) allows"


def test_a_loop_doing_long_work_each_turn_names_that_work(tmp_path):
    message = _stop(tmp_path, """
round {
    phase go each p {
        while n >= 0 {
            set n += count(1..300)
        }
    }
}
""", 1000)
    assert message == ("round 1: more than 1000 steps without a decision in phase `go`: a rule loops "
                       "(the last: the range 1..300)")


def test_a_shuffle_that_takes_most_of_the_budget_is_named_with_its_size(tmp_path):
    (tmp_path / "tiny.toml").write_text((HOSTILE / "tiny.toml").read_text())
    path = tmp_path / "shuffle.lf"
    path.write_text(GAME.format(budget=10000).replace("setup {{ create defs(Token) into a }}", "")
                    .replace("setup { create defs(Token) into a }", "setup {\n    create first(defs(Token)) times 6000 "
                             "into a\n    shuffle a\n}") + "round { phase go each p { set n += 1 } }\n")
    with pytest.raises(GameError) as err:
        Engine.load(path).new_game(1, 1)
    assert err.value.diagnostic.message == "shuffling 6,000 cards, a step each: more than the step budget (10,000) allows"
    assert err.value.diagnostic.line == 8
