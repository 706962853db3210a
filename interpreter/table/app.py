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
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from ..board import build
from ..board.model import Grid
from ..board.text import grid_lines, lines
from ..tools.plaintext import plain, visible
from ..tools.trace import render
from .session import Table

MAX_EVENT_LINES = 5000  # lines of events each person can scroll back through


def board_text(engine, st, seat: int, width: int = 80) -> str:
    """What seat `seat` (from 0) sees of the game, drawn from their view by the board model
    (interpreter/board): the board's text, lines of at most `width` characters where they wrap."""
    return "\n".join(lines(board_of(engine, st, seat), width))


def board_of(engine, st, seat: int):
    """The board of seat `seat`, its question's options named when the decision is theirs."""
    mine = not engine.is_over(st) and engine.current_player(st) == seat
    return build(engine, engine.view(st, seat), engine.options(st) if mine else None)


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


class Inspector(ModalScreen):
    """The cards on the board, each with its summary (the display's `card` lines), the one of the
    highlighted option first; Escape or `i` closes it."""

    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("i", "dismiss", "Close")]

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="inspector"):
            yield Static(plain(self.text))


class PlayApp(App):
    """The table: board (scrolls), events (scroll back through the whole game), the decision and
    its options."""

    CSS = """
    #boardbox { width: 2fr; border: round $accent; padding: 0 1; }
    #events { width: 1fr; border: round $secondary; }
    #ask { height: auto; }
    #prompt { height: auto; max-height: 12; padding: 0 1; }
    #options { height: auto; max-height: 8; }
    #cover { width: 100%; height: 100%; content-align: center middle; }
    #inspector { width: 90%; height: 90%; border: round $accent; padding: 0 1; background: $panel; }
    Inspector { align: center middle; }
    """
    BINDINGS = [Binding("s", "save", "Save"), Binding("u", "undo", "Undo"), Binding("h", "rule", "Rule"),
                Binding("i", "inspect", "Cards"), Binding("q", "quit_game", "Quit")]

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
        # The game played again from its start with the app's sink, so that the log has every event
        # from the set-up on, a resumed game's too.
        table.replay(list(table.history))

    def _keeper(self, seat):
        internal = self.table.engine.model.display.internal

        def keep(event):
            if event["event"] == "counter" and event["data"]["name"].split("[")[0] in internal:
                return  # a helper of the rules the display section leaves out
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
            with VerticalScroll(id="boardbox"):
                yield Static(id="board")
            yield RichLog(id="events", wrap=True, min_width=20)
        with Vertical(id="ask"):
            yield Static(id="prompt")
            yield OptionList(id="options")
        yield Footer()

    def on_mount(self):
        self.title = visible(self.table.engine.model.game.name)
        self.table.advance()
        self.redraw()
        self.call_after_refresh(self.redraw_sized)  # once the panels have their sizes

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
        board = self.board = board_of(t.engine, t.state, seat)
        self.redraw_board()
        self.redraw_log()
        options = self.query_one("#options", OptionList)
        options.clear_options()
        prompt = self.query_one("#prompt", Static)
        if t.over:
            r = t.state.result
            prompt.update(plain(f"Game over. Winners: {', '.join(r['winners']) or 'nobody'}. {r['reason']}. "
                                "Press q to leave."))
            return
        d = t.engine.decision(t.state)
        ask = [f"P{d.player + 1}, {d.prompt}:  (number, arrows and Enter, or type the start)"]
        for area in board.areas:  # the grid whose cells are offered, drawn with them, by the question
            for item in area.items:
                if isinstance(item, Grid) and item.offered:
                    ask += [line[2:] for line in grid_lines(item, max(30, self.size.width - 4))]
        prompt.update(plain("\n".join(ask)))
        if board.question is not None and len(board.question.choices) == len(d.options):
            shown = [c.text + (f"  ({c.detail.removeprefix(c.text + ': ')})" if c.detail and c.detail != c.text else "")
                     for c in board.question.choices]
        else:
            shown = list(d.options)
        options.add_options([Option(plain(f"{i + 1}. {label}")) for i, label in enumerate(shown)])
        options.highlighted = 0
        options.focus()

    def on_resize(self, event):
        self.call_after_refresh(self.redraw_sized)

    def redraw_sized(self):
        self.redraw_board()
        self.redraw_log()

    def redraw_board(self):
        """The board again, wrapped to the width its panel has now."""
        board = getattr(self, "board", None)
        panel = self.query_one("#board", Static)
        width = panel.content_size.width if panel.content_size.width > 10 else self.size.width * 2 // 3 - 8
        if board is not None:
            panel.update(plain("\n".join(lines(board, max(30, width)))))

    def redraw_log(self):
        """The events the person on the screen may read, wrapped to the log's width."""
        log = self.query_one("#events", RichLog)
        log.clear()
        for line in self.events[self.shown_seat if self.shown_seat is not None else self.seat()]:
            log.write(plain(line.strip()))

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
        if ch.isalpha() and ch not in "suhiq" or self.typed:
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

    def action_inspect(self):
        board = getattr(self, "board", None)
        if board is None:
            return
        out = []
        question = board.question
        index = self.query_one("#options", OptionList).highlighted
        if question is not None and index is not None and 0 <= index < len(question.choices):
            c = question.choices[index]
            out += [f"Option {c.number}: {c.text}", "  " + (c.detail or "(no card)"), ""]
        out.append("Cards on the board:")
        out += [f"  {summary}" for _, summary in board.cards]
        self.push_screen(Inspector("\n".join(out)))

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
