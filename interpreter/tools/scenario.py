"""Rule scenarios: a starting situation, a sequence of choices, and expectations (docs/scenarios.md)."""
from __future__ import annotations

import re
from pathlib import Path

import attrs

from rulesdsl import ast as A
from rulesdsl.cards import read_toml
from rulesdsl.limits import MAX_INT, MIN_INT
from rulesdsl.checker import check_expression
from rulesdsl.errors import Diagnostic, LanguageError, player_range, suggest
from rulesdsl.parser import parse_expression
from rulesdsl.tomlpos import TomlMap

from ..engine import Engine, GameError, RuleError
from ..core.position import PositionError
from .trace import ListSink, render

# What each key of a scenario file holds: "text", "int", "bool", "value" (a parameter's: a whole
# number, true/false or a text), ("list", item), ("table", {key: kind}) with fixed keys,
# ("map", item) with any keys, and ("steps", {key: kind}) for the array of [[step]] tables.
_TEXTS = ("list", "text")
_STEP = {"note": "text", "prompt": "text", "player": "int", "options": _TEXTS, "legal": _TEXTS,
         "illegal": _TEXTS, "choose": "text", "expect": _TEXTS, "over": "bool", "winners": ("list", "int"),
         "reason": "text", "ranking": ("list", "int"), "scores": ("map", ("map", "int"))}
# The keys of a step that read the game's result, checked after its choice.
_RESULT_KEYS = ("winners", "reason", "ranking", "scores")
_START = {"phase": "text", "player": "int", "round": "int", "zones": ("map", _TEXTS),
          "counters": ("map", "int"), "markers": ("map", "int"), "tracks": ("map", ("map", "int")),
          "grids": ("map", ("map", "text"))}
_SCHEMA = ("table", {"title": "text", "source": "text", "players": "int", "seed": "int",
                     "params": ("map", "value"), "start": ("table", _START), "step": ("steps", _STEP)})
_KEYS = set(_SCHEMA[1])
_START_KEYS = set(_START)
_STEP_KEYS = set(_STEP)
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_WHAT = {"text": "a text in quotes", "int": "a whole number", "bool": "true or false",
         "value": "a whole number, true or false, or a text"}


@attrs.frozen
class Outcome:
    """One reported expectation."""

    ok: bool
    text: str


class ScenarioError(LanguageError):
    """The scenario file itself is wrong (unknown key, unknown card, bad expression...); each
    diagnostic is at the line and column of the scenario file where the mistake is written."""

    step = "scenario"


def show(value) -> str:
    """A value as a scenario writes it: texts in quotes, true/false, lists in brackets."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _dotted(path) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part + 1}]"
        else:
            out += ("." if out else "") + (part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else f'"{part}"')
    return out


def _check(value, kind, path, problems):
    """Append (place, path, message) for every value of the wrong type and every unknown key."""
    if isinstance(kind, str):
        ok = {"text": isinstance(value, str), "bool": isinstance(value, bool),
              "int": isinstance(value, int) and not isinstance(value, bool) and MIN_INT <= value <= MAX_INT,
              "value": isinstance(value, (int, str))}[kind]
        if not ok:
            problems.append(("value", path, f"`{_dotted(path)}` takes {_WHAT[kind]}, not {show(value)}"))
        return
    shape, inner = kind
    if shape == "list":
        if not isinstance(value, list):
            problems.append(("value", path, f"`{_dotted(path)}` takes a list in brackets, not {show(value)}"))
            return
        for i, item in enumerate(value):
            _check(item, inner, path + (i,), problems)
        return
    if shape == "steps":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            problems.append(("value", path, f"`{_dotted(path)}` takes [[step]] tables, not {show(value)}"))
            return
        for i, item in enumerate(value):
            _check(item, ("table", inner), path + (i,), problems)
        return
    if not isinstance(value, dict):
        problems.append(("value", path, f"`{_dotted(path)}` takes a table, not {show(value)}"))
        return
    for key, item in value.items():
        if shape == "map":
            _check(item, inner, path + (key,), problems)
        elif key not in inner:
            hint = suggest(key, inner)
            if path and isinstance(path[-1], int):
                where = f" in {_dotted(path[:-1])} {path[-1] + 1}"
            else:
                where = f" in [{_dotted(path)}]" if path else ""
            problems.append(("key", path + (key,), f"unknown key `{key}`{where}; allowed: {', '.join(sorted(inner))}"
                             + (f" ({hint})" if hint else "")))
        else:
            _check(item, inner[key], path + (key,), problems)


def read(path: str | Path) -> tuple[dict, TomlMap]:
    """A scenario file's data and the positions of its keys, every key and type checked; raises
    ScenarioError with all the problems found."""
    path = str(path)
    data, where = read_toml(path, ScenarioError, "scenario file not found")
    problems: list = []
    _check(data, _SCHEMA, (), problems)
    if isinstance(data.get("start"), dict) and "phase" not in data["start"]:
        problems.append(("header", ("start",), "`phase` is missing in [start]: name the phase the scenario starts in"))
    if problems:
        raise ScenarioError([_diag(path, where, place, p, msg) for place, p, msg in problems])
    return data, where


def load(path: str | Path) -> dict:
    """Read a scenario file and reject unknown keys and values of the wrong type."""
    return read(path)[0]


def _offset(text: str, line: int, col: int) -> int:
    """The 0-based offset of a 1-based line and column in `text`."""
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:max(line - 1, 0)]) + max(col - 1, 0)


def _diag(path, where: TomlMap, place: str, key_path, message, hint=None) -> Diagnostic:
    line, col = {"key": where.key, "value": where.value, "header": where.header}[place](key_path)
    return Diagnostic(str(path), line, col, message, hint, where.source_line(line))


class Runner:
    """Runs one scenario against an engine and collects outcomes."""

    def __init__(self, engine: Engine, path: str | Path):
        self.engine = engine
        self.path = Path(path)
        self.data, self.where = read(path)
        self.outcomes: list[Outcome] = []
        self.sink = ListSink()

    def error(self, key_path, message, hint=None, place="value") -> ScenarioError:
        """A ScenarioError at the place of `key_path` in the file."""
        return ScenarioError([_diag(self.path, self.where, place, tuple(key_path), message, hint)])

    def expect(self, ok: bool, text: str):
        self.outcomes.append(Outcome(bool(ok), text))

    def compile(self, text: str, key_path=()):
        """An expectation compiled against the engine's model; errors point into the file."""
        e = self.engine
        where = f"{self.path}: expect"
        try:
            node = parse_expression(text, where)
            _, types, bindings, decided = check_expression(e.model, node, where, text)
        except LanguageError as exc:
            diags = []
            for d in exc.diagnostics:
                if d.path != where:
                    diags.append(d)
                    continue
                offset = _offset(text, d.line, d.col)
                line, col = self.where.in_string(tuple(key_path), offset) if key_path else (0, 0)
                end_line = end_col = 0
                if key_path and d.end_line:
                    end_line, end_col = self.where.in_string(tuple(key_path), _offset(text, d.end_line, d.end_col))
                diags.append(Diagnostic(str(self.path), line, col, f"in `{text}`: {d.message}", d.hint,
                                        self.where.source_line(line), end_line, end_col))
            raise ScenarioError(diags) from None
        comp = e.expression_compiler(types, bindings, decided)
        if comp.chancy(node):
            raise self.error(key_path, f"`{text}` draws from the game's RNG; an expectation must not")
        return node, comp

    def evaluate(self, text: str, st, key_path=()):
        """The value of an expectation in state `st`."""
        node, comp = self.compile(text, key_path)
        return self._run(comp.expr(node), text, st, key_path)

    def _run(self, fn, text, st, key_path):
        try:
            return self.engine.evaluate(fn, st)
        except RuleError as exc:
            raise self.error(key_path, f"cannot evaluate `{text}`: {exc.message}") from None
        except (TypeError, KeyError, IndexError, ValueError, AttributeError):
            raise self.error(key_path, f"cannot evaluate `{text}` in this state") from None

    def judge(self, text: str, st, key_path=()) -> tuple[bool, str]:
        """Whether an expectation holds, and, when it does not, what each side of its comparison is."""
        node, comp = self.compile(text, key_path)
        value = self._run(comp.expr(node), text, st, key_path)
        if value is True:
            return True, ""
        if isinstance(node, A.Binary) and node.op in _COMPARISONS:
            left = self._run(comp.expr(node.left), text, st, key_path)
            right = self._run(comp.expr(node.right), text, st, key_path)
            return False, f": left side is {show(left)}, right side is {show(right)}"
        return False, (" (is false)" if value is False else f" (is {show(value)}, not true)")

    def run(self) -> list[Outcome]:
        d = self.data
        e = self.engine
        g = e.model.game
        players = d.get("players", g.default_players)
        if not g.min_players <= players <= g.max_players:
            raise self.error(("players",), f"{g.name} is played by {player_range(g.min_players, g.max_players)}, "
                             f"not {players}")
        self.check_seats(players)
        seed = d.get("seed", 0)
        start = d.get("start")
        if start is None:
            st = e.new_game(players, seed, sink=self.sink)
        else:
            st = e.new_game(players, seed, sink=self.sink, setup_only=True)
            if e.current_player(st) is not None:
                raise self.error(("start",), "the set-up asks for a decision, so a scenario cannot start from "
                                 "[start]; leave [start] out and make the set-up choices as steps", place="header")
            names = [ph.name for ph in e.model.round.phases]
            if start["phase"] not in names:
                raise self.error(("start", "phase"), f"no phase `{start['phase']}`; phases: {', '.join(names)}",
                                 suggest(start["phase"], names))
            first = start.get("player")
            if first is not None and not 1 <= first <= players:
                raise self.error(("start", "player"), f"seat {first} does not exist: seats are 1 to {players}")
            if start.get("round", 1) < 1:
                raise self.error(("start", "round"), "rounds are numbered from 1")
            self.arrange(st, start)
            e.start_at(st, start["phase"], None if first is None else first - 1,
                       start.get("round", 1), sink=self.sink)
        self.state = st  # the game as the scenario left it
        for i, step in enumerate(d.get("step", []), 1):
            self.step(st, i, step)
        return self.outcomes

    def step(self, st, i, step):
        e = self.engine
        tag = f"step {i}" + (f" ({step['note']})" if "note" in step else "")
        options = e.legal(st)
        d = e.decision(st)
        if "prompt" in step:
            got = f"`{d.prompt}`" if d else self._no_decision(st)
            self.expect(d is not None and d.prompt == step["prompt"], f"{tag}: decision is `{step['prompt']}` (got {got})")
        if "player" in step:
            got = f"P{d.player + 1}" if d else self._no_decision(st)
            self.expect(d is not None and d.player + 1 == step["player"], f"{tag}: P{step['player']} decides (got {got})")
        if "options" in step:
            self.expect(options == step["options"], f"{tag}: options are {step['options']} (got {options})")
        for opt in step.get("legal", []):
            self.expect(opt in options, f"{tag}: `{opt}` is legal (options: {options})")
        for opt in step.get("illegal", []):
            self.expect(opt not in options, f"{tag}: `{opt}` is illegal (options: {options})")
        if "choose" in step:
            if step["choose"] not in options:
                self.expect(False, f"{tag}: choose `{step['choose']}`, which is not legal (options: {options})")
                raise _Stop()
            try:
                e.apply(st, step["choose"], self.sink)
            except GameError as exc:
                self.expect(False, f"{tag}: the game failed: {exc}")
                raise _Stop() from None
        for j, text in enumerate(step.get("expect", [])):
            ok, detail = self.judge(text, st, ("step", i - 1, "expect", j))
            self.expect(ok, f"{tag}: {text}{detail}")
        self.result(st, i, step, tag)

    # ---- the game's result ----------------------------------------------------------------------
    @staticmethod
    def _no_decision(st) -> str:
        return "no decision: the game is over" if st.result is not None else "no decision"

    def check_seats(self, players: int):
        """Every seat and victory count the steps name (`player`, `winners`, `ranking`, `scores`)
        exists, checked before the game starts; raises ScenarioError with every one that does not."""
        problems = []

        def seat_ok(seat, at, place="value"):
            if not 1 <= seat <= players:
                problems.append((place, at, f"seat {seat} does not exist: seats are 1 to {players}", None))
        victory = self.engine.model.victory
        counts = sorted(s.name for s in victory.scores) if victory is not None else []
        for i, step in enumerate(self.data.get("step", [])):
            at = ("step", i)
            if "player" in step:
                seat_ok(step["player"], at + ("player",))
            for key in ("winners", "ranking"):
                for k, seat in enumerate(step.get(key, [])):
                    seat_ok(seat, at + (key, k))
            for seat, wanted in step.get("scores", {}).items():
                m = re.fullmatch(r"P([0-9]+)", seat)
                if not m:
                    problems.append(("key", at + ("scores", seat), f"`{seat}` is not a seat: write P1, P2, ...", None))
                    continue
                seat_ok(int(m.group(1)), at + ("scores", seat), "key")
                for name in wanted:
                    if name not in counts:
                        known = ", ".join(counts) or "none: the ruleset has no victory block"
                        problems.append(("key", at + ("scores", seat, name),
                                         f"no victory count `{name}`; counts: {known}", suggest(name, counts)))
        if problems:
            raise ScenarioError([_diag(self.path, self.where, place, p, msg, hint) for place, p, msg, hint in problems])

    def result(self, st, i, step, tag):
        """The step's `over`, `winners`, `reason`, `ranking` and `scores`, against the game's result
        once the step's choice is made (docs/scenarios.md, "The result")."""
        res = st.result
        if "over" in step:
            if step["over"]:
                self.expect(res is not None, f"{tag}: the game is over" + (
                    "" if res is not None else f" (it is not: {self._waiting(st)})"))
            else:
                self.expect(res is None, f"{tag}: the game is not over" + (
                    "" if res is None else f" (it ended: {res['reason']})"))
        asked = [key for key in _RESULT_KEYS if key in step]
        if asked and res is None:
            for key in asked:
                self.expect(False, f"{tag}: {key}: the game is not over ({self._waiting(st)})")
            return
        if "winners" in step:
            got = sorted(int(w[1:]) for w in res["winners"])
            self.expect(got == sorted(step["winners"]), f"{tag}: winners are {_players(sorted(step['winners']))}"
                        f" (got {_players(got)}; reason: {res['reason']})")
        if "reason" in step:
            self.expect(res["reason"] == step["reason"], f"{tag}: the game ended because \"{step['reason']}\""
                        f" (got \"{res['reason']}\")")
        if "ranking" in step:
            rank = res["rank"]
            got = sorted((int(k[1:]) for k in rank), key=lambda seat: (-rank[f"P{seat}"], seat))
            shown = ", ".join(f"P{seat} ({show(rank[f'P{seat}'])})" for seat in got) or "empty"
            wanted = _players(step["ranking"]) if step["ranking"] else "empty"
            self.expect(got == step["ranking"], f"{tag}: ranking is {wanted} (got {shown})")
        for seat, wanted in step.get("scores", {}).items():
            have = res["counts"].get(seat, {})
            for name, value in wanted.items():
                self.expect(have.get(name) == value, f"{tag}: {seat} scores {name} = {value} (got {show(have.get(name))})")

    def _waiting(self, st) -> str:
        d = self.engine.decision(st)
        return f"P{d.player + 1} decides `{d.prompt}`" if d is not None else "no decision is waiting"

    # ---- arranging a starting situation ---------------------------------------------------------
    def arrange(self, st, start):
        """The [start] table, through the engine's public arrangement API (position.py)."""
        pos = self.engine.arrange(st)

        def doing(at, action, *args):
            try:
                action(*args)
            except PositionError as exc:
                where = at + (exc.index,) if getattr(exc, "index", None) is not None else at
                raise self.error(where, exc.message, exc.hint, exc.place) from None
        zones = start.get("zones", {})
        # A card's slot (`P1.row[2].above`) is arranged after the zone holding its card.
        for key, names in sorted(zones.items(), key=lambda kv: kv[0].count("[")):
            doing(("start", "zones", key), pos.fill_zone, key, names)
        for key, cells in start.get("grids", {}).items():
            at = ("start", "grids", key)
            if key not in st.grids:  # reported before any cell label is read
                doing(at, pos.fill_cell, key, 1, 1, "")
            for label, name in cells.items():
                m = re.fullmatch(r"\(([0-9]+),[ \t]*([0-9]+)\)", label)
                if not m:
                    raise self.error(at + (label,), f"grid cell `{label}` is not written (column,row)",
                                     place="key")
                doing(at + (label,), pos.fill_cell, key, int(m.group(1)), int(m.group(2)), name)
        for key, value in start.get("counters", {}).items():
            doing(("start", "counters", key), pos.set_counter, key, value)
        for name, seat in start.get("markers", {}).items():
            doing(("start", "markers", name), pos.give_marker, name, seat)
        for name, places in start.get("tracks", {}).items():
            at = ("start", "tracks", name)
            if name not in st.tracks:
                doing(at, pos.put_piece, name, "", 0)
            for p, space in places.items():
                doing(at + (p,), pos.put_piece, name, p, space)

    def log(self) -> list[str]:
        """The readable trace of what the scenario played."""
        out = []
        for ev in self.sink.events:
            out.extend(render(ev, full_state=False))
        return out


class _Stop(Exception):
    pass


def _players(seats) -> str:
    """Seats as a scenario's messages name them: `P1, P3`, or `nobody`."""
    return ", ".join(f"P{seat}" for seat in seats) or "nobody"


def run_scenario(engine: Engine, path) -> tuple[list[Outcome], Runner]:
    """Run one scenario; a failed choice ends it early with a failed outcome. A scenario's
    `params` table sets ruleset parameters for it (as `--set` does); a wrong one is reported at
    its line in the file."""
    data, where = read(path)
    params = data.get("params")
    if params:
        from ..compile.params import ParamError, ParamValue
        given = {}
        for k, v in params.items():
            line, col = where.value(("params", k))
            key_line, key_col = where.key(("params", k))
            given[k] = ParamValue(v, str(path), line, col, where.source_line(line), key_line, key_col, True)
        try:
            engine = engine.with_params(given)
        except ParamError as exc:
            raise ScenarioError(exc.diagnostics) from None
    runner = Runner(engine, path)
    try:
        runner.run()
    except _Stop:
        pass
    return runner.outcomes, runner
