"""Trace sinks: JSON Lines for tools, readable text for people and snapshot tests."""
from __future__ import annotations

import json

from rulesdsl.errors import visible


class JsonLinesSink:
    """Writes one JSON object per event, keys in a fixed order."""

    def __init__(self, stream):
        self.stream = stream

    def __call__(self, event: dict):
        self.stream.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")


class ListSink:
    """Keeps events in memory."""

    def __init__(self):
        self.events: list[dict] = []

    def __call__(self, event: dict):
        self.events.append(event)


def _state_lines(data: dict) -> list[str]:
    out = []
    for name, cards in data["zones"].items():
        if cards:
            out.append(f"  {name}: {', '.join(cards)}")
    for name, value in data["counters"].items():
        out.append(f"  {name} = {json.dumps(value)}")
    for name, holder in data["markers"].items():
        out.append(f"  {name} held by {holder or 'nobody'}")
    for name, pos in data["tracks"].items():
        out.append(f"  {name}: " + ", ".join(f"{p} at {v}" for p, v in pos.items()))
    for name, cells in data["grids"].items():
        out.append(f"  {name}: " + ", ".join(f"{c} {n}" for c, n in cells.items()))
    return out


def render(event: dict, full_state: bool = True) -> list[str]:
    """Readable lines for one trace event."""
    e, d = event["event"], event["data"]
    who = f"{event['player']} " if event["player"] else ""
    if e == "state":
        head = [f"== round {event['round']} =="]
        return head + (_state_lines(d) if full_state else [])
    if e == "setup":
        return ["== setup =="]
    if e == "hand":
        return [f"==== hand {d['hand']} ===="]
    if e == "hand_end":
        return [f"==== end of hand {d['hand']}: {d['reason']} ===="]
    if e == "phase":
        return [f"-- phase {d['name']}"]
    if e == "turn":
        return [f"{event['player']}'s turn"]
    if e == "choice":
        others = [o for o in d["options"] if o != d["choice"]]
        alt = f"  (of {len(d['options'])}: {', '.join(d['options'])})" if others else ""
        if d["options"] == ["?"] and d["choice"] != "?":
            alt = "  (the options are not seen)"  # offered by an amount this player does not see
        unseen = ", unseen by the others" if d.get("together") else ""
        return [f"  {who}{d['prompt']}{unseen}: {d['choice']}{alt}"]
    if e == "pass":
        held = ", ".join(f"{p} {n}" for p, n in d["cards"].items())
        return [f"    every {d['zone']} passed to the {d['to']} player (now: {held})"]
    if e == "together":
        chosen = ", ".join(f"{p} {label}" for p, label in d["choices"].items())
        return [f"  together, {d['prompt']}: {chosen}"]
    if e == "move":
        under = "under " if d.get("bottom") else ""
        return [f"    {d['card']}: {d['from']} -> {under}{d['to']}"]
    if e == "reveal":
        return [f"    {d['card']} in {d['zone']} shown to {d['to']}"]
    if e == "face":
        return [f"    {d['card']} turned to its {d['face']}: {d['now']}"]
    if e == "place":
        return [f"    {d['card']} placed on {d['grid']} {d['cell']}"]
    if e == "fill":
        return [f"    {d['grid']} {d['line']} is full"]
    if e == "counter":
        return [f"    {who}{d['name']} = {d['value']} (was {d['was']})"]
    if e == "action":
        # A turn action is already shown by the choice that picked it.
        return [f"  {who}bonus action {d['name']}"] if d["bonus"] else []
    if e == "forfeit":
        kind = "bonus action" if d.get("bonus", True) else "action"
        return [f"  {who}{kind} {d['action']} forfeited: it cannot be performed"]
    if e == "no_action":
        return [f"  {who}no legal action left ({d['left']} unused)"]
    if e == "advance":
        jumped = f", jumping {', '.join(d['jumped'])}" if d["jumped"] else ""
        return [f"    {d.get('piece', who.strip())} on {d['track']}: {d['from']} -> {d['to']}{jumped}"]
    if e == "put":
        return [f"    {d['piece']} put on {d['track']} at {d['to']}"]
    if e == "blocked":
        return [f"    {d['card']} cannot enter {d['zone']} (limit {d['limit']})"]
    if e == "refill":
        return [f"    {d['zone']} refilled from {d['from']} ({d['cards']} cards)"]
    if e == "shuffle":
        return [f"    shuffle {d['zone']} ({d['cards']} cards)"]
    if e == "random":
        return [f"    chance: {d['index'] + 1} of {d['of']}"]
    if e == "marker":
        return [f"    {d['marker']} -> {d['to'] or 'nobody'}"]
    if e == "log":
        return [f"  {who}{d['text']}"]
    if e == "game_end":
        return ["== game over ==", *result_lines(d)]
    return [f"  {e}: {json.dumps(d)}"]


def result_lines(result: dict) -> list[str]:
    """The winners, the reason and every player's victory counts."""
    seats = result.get("seats", {})

    def who(p):
        return f"{p} ({seats[p]})" if p in seats else p
    winners = ", ".join(who(p) for p in result["winners"]) or "nobody"
    out = [f"winner{'s' if len(result['winners']) > 1 else ''}: {winners}"]
    if result.get("loser"):
        out.append(f"lost: {who(result['loser'])}")
    when = f"hand {result['hand']}, round {result['round']}" if result.get("hand") else f"round {result['round']}"
    out.append(f"reason: {result['reason']} ({when})")
    for p, counts in result["counts"].items():
        out.append(f"  {who(p)}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return out


class TextSink:
    """Renders events as they come, to a stream or a list of lines."""

    def __init__(self, write, full_state: bool = True):
        self.write = write
        self.full_state = full_state

    def __call__(self, event: dict):
        for line in render(event, self.full_state):
            self.write(visible(line))
