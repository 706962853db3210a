"""Rule scenarios: a starting situation, a sequence of choices, and expectations (docs/scenarios.md)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import attrs

from rulesdsl.checker import check_expression
from rulesdsl.errors import LanguageError
from rulesdsl.parser import parse_expression

from .compiler import Compiler, RuleError
from .engine import Engine, GameError
from .trace import ListSink, render

SET_ASIDE = "set_aside"
_KEYS = {"title", "source", "players", "seed", "params", "start", "step"}
_START_KEYS = {"phase", "player", "round", "zones", "counters", "markers", "tracks", "grids"}
_STEP_KEYS = {"note", "prompt", "player", "options", "legal", "illegal", "choose", "expect"}


@attrs.frozen
class Outcome:
    """One reported expectation."""

    ok: bool
    text: str


class ScenarioError(Exception):
    """The scenario file itself is wrong (unknown key, unknown card, bad expression...)."""


def load(path: str | Path) -> dict:
    """Read a scenario file and reject unknown keys."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    _only(data, _KEYS, str(path))
    _only(data.get("start", {}), _START_KEYS, f"{path} [start]")
    if "start" in data and "phase" not in data["start"]:
        raise ScenarioError(f"{path} [start]: `phase` is missing: name the phase the scenario starts in")
    for i, step in enumerate(data.get("step", []), 1):
        _only(step, _STEP_KEYS, f"{path} step {i}")
    return data


def _only(table, allowed, where):
    extra = sorted(set(table) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}")


class Runner:
    """Runs one scenario against an engine and collects outcomes."""

    def __init__(self, engine: Engine, path: str | Path):
        self.engine = engine
        self.path = Path(path)
        self.data = load(path)
        self.outcomes: list[Outcome] = []
        self.sink = ListSink()

    def expect(self, ok: bool, text: str):
        self.outcomes.append(Outcome(bool(ok), text))

    def evaluate(self, text: str, st):
        e = self.engine
        try:
            where = f"{self.path}: expect"
            node = parse_expression(text, where)
            _, types, calls = check_expression(e.model, node, where, text)
        except LanguageError as exc:
            raise ScenarioError(exc.render()) from None
        comp = Compiler(attrs.evolve(e.model, types=types, calls=calls), e.params)
        comp.m_player_keys = e._player_keys
        comp.funcs = {}  # compiled again with the expectation's argument types
        if comp.chancy(node):
            raise ScenarioError(f"{self.path}: `{text}` draws from the game's RNG; an expectation must not")
        fn = comp.expr(node)
        e.st = st
        try:
            return fn(e, {})
        except (RuleError, TypeError, KeyError, IndexError) as exc:
            raise ScenarioError(f"{self.path}: cannot evaluate `{text}`: {exc}") from None

    def run(self) -> list[Outcome]:
        d = self.data
        e = self.engine
        players = d.get("players", e.model.game.default_players)
        seed = d.get("seed", 0)
        start = d.get("start")
        if start is None:
            st = e.new_game(players, seed, sink=self.sink)
        else:
            st = e.new_game(players, seed, sink=self.sink, setup_only=True)
            if st.pending is not None:
                raise ScenarioError(f"{self.path}: the set-up asks for a decision, so a scenario cannot "
                                    "start from [start]; leave [start] out and make the set-up choices as steps")
            self.arrange(st, start)
            first = start.get("player")
            e.start_at(st, start["phase"], None if first is None else first - 1,
                       start.get("round", 1), sink=self.sink)
        for i, step in enumerate(d.get("step", []), 1):
            self.step(st, i, step)
        return self.outcomes

    def step(self, st, i, step):
        e = self.engine
        tag = f"step {i}" + (f" ({step['note']})" if "note" in step else "")
        options = e.legal(st)
        if "prompt" in step:
            got = st.pending["prompt"] if st.pending else None
            self.expect(got == step["prompt"], f"{tag}: decision is `{step['prompt']}` (got `{got}`)")
        if "player" in step:
            got = st.pending["player"] + 1 if st.pending else None
            self.expect(got == step["player"], f"{tag}: P{step['player']} decides (got P{got})")
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
        for text in step.get("expect", []):
            value = self.evaluate(text, st)
            self.expect(value is True, f"{tag}: {text}" + ("" if value is True else f" (got {value!r})"))

    # ---- arranging a starting situation ---------------------------------------------------------
    def arrange(self, st, start):
        e = self.engine
        st.zones.setdefault(SET_ASIDE, [])
        claimed: set[int] = set()
        by_name: dict[str, list[int]] = {}
        for d in e.cards.defs:
            by_name.setdefault(d.name, []).append(d.index)
        for key, names in start.get("zones", {}).items():
            if key not in st.zones:
                raise ScenarioError(f"{self.path}: no zone `{key}`; zones: {', '.join(sorted(st.zones))}")
            for c in list(st.zones[key]):
                self._relocate(st, c, SET_ASIDE)
            for name in names:
                c = self._find(st, name, key, claimed, by_name)
                self._relocate(st, c, key)
        for key, cells in start.get("grids", {}).items():
            if key not in st.grids:
                raise ScenarioError(f"{self.path}: no grid `{key}`")
            gname = key.split(".")[-1]
            meta = e.grid_meta[gname]
            for label, name in cells.items():
                m = re.fullmatch(r"\((\d+),\s*(\d+)\)", label)
                if not m:
                    raise ScenarioError(f"{self.path}: grid cell `{label}` is not written (x,y)")
                x, y = int(m.group(1)), int(m.group(2))
                idx = (y - 1) * meta.width + (x - 1)
                old = st.grids[key].get(idx)
                if old is not None:
                    self._relocate(st, old, SET_ASIDE)
                c = self._find(st, name, key, claimed, by_name)
                self._detach(st, c)
                st.grids[key][idx] = c
                st.loc[c] = key
        for key, value in start.get("counters", {}).items():
            self._set_counter(st, key, value)
        for name, seat in start.get("markers", {}).items():
            if name not in st.markers:
                raise ScenarioError(f"{self.path}: no marker `{name}`")
            st.markers[name] = seat - 1
        for name, places in start.get("tracks", {}).items():
            if name not in st.tracks:
                raise ScenarioError(f"{self.path}: no track `{name}`")
            for p, pos in places.items():
                if p not in st.tracks[name]:
                    raise ScenarioError(f"{self.path}: no piece `{p}` on track `{name}`")
                st.tracks[name][p] = pos

    def _find(self, st, name, key, claimed, by_name):
        if name not in by_name:
            from rulesdsl.errors import suggest
            hint = suggest(name, by_name)
            raise ScenarioError(f"{self.path}: no card named `{name}`" + (f"; {hint}" if hint else ""))
        defs = set(by_name[name])
        owner = key.split(".")[0] + "." if "." in key else None

        def rank(c):
            loc = st.loc[c]
            if loc == SET_ASIDE:
                return 0
            if owner and loc.startswith(owner):
                return 1
            if "." not in loc:
                return 2
            return 3
        candidates = [c for c in range(len(st.card_def)) if st.card_def[c] in defs and c not in claimed]
        if not candidates:
            c = self.engine.create(sorted(defs)[0], SET_ASIDE)
        else:
            c = min(candidates, key=lambda c: (rank(c), c))
        claimed.add(c)
        return c

    def _detach(self, st, c):
        loc = st.loc[c]
        if loc in st.zones:
            st.zones[loc].remove(c)
        else:
            cells = st.grids[loc]
            for i, held in list(cells.items()):
                if held == c:
                    del cells[i]

    def _relocate(self, st, c, key):
        self._detach(st, c)
        st.zones[key].append(c)
        st.loc[c] = key

    def _set_counter(self, st, key, value):
        m = re.fullmatch(r"(?:P(\d+)\.)?(\w+)(?:\[(\w+)\])?", key)
        if not m or m.group(2) not in st.counters:
            raise ScenarioError(f"{self.path}: no counter `{key}`")
        seat, name, sub = m.groups()
        if seat is not None:
            table = st.counters[name]
            if sub is not None:
                table[int(seat) - 1][sub] = value
            else:
                table[int(seat) - 1] = value
        elif sub is not None:
            st.counters[name][sub] = value
        else:
            st.counters[name] = value

    def log(self) -> list[str]:
        """The readable trace of what the scenario played."""
        out = []
        for ev in self.sink.events:
            out.extend(render(ev, full_state=False))
        return out


class _Stop(Exception):
    pass


def run_scenario(engine: Engine, path) -> tuple[list[Outcome], Runner]:
    """Run one scenario; a failed choice ends it early with a failed outcome. A scenario's
    `params` table sets ruleset parameters for it (as `--set` does)."""
    params = load(path).get("params")
    if params:
        from .engine import ParamError
        try:
            engine = Engine(engine.model, engine.cards, {k: str(v).lower() if isinstance(v, bool) else str(v)
                                                         for k, v in params.items()})
        except ParamError as exc:
            raise ScenarioError(exc.render()) from None
    runner = Runner(engine, path)
    try:
        runner.run()
    except _Stop:
        pass
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
        raise ScenarioError(f"{path}: this scenario does not fit the ruleset or the format "
                            f"({type(exc).__name__}: {exc}); see docs/scenarios.md") from None
    return runner.outcomes, runner
