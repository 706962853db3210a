"""Agent specifications from the command line: `mcts:iterations=400,c=0.7,random`.

One agent per seat, separated by commas; an agent's parameters follow its name after a colon, also
separated by commas (a piece with `=` and no colon belongs to the agent before it). Every mistake is
an `AgentSpecError` positioned in the text of the option that gave it (`--agents`, `--bots`).
"""
from __future__ import annotations

import re

import attrs

from rulesdsl import limits
from rulesdsl.errors import Diagnostic, LanguageError, suggest


class AgentSpecError(LanguageError):
    """An agent specification that names no agent or gives a parameter it cannot use."""

    step = "agents"


@attrs.frozen
class AgentSpec:
    """One agent: its name, its parameters (name -> value, already typed) and its text."""

    name: str
    params: dict
    text: str


# Each agent's parameters: name -> (type, default, lowest allowed, highest allowed, meaning). The
# highest bounds what a specification read from a file (a saved game) can make a bot do; they are
# documented in docs/agents.md, "Ceilings".
PARAMETERS = {
    "first": {},
    "random": {},
    "human": {},  # a person at the table (`lfdsl play`); other commands refuse it
    "greedy": {
        "follow": (int, 4, 0, 100, "own decisions after the option followed by the one-step rule before it is scored"),
        "learned": (int, 1, 0, 2, "the ruleset's learned evaluation (lfdsl train): 0 never, 1 without an `evaluate` block, 2 instead of it"),
    },
    "mcts": {
        "iterations": (int, 200, 1, 100_000, "search iterations per decision"),
        "ms": (int, 0, 0, 60_000, "milliseconds per decision instead of iterations (0: use iterations)"),
        "c": (float, 0.7, 0.0, 100.0, "UCT exploration constant"),
        "depth": (int, 0, 0, 500, "random decisions a rollout plays before the evaluation scores it"),
        "follow": (int, 4, 0, 100, "own decisions after a new node finished by one-step lookahead before scoring"),
        "horizon": (int, 1, 0, 1, "1: judge a move by the player's next move when a later phase of the round gives one"),
        "samples": (int, 2, 1, 64, "determinizations each option is played on when the horizon reaches a later phase"),
        "learned": (int, 1, 0, 2, "the ruleset's learned evaluation (lfdsl train): 0 never, 1 without an `evaluate` block, 2 instead of it"),
        "prior": (int, 0, 0, 1000, "visits each option at the root starts with, of its greedy score (0: none)"),
    },
}
MAX_ERRORS = 20  # a specification read from a file may be long: its first mistakes are enough


def parse_agents(text: str, option: str = "--agents") -> list[AgentSpec]:
    """The agents of a specification, in order; raises AgentSpecError with the mistakes found (the
    first MAX_ERRORS of them)."""
    errors: list[Diagnostic] = []

    def err(start: int, end: int, message: str, hint: str | None = None):
        errors.append(Diagnostic(option, 1, start + 1, message, hint, text, 1, end + 1))

    groups: list[list] = []  # [name, name_start, [(key, value, start)], text_start, text_end]
    for m in re.finditer(r"[^,]+", text):
        if len(errors) >= MAX_ERRORS:
            break
        start, raw = m.start(), m.group()
        lead = len(raw) - len(raw.lstrip())
        piece, at = raw.strip(), start + lead
        if not piece:
            continue
        if "=" in piece and ":" not in piece:
            if not groups:
                err(at, at + len(piece), f"parameter `{piece}` comes before any agent",
                    "write the agent first: `mcts:iterations=400`")
                continue
            groups[-1][2].append((piece, at))
            groups[-1][4] = at + len(piece)
            continue
        if len(groups) == limits.MAX_PLAYERS:
            err(at, at + len(piece), f"a specification names at most {limits.MAX_PLAYERS} agents, "
                "one per seat", "give one agent for every seat")
            break
        name, _, first = piece.partition(":")
        groups.append([name.strip(), at, [], at, at + len(piece)])
        if first.strip():
            groups[-1][2].append((first.strip(), at + piece.index(":") + 1 + (len(first) - len(first.lstrip()))))
        elif ":" in piece:
            err(at, at + len(piece), f"`{piece}` has a colon but no parameter", "write `name:key=value` or just `name`")
    out = []
    for name, at, params, t0, t1 in groups:
        if name not in PARAMETERS:
            err(at, at + len(name), f"unknown agent `{name}`",
                suggest(name, sorted(PARAMETERS)) or f"agents: {', '.join(sorted(PARAMETERS))}")
            continue
        values = {}
        for piece, p_at in params:
            if len(errors) >= MAX_ERRORS:
                break
            _parameter(name, piece, p_at, values, err)
        out.append(AgentSpec(name, values, text[t0:t1]))
    if not groups and not errors:
        err(0, max(1, len(text)), "no agent given", f"agents: {', '.join(sorted(PARAMETERS))}")
    if errors:
        raise AgentSpecError(errors[:MAX_ERRORS])
    return out


def _parameter(name: str, piece: str, at: int, values: dict, err) -> None:
    """Read one `key=value` of agent `name` into `values`, or report through `err` why not; a value
    is reported at its own place in the text."""
    table = PARAMETERS[name]
    key, eq, value = piece.partition("=")
    if not eq or not key.strip():
        err(at, at + len(piece), f"`{piece}` is not a parameter", "write `key=value`")
        return
    if key.strip() not in table:
        key_at = at + len(key) - len(key.lstrip())
        err(key_at, key_at + len(key.strip()), f"agent `{name}` has no parameter `{key.strip()}`",
            suggest(key.strip(), sorted(table)) or f"its parameters: {', '.join(sorted(table)) or 'none'}")
        return
    value_at = at + len(key) + 1 + len(value) - len(value.lstrip())
    key, value = key.strip(), value.strip()
    kind, _, low, high, _ = table[key]
    shown = value if len(value) <= SHOWN_DIGITS else f"{value[:SHOWN_DIGITS]}... ({len(value)} characters)"
    here = (value_at, value_at + max(1, len(value)))
    number = _number(value, kind, high)
    if number is None:
        err(*here, f"`{key}` of `{name}` takes {'a whole number' if kind is int else 'a number'}, not `{shown}`")
    elif number < low:
        err(*here, f"`{key}` of `{name}` must be at least {low}, not {shown}")
    elif number > high:
        err(*here, f"`{key}` of `{name}` must be at most {_plain(high)}, not {shown}")
    elif key in values:
        err(at, at + len(piece), f"`{key}` is given twice to `{name}`")
    else:
        values[key] = number


SHOWN_DIGITS = 24  # a longer value is shown cut in a message (the source line shows it in full)


def _number(text: str, kind, high):
    """The value of `text` as `kind`, None if it is not one. A whole number with more digits than
    `high` is returned as infinity: converting thousands of digits costs time and Python refuses it."""
    if kind is int:
        if not re.fullmatch(r"[0-9]+", text):
            return None
        digits = text.lstrip("0") or "0"
        return float("inf") if len(digits) > len(str(high)) else int(digits)
    # Plain decimals only (no `inf`, `nan` or exponent); a float's parse is linear in its length.
    return float(text) if re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text) else None


def _plain(number) -> str:
    """A ceiling as written in the docs: `100,000`, `100`."""
    return f"{number:,}" if isinstance(number, int) else f"{number:g}"
