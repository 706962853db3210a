"""Agent specifications from the command line: `mcts:iterations=400,c=0.7,random`.

One agent per seat, separated by commas; an agent's parameters follow its name after a colon, also
separated by commas (a piece with `=` and no colon belongs to the agent before it). Every mistake is
an `AgentSpecError` positioned in the text of the option that gave it (`--agents`, `--bots`).
"""
from __future__ import annotations

import re

import attrs

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


# Each agent's parameters: name -> (type, default, lowest allowed, meaning[, highest allowed]).
PARAMETERS = {
    "first": {},
    "random": {},
    "human": {},  # a person at the table (`lfdsl play`); other commands refuse it
    "greedy": {
        "follow": (int, 4, 0, "own decisions after the option followed by the one-step rule before it is scored"),
    },
    "mcts": {
        "iterations": (int, 200, 1, "search iterations per decision"),
        "ms": (int, 0, 0, "milliseconds per decision instead of iterations (0: use iterations)"),
        "c": (float, 0.7, 0.0, "UCT exploration constant"),
        "depth": (int, 0, 0, "random decisions a rollout plays before the evaluation scores it"),
        "follow": (int, 4, 0, "own decisions after a new node finished by one-step lookahead before scoring"),
        "horizon": (int, 1, 0, "1: judge a move by the player's next move when a later phase of the round gives one",
                    1),
        "samples": (int, 2, 1, "determinizations each option is played on when the horizon reaches a later phase"),
    },
}


def parse_agents(text: str, option: str = "--agents") -> list[AgentSpec]:
    """The agents of a specification, in order; raises AgentSpecError with every mistake found."""
    errors: list[Diagnostic] = []

    def err(start: int, end: int, message: str, hint: str | None = None):
        errors.append(Diagnostic(option, 1, start + 1, message, hint, text, 1, end + 1))

    pieces = [(m.start(), m.group()) for m in re.finditer(r"[^,]+", text)]
    groups: list[list] = []  # [name, name_start, [(key, value, start)], text_start, text_end]
    for start, raw in pieces:
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
        table = PARAMETERS[name]
        values = {}
        for piece, p_at in params:
            key, eq, value = piece.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key:
                err(p_at, p_at + len(piece), f"`{piece}` is not a parameter", "write `key=value`")
                continue
            if key not in table:
                known = ", ".join(sorted(table)) or "none"
                err(p_at, p_at + len(key), f"agent `{name}` has no parameter `{key}`",
                    suggest(key, sorted(table)) or f"its parameters: {known}")
                continue
            kind, _, low, _ = table[key][:4]
            high = table[key][4] if len(table[key]) > 4 else None
            number = _number(value, kind)
            if number is None:
                err(p_at, p_at + len(piece), f"`{key}` of `{name}` takes {'a whole number' if kind is int else 'a number'}, "
                    f"not `{value}`")
            elif number < low:
                err(p_at, p_at + len(piece), f"`{key}` of `{name}` must be at least {low}, not {value}")
            elif high is not None and number > high:
                err(p_at, p_at + len(piece), f"`{key}` of `{name}` must be at most {high}, not {value}")
            elif key in values:
                err(p_at, p_at + len(piece), f"`{key}` is given twice to `{name}`")
            else:
                values[key] = number
        out.append(AgentSpec(name, values, text[t0:t1]))
    if not groups and not errors:
        err(0, max(1, len(text)), "no agent given", f"agents: {', '.join(sorted(PARAMETERS))}")
    if errors:
        raise AgentSpecError(errors)
    return out


def _number(text: str, kind):
    if kind is int:
        return int(text) if re.fullmatch(r"[0-9]+", text) else None
    if re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text):
        return float(text)
    return None
