"""What a person sees of a simulation: a live progress bar (games done, games per second, time
left) and the summary tables, drawn with Rich. A ruleset's words fill their cells as plain strings:
print them with `console()`, which reads no markup in them (interpreter/tools/plaintext.py)."""
from __future__ import annotations

import os

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ..tools.plaintext import PlainConsole, plain
from .figures import unfinished


class _Rate(ProgressColumn):
    """Games per second since the start."""

    def render(self, task) -> Text:
        rate = task.completed / task.elapsed if task.elapsed else 0.0
        return Text(f"{rate:.1f} games/s" if task.completed else "", style="progress.data.speed")


class _Label(ProgressColumn):
    """The run's label (a parameter's value as typed, a side's name), as text."""

    def render(self, task) -> Text:
        return plain(task.description)


PIPE_WIDTH = 200  # columns of the tables written to a pipe or a file (a terminal gives its own width)


def console(stderr: bool = False) -> Console:
    """The console the lab prints on: strings are shown as text, never as markup. Written to a pipe
    or a file (and `COLUMNS` unset), its tables are as wide as they need up to `PIPE_WIDTH`
    columns, not cut to the 80 columns Rich assumes without a terminal."""
    c = PlainConsole(stderr=stderr)
    if not c.is_terminal and "COLUMNS" not in os.environ:
        c.width = PIPE_WIDTH
    return c


def progress(console: Console) -> Progress:
    """A progress display for a run of games (shown only on a terminal)."""
    return Progress(_Label(), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                    _Rate(), TextColumn("left"), TimeRemainingColumn(), console=console, transient=True,
                    disable=not console.is_terminal)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def _num(x) -> str:
    return "-" if x is None else (f"{x:g}" if isinstance(x, float) else str(x))


def _table(title: str) -> Table:
    """A table under its title, at least as wide as the title (Rich wraps a title to its table)."""
    return Table(title=title, title_justify="left", min_width=len(title))


def tables(figures: dict, title: str, top: int = 12, agents: str | None = None) -> list:
    """The summary as Rich renderables: games, seats, length, end reasons, how the game plays
    (lab/quality.py), options and cards; the games that did not finish, with the command that
    replays one (`agents`: those that played them)."""
    out = []
    games = _table(title)
    counts = {"games": "games", "finished": "finished", "stopped_by_limit": "stopped by a limit",
              "errors": "stopped by an error", "lost": "lost with the cluster", "ties": "ties", "no_winner": "no winner"}
    if not figures["lost"]:
        del counts["lost"]
    for col in counts.values():
        games.add_column(col, justify="right")
    games.add_row(*(str(figures[k]) for k in counts))
    out.append(games)
    seats = _table("Win rate per seat (95% Wilson interval, statsmodels)")
    for col in ("seat", "wins", "win rate", "95% interval"):
        seats.add_column(col, justify="right")
    for s in figures["seats"]:
        lo, hi = s["ci95"]
        seats.add_row(s["seat"], str(s["wins"]), _pct(s["win_rate"]), f"[{lo:.1%}, {hi:.1%}]")
    out.append(seats)
    if figures["ties"]:
        out.append(shared_note(figures["ties"]))
    length = _table("Length of the finished games")
    for col in ("", "mean", "median", "10th pct", "90th pct"):
        length.add_column(col, justify="right")
    for key in ("rounds", "decisions"):
        f = figures[key]
        length.add_row(key, *(_num(f[k]) for k in ("mean", "median", "p10", "p90")))
    out.append(length)
    if figures["end_reasons"]:
        ends = _table("How the games ended")
        ends.add_column("reason")
        ends.add_column("games", justify="right")
        ends.add_column("share", justify="right")
        for reason, n in figures["end_reasons"].items():
            ends.add_row(reason, str(n), _pct(n / figures["finished"]))
        out.append(ends)
    if "quality" in figures:
        out += quality(figures["quality"])
    for key, title, cols in (("options", "Named options (actions and choices)", ("offered", "chosen")),
                             ("cards", "Cards", ("offered", "chosen", "bought"))):
        rows = figures[key]
        if not rows:
            continue
        t = _table(f"{title}: the {min(top, len(rows))} most offered of {len(rows)}")
        t.add_column("name")
        for c in cols:
            t.add_column(c, justify="right")
        t.add_column("chosen when offered", justify="right")
        for label, row in sorted(rows.items(), key=lambda kv: (-kv[1]["offered"], kv[0]))[:top]:
            t.add_row(label, *(str(row[c]) for c in cols), _pct(row["chosen_when_offered"]))
        out.append(t)
    if figures["failed_seeds"]:
        again = f"lfdsl run --seed N --agents {agents}" if agents else "lfdsl run --seed N"
        failed = _table(f"Games that did not finish (replay one with `{again}`)")
        failed.add_column("seeds" if figures["lost"] else "seed", justify="right")
        failed.add_column("stopped by")
        failed.add_column("message")
        for seeds, status, message in unfinished(figures["failed_seeds"]):
            failed.add_row(seeds, STOPPED_BY[status], message)
        out.append(failed)
    return out


STOPPED_BY = {"limit": "a limit", "error": "an error", "lost": "lost with the cluster"}


def _ci(row: dict, key: str, share: bool) -> tuple[str, str]:
    """A measure's value and its interval as shown."""
    v, ci = row.get(key), row.get("ci95")
    if v is None:
        return "-", "-"
    if share:
        return f"{v:+.1%}" if key == "value" else f"{v:.1%}", "-" if ci is None else (
            f"[{ci[0]:+.1%}, {ci[1]:+.1%}]" if key == "value" else f"[{ci[0]:.1%}, {ci[1]:.1%}]")
    return f"{v:.2f}", "-" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def quality_rows(q: dict) -> list[tuple[str, str, str, str]]:
    """How the game plays (lab/quality.py) as rows: measure, value, 95% interval, games measured."""
    d = q["decisiveness"]
    rows = [("first-player advantage (P1's win rate - fair share)", q["first_player_advantage"] or {"n": "-"}, "value",
             True),
            ("drawishness (games with no single winner)", q["drawishness"], "share", True),
            ("stalls (games stopped by a limit)", q["stalls"], "share", True),
            ("lead changes per game", q["lead_changes"], "mean", False),
            ("decisiveness: round the winner took its lasting lead", d["round"], "mean", False),
            ("decisiveness: share of the game played before it", d["share_of_game"], "mean", True),
            ("drama: share of rounds the winner did not lead", q["drama"], "mean", True)]
    out = [(name, *_ci(row, key, share), str(row.get("n", 0))) for name, row, key, share in rows]
    s = q.get("skill_spread")
    if s is not None:
        out.append((f"skill spread ({s['strong']} against {s['weak']}: win rate - 1/2)", *_ci(s, "value", True),
                    str(s["games"])))
    return out


def changed_worth(changed: list[str], worth: dict, names: tuple) -> Table:
    """The restricted-play worth (lab/value.py) of the cards two compared sides define otherwise:
    the drop of a seat's win rate when it never takes the card, on each side, with its interval."""
    t = _table("Worth of the changed cards: the drop of a seat's win rate when it never takes the card "
               "(restricted play; Agresti-Min interval)")
    t.add_column("card", justify="left")
    for name in names:
        t.add_column(f"{name}: drop [95%]", justify="right")
    for card in changed:
        cells = []
        for key in "ab":
            r = worth.get(key, {}).get(card)
            if r is None or r["drop"] is None:
                cells.append("not offered")
            else:
                lo, hi = r["interval95"]
                mark = " *" if r["significant"] else ""
                cells.append(f"{r['drop']:+.1%} [{lo:+.1%}, {hi:+.1%}]{mark}")
        t.add_row(plain(card), *cells)
    t.caption = "* significant at 5% after Holm's correction (McNemar's exact test)"
    return t


def spread(s: dict) -> str:
    """The skill spread as lines: the strongest bot against the weakest, then every other pair."""
    def line(p):
        lo, hi = p["ci95"]
        return (f"{p['strong']} against {p['weak']} won {p['rate']:.1%} of {p['games']} games (seats alternated): "
                f"{p['value']:+.1%} over an even share, 95% interval [{lo:+.1%}, {hi:+.1%}] (Wilson)")
    others = [p for p in s.get("pairs", ()) if (p["strong"], p["weak"]) != (s["strong"], s["weak"])]
    return "Skill spread: " + line(s) + "." + "".join(f"\n  {line(p)}." for p in others)


def quality(q: dict) -> list:
    """How the game plays as Rich tables: the measures with their intervals, then each phase's
    decisions per game and options per decision."""
    t = _table("How the game plays (95% intervals: Wilson for shares, Student t for means; docs/simulation.md)")
    for col, just in (("measure", "left"), ("value", "right"), ("95% interval", "right"), ("games", "right")):
        t.add_column(col, justify=just)
    for row in quality_rows(q):
        t.add_row(*row)
    out = [t]
    if q["phases"]:
        p = _table("Per phase: decisions per game (mean, 95% interval) and options per decision")
        for col, just in (("phase", "left"), ("decisions", "right"), ("95% interval", "right"),
                          ("options per decision", "right")):
            p.add_column(col, justify=just)
        for name, row in q["phases"].items():
            p.add_row(plain(name or "(set-up)"), *_ci(row["decisions_per_game"], "mean", False),
                      _num(row["branching"]))
        out.append(p)
    return out


def is_share(row) -> bool:
    """Whether a compared figure is a share (shown as a percentage)."""
    return row["figure"].endswith("win rate") or row["figure"] == "games finished"


def value_text(v, share: bool) -> str:
    """A compared figure's value as shown (a dict of counts is shown elsewhere)."""
    if v is None:
        return "-"
    if isinstance(v, dict):
        return ", ".join(f"{k or '(none)'}: {n}" for k, n in v.items())
    return f"{v:.1%}" if share else f"{v:g}"


def difference_text(row) -> str:
    """B - A of a compared figure as shown, with its 95% interval when it has one."""
    d = row["difference"]
    if d is None:
        return "-"
    ci = row.get("ci95")
    if is_share(row):
        return f"{d:+.1%}" + ("" if ci is None else f" [{ci[0]:+.1%}, {ci[1]:+.1%}]")
    return f"{d:+g}" + ("" if ci is None else f" [{ci[0]:+g}, {ci[1]:+g}]")


def comparison(rows: list[dict], title: str, short: dict, names: tuple = ("A", "B")) -> list:
    """The tables of a comparison: each figure on both sides (their columns headed by `names`), the
    difference with its 95% interval, the test and its p-values, a mark on the significant ones;
    then how the games ended on each side; then the full name of each test and interval used."""
    t = _table(title)
    a_name, b_name = names
    for col, just in (("figure", "left"), (a_name, "right"), (b_name, "right"), ("B - A [95%]", "right"), ("test", "left"),
                      ("p", "right"), ("p (Holm)", "right"), ("significant", "left")):
        t.add_column(col, justify=just)
    ended = None
    for r in rows:
        share = is_share(r)
        if isinstance(r["a"], dict):
            ended = r
        t.add_row(r["figure"], "below" if ended is r else value_text(r["a"], share),
                  "below" if ended is r else value_text(r["b"], share), difference_text(r), short.get(r["test"], r["test"]),
                  "-" if r["p"] is None else f"{r['p']:.3g}", "-" if r["p_holm"] is None else f"{r['p_holm']:.3g}",
                  plain("yes", "bold") if r["significant"] else "no")
    out = [t]
    if ended is not None:
        e = _table("How the games ended (finished games)")
        for col, just in (("reason", "left"), (a_name, "right"), (b_name, "right")):
            e.add_column(col, justify=just)
        for reason in ended["a"]:
            e.add_row(reason or "(no reason given)", str(ended["a"][reason]), str(ended["b"][reason]))
        out.append(e)
    used = [name for name in short if any(r["test"] == name for r in rows)]
    out.append("Tests: " + "; ".join(f"{short[n]}: {n}" for n in used) + ".")
    from .compare import INTERVALS
    out.append("Intervals of B - A: " + "; ".join(f"{short.get(n, n)}: {INTERVALS[n]}" for n in used if n in INTERVALS)
               + ".")
    return out


def shared_note(ties: int) -> str:
    """Why the seats' win rates add to more than 100%, said under them when games were shared."""
    return (f"{ties} {'game was' if ties == 1 else 'games were'} won by several seats together: such a game "
            "counts as a win for each of its winners, so the win rates add to more than 100%.")


def sweep(runs: list[dict], name: str, title: str):
    """One row per value of the swept parameter: games finished, each seat's win rate with its
    interval, rounds (median, 10th-90th percentiles) and the commonest way the games ended."""
    t = _table(title)
    t.add_column(name, justify="right")
    t.add_column("finished", justify="right")
    for s in runs[0]["seats"]:
        t.add_column(f"{s['seat']} win rate [95%]", justify="right")
    t.add_column("rounds: median (p10-p90)", justify="right")
    t.add_column("commonest end", justify="left")
    for run in runs:
        seats = [f"{_pct(s['win_rate'])} [{s['ci95'][0]:.0%}, {s['ci95'][1]:.0%}]" for s in run["seats"]]
        r = run["rounds"]
        rounds = "-" if r["median"] is None else f"{r['median']:g} ({r['p10']:g}-{r['p90']:g})"
        ends = run["end_reasons"]
        top = next(iter(ends), None)
        common = "-" if top is None else f"{top} ({ends[top] / run['finished']:.0%})"
        t.add_row(run["value"], f"{run['finished']}/{run['games']}", *seats, rounds, common)
    return t


def trials(done: list[dict], names: list[str], kind: str, top: int = 10):
    """The best trials of a search, best first."""
    t = _table(f"The {min(top, len(done))} best of {len(done)} trials (distance to the target: lower is better)")
    t.add_column("trial", justify="right")
    for n in names:
        t.add_column(n, justify="right")
    t.add_column("distance", justify="right")
    t.add_column("win rates" if kind == "seats" else "median rounds", justify="right")
    for d in sorted(done, key=lambda d: (d["objective"], d["trial"]))[:top]:
        f = d["figures"]
        shown = (" / ".join(_pct(s["win_rate"]) for s in f["seats"]) if kind == "seats"
                 else _num(f["rounds"]["median"]))
        t.add_row(str(d["trial"]), *(d["params"][n] for n in names), f"{d['objective']:g}", shown)
    return t


def value(rows: list[dict], title: str, what: str) -> Table:
    """One row per item of restricted play (lab/value.py): the games paired, how many of them the
    restriction steered, the seat's win rate unrestricted and restricted, the drop with its 95%
    interval, the p-values, a mark on the significant ones."""
    t = _table(title)
    for col, just in ((what, "left"), ("games", "right"), ("steered", "right"), ("baseline", "right"),
                      ("restricted", "right"), ("drop", "right"), ("95% interval", "right"), ("p", "right"),
                      ("p (Holm)", "right"), ("significant", "left")):
        t.add_column(col, justify=just)
    for r in rows:
        ci = r["interval95"]
        t.add_row(plain(r["item"]), str(r["games"]), str(r["steered_games"]), _pct(r["baseline"]), _pct(r["restricted"]),
                  "-" if r["drop"] is None else f"{r['drop']:+.1%}",
                  "-" if ci is None else f"[{ci[0]:+.1%}, {ci[1]:+.1%}]",
                  "-" if r["p"] is None else f"{r['p']:.3g}", "-" if r["p_holm"] is None else f"{r['p_holm']:.3g}",
                  plain("yes", "bold") if r["significant"] else "no")
    return t
