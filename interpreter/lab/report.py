"""The report a designer looks at: one self-contained HTML page (no file or address outside it)
with the summary tables and the plots, drawn by matplotlib as inline SVG.

A simulation's page shows each seat's win rate with its interval, the distribution of game length,
the end reasons and the cards' pick rates; a comparison's and a sweep's show both sides, or every
value, on the same charts. Every text that comes from a ruleset (a reason, a card's name) is escaped
in the page, and matplotlib draws the plots' texts as paths and reads no mathematics in them, so
nothing in a ruleset becomes markup.
"""
from __future__ import annotations

import html
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..tools.plaintext import visible  # noqa: E402
from . import show  # noqa: E402
from .compare import INTERVALS  # noqa: E402
from .figures import unfinished  # noqa: E402

# `text.parse_math` off: a label with `$...$` (a card's name) is shown as written, not read as
# mathematics (and a malformed one would stop the page).
plt.rcParams.update({"svg.fonttype": "path", "svg.hashsalt": "lfdsl", "font.size": 10, "text.parse_math": False,
                     "axes.spines.top": False, "axes.spines.right": False})
COLOURS = ["#2f6f9f", "#d07a2b", "#4c9a52", "#a44a7a", "#7a6fb0", "#8c8c3c"]
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; } .plot { flex: 1 1 480px; }
.note { color: #555; font-size: 0.9em; } .sig { font-weight: bold; color: #b03030; }
"""


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _e(text) -> str:
    return html.escape(visible(text))


def _table(head: list, rows: list, left: int = 1) -> str:
    cls = lambda i: ' class="l"' if i < left else ""  # noqa: E731
    out = ["<table>" + ("<tr>" + "".join(f"<th{cls(i)}>{_e(h)}</th>" for i, h in enumerate(head)) + "</tr>"
                        if head else "")]
    for row in rows:
        out.append("<tr>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>")
    return "".join(out) + "</table>"


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def provenance(*engines) -> list[tuple[str, str]]:
    """What a page was made from: each engine's files with their hashes, and its parameters'
    values (those set by `--set` marked), as (label, text) rows."""
    rows = []
    for engine in engines:
        origin = engine.origin or {}
        for path, digest in (origin.get("files") or {}).items():
            rows.append((path, digest))
        given = origin.get("set") or {}
        params = ", ".join(f"{k}={v}{' (set)' if k in given else ''}" for k, v in sorted(engine.params.items()))
        rows.append(("parameters", params or "none"))
    seen, out = set(), []
    for row in rows:  # a file both sides read is listed once
        if row not in seen:
            seen.add(row)
            out.append(row)
    return out


def _page(title: str, subtitle: str, body: list[str], made_from: list | None = None) -> str:
    head = ""
    if made_from:
        head = ("<details open><summary class=\"note\">Made from</summary>"
                + _table(None, [[_e(a), f"<code>{_e(b)}</code>"] for a, b in made_from]) + "</details>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{_e(title)}</h1><p class=\"note\">{_e(subtitle)}</p>{head}" + "".join(body) + "</body></html>\n")


# ---- the charts ------------------------------------------------------------------------------
def _win_rates(sides: list[tuple[str, dict]]):
    """Grouped bars: each seat's win rate on every side, with its 95% interval."""
    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    seats = [s["seat"] for s in sides[0][1]["seats"]]
    width = 0.8 / len(sides)
    for k, (name, fig_data) in enumerate(sides):
        xs = [i + (k - (len(sides) - 1) / 2) * width for i in range(len(seats))]
        rates = [s["win_rate"] or 0 for s in fig_data["seats"]]
        low = [r - s["ci95"][0] for r, s in zip(rates, fig_data["seats"])]
        high = [s["ci95"][1] - r for r, s in zip(rates, fig_data["seats"])]
        ax.bar(xs, rates, width, yerr=[low, high], capsize=3, label=name, color=COLOURS[k % len(COLOURS)])
    ax.axhline(1 / len(seats), color="#888", lw=0.8, ls="--")
    ax.set_xticks(range(len(seats)), seats)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title("Win rate per seat (95% Wilson interval)")
    if len(sides) > 1:
        ax.legend(frameon=False)
    return _svg(fig)


def _lengths(sides: list[tuple[str, list[int]]]):
    """Histogram of the rounds of the finished games, every side on one chart."""
    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    values = [v for _, vs in sides for v in vs]
    if values:
        lo, hi = min(values), max(values)
        bins = [x - 0.5 for x in range(lo, hi + 2)] if hi - lo < 40 else 30
        for k, (name, vs) in enumerate(sides):
            ax.hist(vs, bins=bins, alpha=0.6 if len(sides) > 1 else 0.9, label=name, color=COLOURS[k % len(COLOURS)])
    ax.set_xlabel("rounds")
    ax.set_ylabel("games")
    ax.set_title("Length of the finished games")
    if len(sides) > 1:
        ax.legend(frameon=False)
    return _svg(fig)


def palette(n: int) -> list:
    """`n` colours told apart: the report's own up to six, then evenly along viridis (no repeat)."""
    if n <= len(COLOURS):
        return COLOURS[:n]
    return [matplotlib.colormaps["viridis"](i / (n - 1)) for i in range(n)]


def _hbars(title: str, labels: list[str], sides: list[tuple[str, list[float]]], percent: bool):
    """Horizontal bars, one group per label, one bar per side; the legend beside the chart, where
    it covers no bar."""
    fig, ax = plt.subplots(figsize=(5.6, 0.8 + 0.32 * len(labels) * max(1, len(sides) * 0.7)))
    height = 0.8 / len(sides)
    colours = palette(len(sides))
    for k, (name, vals) in enumerate(sides):
        ys = [i + (k - (len(sides) - 1) / 2) * height for i in range(len(labels))]
        ax.barh(ys, vals, height, label=visible(name), color=colours[k])
    shown = [visible(lb) for lb in labels]
    ax.set_yticks(range(len(labels)), [lb if len(lb) <= 48 else lb[:47] + "…" for lb in shown])
    ax.invert_yaxis()
    if percent:
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title(title)
    if len(sides) > 1:
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return _svg(fig)


def _ends(sides: list[tuple[str, dict]]):
    reasons = []
    for _, f in sides:
        reasons += [r for r in f["end_reasons"] if r not in reasons]
    shares = [(n, [f["end_reasons"].get(r, 0) / f["finished"] if f["finished"] else 0 for r in reasons])
              for n, f in sides]
    return _hbars("How the games ended (share of finished games)", reasons, shares, True) if reasons else ""


def _picks(sides: list[tuple[str, dict]], top: int = 15):
    cards = sides[0][1]["cards"]
    names = sorted(cards, key=lambda c: (-cards[c]["offered"], c))[:top]
    if not names:
        return ""
    rates = [(n, [(f["cards"].get(c) or {}).get("chosen_when_offered") or 0 for c in names]) for n, f in sides]
    return _hbars(f"Cards chosen when offered (the {len(names)} most offered)", names, rates, True)


def _curves(figures: dict, least: int = 5):
    """Each seat's standing at the start of every round: the mean over the finished games that
    reached it (a line) and the 10th to 90th percentiles (a band), for the rounds at least `least`
    games reached."""
    points = [c for c in figures.get("curves", []) if c["games"] >= least]
    if not points:
        return ""
    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    xs = [c["round"] for c in points]
    for seat in range(len(points[0]["mean"])):
        colour = COLOURS[seat % len(COLOURS)]
        ax.plot(xs, [c["mean"][seat] for c in points], color=colour, label=f"P{seat + 1}")
        ax.fill_between(xs, [c["p10"][seat] for c in points], [c["p90"][seat] for c in points], color=colour,
                        alpha=0.15, lw=0)
    ax.set_xlabel("round")
    ax.set_ylabel("standing (the bots' evaluation)")
    ax.set_title(f"Standing as each round begins\n(mean; band: 10th-90th percentile; rounds {least}+ games reached)")
    ax.legend(frameon=False)
    return _svg(fig)


def _quality(figures: dict) -> list[str]:
    """How the game plays: the measures with their intervals, and each phase's figures."""
    q = figures.get("quality")
    if not q:
        return []
    out = ["<h2>How the game plays</h2>",
           _table(["measure", "value", "95% interval", "games"], [[_e(c) for c in row] for row in show.quality_rows(q)]),
           "<p class=\"note\">" + _e("Shares: Wilson's interval; means: Student's t. Standings: the bots' "
                                     "evaluation at the start of each round. Definitions and sources: "
                                     "docs/simulation.md, 'How the game plays'.") + "</p>"]
    if q["phases"]:
        rows = [[_e(name or "(set-up)"), f"{row['decisions_per_game']['mean']:.2f}",
                 "-" if row["decisions_per_game"]["ci95"] is None else
                 "[{:.2f}, {:.2f}]".format(*row["decisions_per_game"]["ci95"]), _e(show._num(row["branching"]))]
                for name, row in q["phases"].items()]
        out.append(_table(["phase", "decisions per game", "95% interval", "options per decision"], rows))
    return out


def _plots(parts: list[str]) -> str:
    return '<div class="plots">' + "".join(f'<div class="plot">{p}</div>' for p in parts if p) + "</div>"


# ---- the pages -------------------------------------------------------------------------------
def _summary_rows(f: dict) -> list:
    lost = [["lost with the cluster", f["lost"]]] if f.get("lost") else []  # as the terminal's table says
    return [["games", f["games"]], ["finished", f["finished"]], ["stopped by a limit", f["stopped_by_limit"]],
            ["stopped by an error", f["errors"]], *lost, ["ties", f["ties"]],
            ["rounds: median (p10-p90)", "-" if f["rounds"]["median"] is None else
             f"{f['rounds']['median']:g} ({f['rounds']['p10']:g}-{f['rounds']['p90']:g})"],
            ["decisions: median", "-" if f["decisions"]["median"] is None else f"{f['decisions']['median']:g}"]]


def simulation(title: str, subtitle: str, figures: dict, records: list[dict], made_from=None) -> str:
    """The page of one simulation."""
    rounds = [r["rounds"] for r in records if r["status"] == "finished"]
    seats = [[_e(s["seat"]), s["wins"], _pct(s["win_rate"]), f"[{s['ci95'][0]:.1%}, {s['ci95'][1]:.1%}]"]
             for s in figures["seats"]]
    body = ["<h2>Summary</h2>", _table(None, [[_e(a), _e(b)] for a, b in _summary_rows(figures)]),
            _table(["seat", "wins", "win rate", "95% interval"], seats),
            f"<p class=\"note\">{_e(figures['interval'])}"
            + (f" {_e(show.shared_note(figures['ties']))}" if figures["ties"] else "") + "</p>", *_quality(figures),
            "<h2>Plots</h2>", _plots([_win_rates([("", figures)]), _lengths([("", rounds)]), _curves(figures),
                                      _ends([("", figures)]), _picks([("", figures)])])]
    if figures["failed_seeds"]:
        body += ["<h2>Games that did not finish</h2>",
                 _table(["seed", "stopped by", "message"],
                        [[_e(seeds), _e(show.STOPPED_BY[status]), _e(message)]
                         for seeds, status, message in unfinished(figures["failed_seeds"])])]
    return _page(title, subtitle, body, made_from)


def comparison(title: str, subtitle: str, a: tuple, b: tuple, rows: list[dict], tests: dict, made_from=None,
               changed: tuple = ((), {})) -> str:
    """The page of a comparison: `a` and `b` are (name, figures, records); `changed`: the cards
    the sides define otherwise and their restricted-play rows per side ("a", "b")."""
    sides = [(a[0], a[1]), (b[0], b[1])]

    table = []
    for r in rows:
        share = show.is_share(r)
        both = ["see the plot"] * 2 if isinstance(r["a"], dict) else [show.value_text(r[k], share) for k in "ab"]
        table.append([_e(r["figure"]), *both, show.difference_text(r), _e(tests.get(r["test"], r["test"])),
                      "-" if r["p"] is None else f"{r['p']:.3g}", "-" if r["p_holm"] is None else f"{r['p_holm']:.3g}",
                      '<span class="sig">yes</span>' if r["significant"] else "no"])
    finished = [(n, [r["rounds"] for r in recs if r["status"] == "finished"]) for n, _, recs in (a, b)]
    body = ["<h2>Figures</h2>", _table(["figure", a[0], b[0], "B - A [95%]", "test", "p", "p (Holm)", "significant"],
                                       table),
            "<p class=\"note\">" + _e("; ".join(f"{short}: {name}" for name, short in tests.items())
                                     + "; intervals: " + "; ".join(f"{tests.get(k, k)}: {v}"
                                                                   for k, v in INTERVALS.items())) + "</p>",
            "<h2>Plots</h2>", _plots([_win_rates(sides), _lengths(finished), _ends(sides), _picks(sides)])]
    cards, worth = changed
    if cards:
        def cell(key, card):
            r = worth.get(key, {}).get(card)
            if r is None or r["drop"] is None:
                return "not offered"
            lo, hi = r["interval95"]
            sig = ' <span class="sig">*</span>' if r["significant"] else ""
            return f"{r['drop']:+.1%} [{lo:+.1%}, {hi:+.1%}]{sig}"
        body[3:3] = ["<h2>Worth of the changed cards</h2>",
                     _table(["card", f"{a[0]}: drop [95%]", f"{b[0]}: drop [95%]"],
                            [[_e(c), cell("a", c), cell("b", c)] for c in cards]),
                     "<p class=\"note\">" + _e("The drop of a seat's win rate when it never takes the card, "
                                                "on each side (restricted play, as `lfdsl value`; Agresti-Min "
                                                "interval; * significant at 5% after Holm's correction).") + "</p>"]
    return _page(title, subtitle, body, made_from)


def sweep(title: str, subtitle: str, name: str, runs: list[dict], made_from=None) -> str:
    """The page of a sweep: every value of the parameter on the same charts."""
    values = [r["value"] for r in runs]
    numeric = all(v.lstrip("-").isdigit() for v in values)
    xs = [int(v) for v in values] if numeric else list(range(len(values)))
    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    for k, seat in enumerate(s["seat"] for s in runs[0]["seats"]):
        rates = [r["seats"][k]["win_rate"] or 0 for r in runs]
        ax.plot(xs, rates, marker="o", color=COLOURS[k % len(COLOURS)], label=seat)
        ax.fill_between(xs, [r["seats"][k]["ci95"][0] for r in runs], [r["seats"][k]["ci95"][1] for r in runs],
                        color=COLOURS[k % len(COLOURS)], alpha=0.15)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title("Win rate per seat (95% Wilson interval)")
    ax.set_xlabel(name)
    ax.legend(frameon=False)
    _ticks(ax, xs, values, numeric)
    win = _svg(fig)
    fig, ax = plt.subplots(figsize=(5.6, 3.2))
    med = [r["rounds"]["median"] for r in runs]
    ax.plot(xs, [m or 0 for m in med], marker="o", color=COLOURS[0], label="median")
    ax.fill_between(xs, [r["rounds"]["p10"] or 0 for r in runs], [r["rounds"]["p90"] or 0 for r in runs],
                    color=COLOURS[0], alpha=0.2, label="10th-90th percentile")
    ax.set_title("Rounds of the finished games")
    ax.set_xlabel(name)
    ax.legend(frameon=False)
    _ticks(ax, xs, values, numeric)
    length = _svg(fig)
    ends = _ends([(f"{name}={r['value']}", r) for r in runs])
    rows = [[_e(r["value"]), f"{r['finished']}/{r['games']}",
             *(f"{_pct(s['win_rate'])} [{s['ci95'][0]:.0%}, {s['ci95'][1]:.0%}]" for s in r["seats"]),
             "-" if r["rounds"]["median"] is None else f"{r['rounds']['median']:g}"] for r in runs]
    head = [name, "finished", *(f"{s['seat']} win rate [95%]" for s in runs[0]["seats"]), "rounds (median)"]
    body = ["<h2>Summary</h2>", _table(head, rows), "<h2>Plots</h2>", _plots([win, length, ends])]
    return _page(title, subtitle, body, made_from)


def _ticks(ax, xs, values, numeric):
    if not numeric:
        ax.set_xticks(xs, [visible(v) for v in values])


def _drops(title: str, rows: list[dict]):
    """Horizontal bars: each item's drop of win rate with its 95% interval, the largest on top."""
    fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.3 * len(rows)))
    drops = [r["drop"] for r in rows]
    low = [r["drop"] - r["interval95"][0] for r in rows]
    high = [r["interval95"][1] - r["drop"] for r in rows]
    colours = [COLOURS[2] if r["significant"] and r["drop"] > 0 else COLOURS[1] if r["significant"] else "#9a9a9a"
               for r in rows]
    ax.barh(range(len(rows)), drops, 0.7, xerr=[low, high], capsize=3, color=colours)
    ax.axvline(0, color="#555", lw=0.8)
    names = [visible(r["item"]) for r in rows]
    ax.set_yticks(range(len(rows)), [n if len(n) <= 40 else n[:39] + "…" for n in names])
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_title(title)
    return _svg(fig)


def value(title: str, subtitle: str, rows: list[dict], what: str, methods: dict, top: int = 12,
          made_from=None) -> str:
    """The page of restricted play (lab/value.py): the table of every item, and the drops of the
    `top` largest and smallest as bars with their intervals (green: significantly worth taking;
    orange: significantly better avoided; grey: not significant)."""
    measured = [r for r in rows if r["drop"] is not None]
    table = [[_e(r["item"]), r["games"], r["steered_games"], _pct(r["baseline"]), _pct(r["restricted"]),
              "-" if r["drop"] is None else f"{r['drop']:+.1%}",
              "-" if r["interval95"] is None else f"[{r['interval95'][0]:+.1%}, {r['interval95'][1]:+.1%}]",
              "-" if r["p"] is None else f"{r['p']:.3g}", "-" if r["p_holm"] is None else f"{r['p_holm']:.3g}",
              '<span class="sig">yes</span>' if r["significant"] else "no"] for r in rows]
    if len(measured) <= 2 * top:
        plots = [_drops("Drop of the restricted seat's win rate (95% interval)", measured)] if measured else []
    else:
        plots = [_drops(f"The {top} largest drops", measured[:top]), _drops(f"The {top} smallest", measured[-top:])]
    body = ["<h2>Worth, by restricted play</h2>",
            _table([what, "games", "steered", "baseline", "restricted", "drop", "95% interval", "p", "p (Holm)", "significant"],
                   table),
            "<p class=\"note\">" + _e("; ".join(f"{k}: {v}" for k, v in methods.items())) + "</p>",
            "<h2>Plots</h2>", _plots(plots)]
    return _page(title, subtitle, body, made_from)
