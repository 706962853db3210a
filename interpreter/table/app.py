"""`lfdsl play`: a game at the terminal, people against bots, on Textual.

The screen shows what the person to play may see and nothing else: it is drawn from their view
(`Engine.view`), zone by zone, a card they do not see as `?`. Beside it, the last events of the
game; below, the decision with its options, labelled in the ruleset's words. A choice is made with
the arrow keys and Enter, with the option's number, or by typing the start of its label. Keys: `s`
saves the game, `u` takes it back to your previous decision, `h` shows the rule being decided (its
source lines), `q` quits (saving first with `--save FILE`). With several people at one terminal
(hot seat), the board is covered between two people's turns until the next one presses Enter.

Everything the screen shows from the ruleset (names, prompts, labels, messages, source lines) and
from the command line (a file's path) goes to Textual as text, never as markup
(interpreter/tools/plaintext.py): a card named `[/]` or `[link=...]` reads as it is written.
"""
from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from ..core.place import place
from ..tools.plaintext import plain, visible
from ..tools.trace import render
from .session import Table

MAX_EVENT_LINES = 300


def board_text(engine, st, seat: int) -> str:
    """What seat `seat` (from 0) sees of the game, zone by zone: the board's text."""
    v = engine.view(st, seat)
    data = v.data
    hand = f"Hand {data['hand']}, round" if data.get("hand") else "Round"  # a game played in hands
    lines = [f"You are P{seat + 1}.  {hand} {data['round']}, phase {data['phase']}"]
    counters = {k: val for k, val in sorted(data["counters"].items()) if not isinstance(val, dict)}
    # A value this player does not see (a `private` or `hidden` counter) is none in the view: `?`.
    shared = [f"{k} {'?' if val is None else val}" for k, val in counters.items() if not isinstance(val, list)]
    if shared:
        lines.append("  " + ", ".join(shared))
    for p in range(st.player_count):
        own = [f"{k} {'?' if val[p] is None else val[p]}" for k, val in counters.items() if isinstance(val, list)]
        if own:
            lines.append(f"  P{p + 1}: " + ", ".join(own))
    # Cards in a card's slots are shown with that card: `Name (above: Other)`. A slot is keyed by the
    # handle of its card, the card's place in the view's order of zones, then grids, then slots.
    attached: dict[int, list[str]] = {}
    for key, cards in data["zones"].items():
        where = place(key)
        if where.host is not None and cards:
            attached.setdefault(where.host, []).append(f"{where.name}: " + ", ".join(c or "?" for c in cards))
    handles = {p.key: range(p.first, p.first + len(p.cards)) for p in engine.places(v) if p.kind != "grid"}

    def shown(key, cards):
        out = []
        for handle, name in zip(handles.get(key, ()), cards):
            text = name if name is not None else "?"
            if handle in attached:
                text += " (" + "; ".join(attached[handle]) + ")"
            out.append(text)
        return out
    for key, cards in sorted(data["zones"].items()):
        if cards is None:
            lines.append(f"{key}: ? cards")
            continue
        if not cards or place(key).host is not None:
            continue
        if all(c is None for c in cards):
            lines.append(f"{key}: {len(cards)} hidden")
        else:
            lines.append(f"{key}: " + ", ".join(shown(key, cards)))
    for key, cells in sorted(data["grids"].items()):
        if cells:
            lines.append(f"{key}: " + ", ".join(f"{cell} {name or '?'}" for cell, name in sorted(cells.items())))
    return "\n".join(lines)


def rule_text(engine, st) -> str:
    """The source lines of the rule that asks the pending decision."""
    if engine.current_player(st) is None:
        return "No decision is pending."
    span = engine.decision_span(st)
    if span is None or not span.line:
        return "This decision has no rule text."
    source = engine.source_of(span.path) or ""
    lines = source.splitlines()[span.line - 1:min(span.end_line or span.line, span.line + 19)]
    return f"{span.path}:{span.line}\n" + "\n".join(lines)


class Cover(ModalScreen):
    """Hides the board between two people's turns at one terminal."""

    BINDINGS = [Binding("enter", "dismiss", "Show my cards")]

    def __init__(self, seat: int):
        super().__init__()
        self.seat = seat

    def compose(self) -> ComposeResult:
        yield Static(plain(f"Pass the keyboard to P{self.seat + 1}, then press Enter."), id="cover")


class PlayApp(App):
    """The table: board, last events, the decision and its options."""

    CSS = """
    #board { width: 2fr; border: round $accent; padding: 0 1; }
    #events { width: 1fr; border: round $secondary; }
    #prompt { height: auto; padding: 0 1; }
    #options { height: 12; }
    #cover { width: 100%; height: 100%; content-align: center middle; }
    """
    BINDINGS = [Binding("s", "save", "Save"), Binding("u", "undo", "Undo"), Binding("h", "rule", "Rule"),
                Binding("q", "quit_game", "Quit")]

    def __init__(self, table: Table, save_path: str | None = None):
        super().__init__()
        self.table = table
        self.save_path = save_path or "lfdsl-save.json"
        self.failure: Exception | None = None  # what stopped the app, for the command to report
        # The last events as each person may read them: through their player's filter (view.py),
        # without the referee's full `state` snapshots.
        self.events: dict[int, list[str]] = {seat: [] for seat in table.humans}
        self.filters = {seat: table.engine.player_sink(seat, self._keeper(seat)) for seat in table.humans}
        self.shown_seat = None  # the person whose cards are on the screen
        self.typed = ""
        table.sink = self._event

    def _keeper(self, seat):
        def keep(event):
            if event["event"] != "state":
                lines = self.events[seat]
                lines.extend(render(event))
                del lines[:-MAX_EVENT_LINES]
        return keep

    def _event(self, event):
        for f in self.filters.values():
            f(event)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield Static(id="board")
            yield RichLog(id="events", wrap=True)
        with Vertical():
            yield Static(id="prompt")
            yield OptionList(id="options")
        yield Footer()

    def on_mount(self):
        self.title = visible(self.table.engine.model.game.name)
        self.table.advance()
        self.redraw()

    # ---- drawing --------------------------------------------------------------------------------
    def seat(self) -> int:
        """The person the screen is for: the one to play, or the last one who did."""
        now = self.table.seat_to_play
        if now is not None and now in self.table.humans:
            return now
        return self.shown_seat if self.shown_seat is not None else min(self.table.humans)

    def redraw(self):
        t = self.table
        seat = self.seat()
        if self.shown_seat is not None and seat != self.shown_seat and len(t.humans) > 1:
            self.push_screen(Cover(seat))
        self.shown_seat = seat
        self.query_one("#board", Static).update(plain(board_text(t.engine, t.state, seat)))
        log = self.query_one("#events", RichLog)
        log.clear()
        for line in self.events[seat][-40:]:
            log.write(plain(line.strip()))
        options = self.query_one("#options", OptionList)
        options.clear_options()
        prompt = self.query_one("#prompt", Static)
        if t.over:
            r = t.state.result
            prompt.update(plain(f"Game over. Winners: {', '.join(r['winners']) or 'nobody'}. {r['reason']}. "
                                "Press q to leave."))
            return
        d = t.engine.decision(t.state)
        prompt.update(plain(f"P{d.player + 1}, {d.prompt}:  (number, arrows and Enter, or type the start)"))
        options.add_options([Option(plain(f"{i + 1}. {label}")) for i, label in enumerate(d.options)])
        options.highlighted = 0
        options.focus()

    # ---- choosing -------------------------------------------------------------------------------
    def on_option_list_option_selected(self, message: OptionList.OptionSelected):
        self.pick(message.option_index)

    def pick(self, index: int):
        if self.table.over or self.table.seat_to_play not in self.table.humans:
            return
        if 0 <= index < self.table.engine.option_count(self.table.state):
            self.typed = ""
            self.table.choose(index)
            self.redraw()

    def on_key(self, event):
        if self.table.over or not event.character or not event.is_printable:
            return
        ch = event.character
        labels = self.table.engine.legal(self.table.state)
        if ch.isdigit() and ch != "0" and int(ch) <= len(labels) and not self.typed:
            event.stop()
            self.pick(int(ch) - 1)
            return
        if ch.isalpha() and ch not in "suhq" or self.typed:
            self.typed += ch.lower()
            match = next((i for i, label in enumerate(labels) if label.lower().startswith(self.typed)), None)
            if match is None:
                self.typed = ""
            else:
                self.query_one("#options", OptionList).highlighted = match
            event.stop()

    # ---- keys -----------------------------------------------------------------------------------
    def action_save(self):
        try:
            self.table.save(self.save_path)
        except OSError as exc:
            self.notify(visible(f"Cannot save to {self.save_path}: {exc.strerror or 'input/output error'}"),
                        severity="error", markup=False)
            return
        self.notify(visible(f"Saved to {self.save_path}"), markup=False)

    def action_undo(self):
        kept = {seat: list(lines) for seat, lines in self.events.items()}
        for lines in self.events.values():
            lines.clear()  # the game is played again from its start, and its events come again
        if self.table.undo():
            self.events[self.seat()].append("(taken back to your previous decision)")
            self.redraw()
        else:
            self.events.update(kept)
            self.notify("Nothing to take back", markup=False)

    def action_rule(self):
        self.notify(visible(rule_text(self.table.engine, self.table.state)), timeout=10, markup=False)

    def action_quit_game(self):
        self.exit(self.table)

    def _handle_exception(self, error: Exception) -> None:
        # Textual would print its own traceback on leaving and let the command end with code 0;
        # the command reports the failure instead (table/cli.py's cmd_play), as the other commands do. This
        # overrides a method Textual calls for any exception raised in the app.
        if self.failure is None:
            self.failure = error
        super()._handle_exception(error)
        self._exit_renderables.clear()
