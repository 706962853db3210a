"""Text from files and the command line shown on a terminal as the characters it holds.

Rich and Textual read a plain string as markup: `[bold]` changes the style, `[link=URL]` writes a
terminal hyperlink, `[@click=app.quit]` binds an action, and an unmatched `[/]` is an error that
stops the program. A ruleset's names, prompts and messages, a file's path, a value typed on the
command line are data: they reach Rich and Textual only as `rich.text.Text` (which is never read as
markup) or through `PlainConsole` (which reads no markup in any string it prints), and their control
characters are written as escapes (`\\x1b`), so that no terminal sequence hidden in a card's name
reaches the terminal. Only the lab and the table import this module (Rich is in both extras).
"""
from __future__ import annotations

from rich.console import Console
from rich.text import Text

from rulesdsl.errors import visible


def plain(text, style: str = "") -> Text:
    """`text` as a Rich `Text`: shown as written, never read as markup."""
    return Text(visible(text), style=style)


class PlainConsole(Console):
    """A Rich console that shows every string it prints, a table's cells and titles included, as
    the characters it holds: no markup, no emoji codes, no highlighting, controls as escapes."""

    def __init__(self, stderr: bool = False):
        super().__init__(stderr=stderr, markup=False, emoji=False, highlight=False)

    def render_str(self, text: str, **options) -> Text:
        """The string as a `Text`, whatever the options ask of markup, emoji or highlighting."""
        options.update(markup=False, emoji=False, highlight=False)
        return super().render_str(visible(text), **options)
