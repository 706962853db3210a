"""Stepping through a trace: the move list of its choices, and the board before any of them, as a
player saw it (their view) or as the referee did (the whole state), with the curves of the game.

A trace is untrusted: it must lie under the studio's folder, and its files are checked as
`lfdsl replay` checks them (interpreter/tools/replay.py). The game is played again from the
trace's seed with its choices; a state is kept every `EVERY` decisions, so that a step plays at
most that many decisions again.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict

from rulesdsl.errors import LanguageError

from ..board import build
from ..board.model import Referee, option_name
from ..bots.evaluation import Evaluation
from ..engine import GameError
from ..tools.replay import moves
from .render import board_html, e
from .store import StudioError

EVERY = 25        # decisions between two kept states
KEPT_TRACES = 8   # traces kept open


class Trace:
    """A trace opened: its engine, players, seed and moves, and states kept on the way."""

    def __init__(self, path: str):
        try:
            self.engine, self.players, self.seed, self.moves = moves(path)
        except LanguageError as exc:
            d = exc.diagnostics[0]
            raise StudioError(f"{os.path.basename(path)}:{d.line}: {d.message}") from None
        self.lock = threading.Lock()
        self.kept = {}
        self.shown = []     # each move as people read it: a cell by the display's name for it
        self.points = []    # each seat's standing as each round began
        self.declared = {label: [] for label, _, _ in self.engine.display_scores}  # the score lines, likewise
        self._walk()

    def _walk(self):
        """Play the trace's game once: keep a state every EVERY decisions, name each move, and
        take the standings of every round (the bots' evaluation)."""
        engine = self.engine
        standing = Evaluation(engine).standings
        display = engine.model.display
        st = engine.new_game(self.players, self.seed)
        last_round = None
        for i, (who, prompt, label) in enumerate(self.moves):
            if i % EVERY == 0:
                self.kept[i] = engine.clone(st)
            if st.round != last_round:
                last_round = st.round
                try:
                    self.points.append([float(v) for v in standing(st)])
                    evaluate = engine.evaluator(st)
                    for score, var, fn in engine.display_scores:
                        self.declared[score].append([float(evaluate(fn, {var: p})) for p in range(self.players)])
                except GameError:
                    pass
            if engine.is_over(st) or label not in engine.legal(st):
                raise StudioError(f"decision {i + 1}: the trace's choice {label!r} is not an option of the game "
                                  "played again")
            option = next(o for o in engine.options(st) if o.label == label)
            self.shown.append((who, prompt, option_name(engine, display, option)))
            engine.apply(st, label)
        if len(self.moves) % EVERY == 0:
            self.kept[len(self.moves)] = engine.clone(st)

    def state_at(self, n: int):
        """The game just before decision `n` (from 0; n = the number of moves: after the last)."""
        if not 0 <= n <= len(self.moves):
            raise StudioError(f"the trace has decisions 0 to {len(self.moves)}")
        start = max(k for k in self.kept if k <= n)
        with self.lock:
            st = self.engine.clone(self.kept[start])
        for i in range(start, n):
            self.engine.apply(st, self.moves[i][2])
        return st

    def curves(self) -> str:
        """Each seat's standing (the bots' evaluation) and each of the display's score lines at the
        start of every round, an SVG each."""
        return _curves_svg(self.points, self.players, "standing (the bots' evaluation)") + "".join(
            _curves_svg(points, self.players, label) for label, points in self.declared.items())


_open: OrderedDict = OrderedDict()
_open_lock = threading.Lock()


def open_trace(root: str, name: str) -> Trace:
    """The trace `name` (under `root`), opened once while it does not change."""
    if not isinstance(name, str) or not name or "\x00" in name or len(name) > 400:
        raise StudioError("name a trace, a .jsonl file under the studio's folder")
    path = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([path, os.path.realpath(root)]) != os.path.realpath(root):
        raise StudioError("the studio opens only the traces under its own folder")
    if not os.path.isfile(path):
        raise StudioError("no such trace under the studio's folder")
    key = (path, os.path.getmtime(path), os.path.getsize(path))
    with _open_lock:
        if key in _open:
            _open.move_to_end(key)
            return _open[key]
    trace = Trace(path)
    with _open_lock:
        _open[key] = trace
        while len(_open) > KEPT_TRACES:
            _open.popitem(last=False)
    return trace


def step(root: str, name: str, n: int, seat: str):
    """(board, snapshot or None): the board before decision `n` as `seat` ("all" or a seat from 0
    as text) saw it; the snapshot for the referee."""
    t = open_trace(root, name)
    st = t.state_at(n)
    if seat == "all":
        snap = t.engine.snapshot(st)
        return build(t.engine, Referee(snap, st.round, st.phase, getattr(st, "hand", 0))), snap
    if not seat.isdigit() or not 0 <= int(seat) < t.players:
        raise StudioError(f"no seat {seat} in a game of {t.players}")
    return build(t.engine, t.engine.view(st, int(seat))), None


def step_html(root: str, name: str, n: int, seat: str) -> dict:
    board, snap = step(root, name, n, seat)
    t = open_trace(root, name)
    return {"n": n, "html": board_html(board, False), "snapshot": snap, "curves": t.curves()}


def _curves_svg(points: list, players: int, what: str, width: int = 300, height: int = 160) -> str:
    """`what` per round, a line per seat (a few polylines)."""
    if len(points) < 2:
        return ""
    lo = min(min(p) for p in points)
    hi = max(max(p) for p in points)
    span = (hi - lo) or 1.0
    colours = ["#1b6ca8", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50"]
    lines = []
    for s in range(players):
        pts = " ".join(f"{10 + i * (width - 20) / (len(points) - 1):.1f},"
                       f"{height - 20 - (p[s] - lo) / span * (height - 40):.1f}" for i, p in enumerate(points))
        lines.append(f'<polyline fill="none" stroke="{colours[s % 8]}" stroke-width="2" points="{pts}"/>'
                     f'<text x="{width - 40}" y="{14 + 12 * s}" fill="{colours[s % 8]}" font-size="11">P{s + 1}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{e(what)} per round"><text x="10" y="12" font-size="11">{e(what)} per round, '
            f'{lo:g} to {hi:g}</text>{"".join(lines)}</svg>')
