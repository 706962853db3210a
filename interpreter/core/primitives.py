"""The engine's primitives: what compiled rules and the run share at the lowest level.

The error a rule raises while running, the marker an instruction returns to suspend the run at a
decision, the key of a piece on a track, the engine's integer range and the step budget's charge.
Both the compiler (which writes code calling these) and the runtime (which runs it) import them
from here, so the engine does not import the compiler.
"""
from __future__ import annotations

from rulesdsl import ast as A
from rulesdsl.limits import MAX_INT, MAX_STEP_BUDGET, MIN_INT

SUSPEND = object()


class RuleError(Exception):
    """A rule failed while running: carries the span of the statement that failed, and a hint
    when the failure knows one."""

    def __init__(self, message: str, span: A.Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint


class OverBudget(RuleError):
    """The run went over its step budget. `what` names the work that met it and `cost` its steps,
    so that the run loop can word the error again once it knows what the whole instruction cost."""

    def __init__(self, message: str, span, hint, what: str | None, cost: int):
        super().__init__(message, span, hint)
        self.what = what
        self.cost = cost


def bounded(v, span):
    """`v` itself, if it is not an integer outside the engine's range; a RuleError otherwise."""
    if type(v) is int and not MIN_INT <= v <= MAX_INT:
        raise RuleError("a number went outside the engine's range (-2^63 .. 2^63-1)", span)
    return v


def charge(rt, n: int, span, what: str):
    """Charge `n` steps of work to the budget: the one charge besides the run loop's step per
    instruction. `what` names the work (a long list or range, a walk through a collection, a call,
    a shuffle, triggers set off...) for the error when the budget runs out, which the run words by
    what used the steps up (see `Run.over_budget`); a `{n}` in it is written as `n` then, so that a
    charge that fits costs no text."""
    st = rt.st if rt is not None else None
    if st is None:  # evaluated before any game: parameters and static data
        if n > MAX_STEP_BUDGET:
            raise RuleError(f"{what.replace('{n}', f'{n:,}')}: more than the engine allows "
                            f"({MAX_STEP_BUDGET:,} steps)", span)
        return
    st.steps += n
    if st.steps > rt.step_budget:
        raise rt.over_budget(n, span, what.replace("{n}", f"{n:,}"))


def piece_key(v) -> str:
    """Players' pieces are keyed by seat (`P1`); other pieces by their name."""
    return f"P{v + 1}" if isinstance(v, int) else v
