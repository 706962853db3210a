"""Command-line values: every number an option takes is read against its bounds, and a wrong value is
reported at its place, `--option:1:col: message` with the value as typed and a caret, like a `--set`
value (docs/language.md, "Limits").

The bounds here are the command line's own ceilings; the ruleset's (its player range) are checked
once it is loaded, and reported the same way.
"""
from __future__ import annotations

from rulesdsl.errors import Diagnostic, LanguageError
from rulesdsl.limits import MAX_DECISION_LIMIT, MAX_INT, MAX_PLAYERS, MIN_INT  # noqa: F401 (MIN_INT: the sweep names the range)
from rulesdsl.values import SHOWN, BoundError, in_int_range, shown, whole  # noqa: F401 (the options' readers)

MAX_SEED = MAX_INT            # seeds are 0 .. 2^63-1, every game's seed of a run included
MAX_GAMES = 100_000           # games one command plays (per side, per trial, per pair)
MAX_WORKERS = 256             # worker processes
MAX_TRIALS = 1_000            # settings `tune` tries
MAX_EVERY = MAX_DECISION_LIMIT  # `fit-eval --every`: no game has more decisions than this
MAX_VALUES = 100              # values of one `--sweep` or `--param`
MAX_BOTS = 16                 # bots of a tournament (every pair of them plays)



class OptionError(LanguageError):
    """A command-line value out of its bounds or of the wrong form, at its place."""

    step = "command line"


def at(option: str, text: str | None, message: str, hint: str | None = None, col: int = 1,
       end: int | None = None) -> OptionError:
    """An error at column `col` of the value `text` given to `option`, underlined to `end` (by default
    to the end of the value); `text` None for a value the command chose itself."""
    end = len(text or "") + 1 if end is None else end
    return OptionError([Diagnostic(option, 1, col, message, hint, text, 1, end)])


def number(option: str, lo: int, hi: int):
    """An argparse type for `option`: a whole number in lo..hi, or an `OptionError` at the value
    (raised through argparse, which turns only its own error types into its usage message)."""
    def read(text: str) -> int:
        try:
            return whole(text, lo, hi)
        except BoundError as exc:
            raise at(option, text, f"{option} {exc}") from None
    return read


PLAYERS = number("--players", 1, MAX_PLAYERS)
GAMES = number("--games", 1, MAX_GAMES)
SEED = number("--seed", 0, MAX_SEED)
SEED_B = number("--seed-b", 0, MAX_SEED)
WORKERS = number("--workers", 1, MAX_WORKERS)
TRIALS = number("--trials", 1, MAX_TRIALS)
EVERY = number("--every", 1, MAX_EVERY)
MAX_ITERATIONS = 50
ITERATIONS = number("--iterations", 1, MAX_ITERATIONS)
SEAT = number("--seat", 1, MAX_PLAYERS)
