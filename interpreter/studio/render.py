"""A board (interpreter/board) as HTML, and the studio's pages.

Every text that comes from a ruleset, a card database, a trace or a request goes through `e`
(html.escape, quotes too) before it is part of a page: a card named `<script>` reads `<script>`.
The pages load one script, from the studio itself, and the server forbids any other (its
Content-Security-Policy), so that even a mistake here could not run a ruleset's text.
"""
from __future__ import annotations

import html

from ..board.model import Board, Counter, Grid, Marker, Pile, Track

MAX_GRID_CELLS = 900  # cells of a grid's picture; a larger bounding box is listed


def e(text) -> str:
    return html.escape(str(text), quote=True)


def board_html(board: Board, yours: bool) -> str:
    """The board, and its question with buttons when the decision is `yours` to take."""
    out = [f'<div class="title">{e(board.title)}</div>']
    if board.result:
        out.append(f'<div class="result">{e(board.result)}</div>')
    if board.scores:
        players = len(board.scores[0][1])
        head = "".join(f"<th>P{p + 1}</th>" for p in range(players))
        rows = "".join(f"<tr><th>{e(label)}</th>" + "".join(f"<td>{e(v)}</td>" for v in values) + "</tr>"
                       for label, values in board.scores)
        out.append(f'<table class="scores"><tr><th></th>{head}</tr>{rows}</table>')
    out.append(question_html(board, yours))
    out.append('<div class="areas">')
    for area in board.areas:
        if not area.items:
            continue
        mine = " mine" if area.owner is not None and area.owner == board.seat else ""
        out.append(f'<section class="area{mine}"><h2>{e(area.title)}</h2>')
        counters = [i for i in area.items if isinstance(i, Counter)]
        if counters:
            out.append('<dl class="counters">' + "".join(
                f"<div><dt>{e(c.label)}</dt><dd>{e(c.value)}</dd></div>" for c in counters) + "</dl>")
        for item in area.items:
            if isinstance(item, Pile):
                out.append(pile_html(item))
            elif isinstance(item, Track):
                out.append(track_html(item))
            elif isinstance(item, Grid):
                out.append(grid_html(item, yours))
        markers = [i for i in area.items if isinstance(i, Marker)]
        if markers:
            out.append('<div class="markers">' + "".join(
                f'<span class="marker">{e(m.label)}: <b>{e(m.holder)}</b></span>' for m in markers) + "</div>")
        out.append("</section>")
    out.append("</div>")
    return "".join(out)


def question_html(board: Board, yours: bool) -> str:
    q = board.question
    if q is None:
        return ""
    if not yours:
        return f'<div class="question waiting">{e(q.player)} to play: {e(q.prompt)}</div>'
    buttons = "".join(
        f'<button class="choice" data-index="{c.number - 1}" title="{e(c.detail)}">{c.number}. {e(c.text)}'
        + (f' <small>{e(c.detail.removeprefix(c.text + ": "))}</small>' if c.detail and c.detail != c.text else "")
        + "</button>" for c in q.choices)
    return f'<div class="question"><div class="prompt">{e(q.player)}, {e(q.prompt)}</div>{buttons}</div>'


def _card(name: str, summary: str, count: int = 1, extra: str = "") -> str:
    times = f' <span class="times">x{count}</span>' if count > 1 else ""
    return f'<span class="card" title="{e(summary)}">{e(name)}{times}{extra}</span>'


def pile_html(p: Pile) -> str:
    if not p.size_known:
        body = '<span class="hidden">? cards</span>'
    elif not p.size:
        body = '<span class="empty">empty</span>'
    else:
        body = "".join(_card(g.name, g.summary, g.count, "".join(
            f' <span class="slot">{e(slot)}: {e(", ".join(names))}</span>' for slot, names in g.attached))
            for g in p.groups)
        if p.hidden:
            body += f'<span class="hidden">{p.hidden} {"hidden" if p.groups else "cards, hidden"}</span>'
    return f'<div class="pile"><span class="label">{e(p.label)}</span> {body}</div>'


def track_html(t: Track) -> str:
    on = {}
    for who, space in t.pieces:
        on.setdefault(space, []).append(who)
    if t.spaces and t.spaces <= 60:
        cells = "".join(f'<td><div class="space">{s}</div>' + "".join(
            f'<div class="piece">{e(w)}</div>' for w in on.get(s, ())) + "</td>" for s in range(t.spaces))
        body = f'<table class="track"><tr>{cells}</tr></table>'
    else:
        body = ", ".join(f"{e(w)} at {s}" for s, ws in on.items() if s is not None for w in ws)
    off = on.get(None, ())
    if off:
        body += f'<div class="off">off it: {e(", ".join(off))}</div>'
    return f'<div class="trackbox"><span class="label">{e(t.label)}</span>{body}</div>'


def grid_html(g: Grid, yours: bool) -> str:
    used = [(c.col, c.row) for c in g.cells] + [(c.col, c.row) for _, c in g.offered]
    if not used:
        return f'<div class="pile"><span class="label">{e(g.label)}</span> <span class="empty">empty</span></div>'
    c0, c1 = min(c for c, _ in used), max(c for c, _ in used)
    r0, r1 = min(r for _, r in used), max(r for _, r in used)
    at = {(c.col, c.row): c for c in g.cells}
    offered = {(c.col, c.row): n for n, c in g.offered}
    if (c1 - c0 + 1) * (r1 - r0 + 1) > MAX_GRID_CELLS:
        body = ", ".join(_card(f"{c.name} {c.card or '?'}", c.summary) for c in g.cells)
        return f'<div class="pile"><span class="label">{e(g.label)}</span> {body}</div>'
    rows = []
    for r in range(r0, r1 + 1):
        tds = []
        for c in range(c0, c1 + 1):
            if (c, r) in at:
                cell = at[(c, r)]
                tds.append(f'<td class="filled" title="{e(cell.name)}: {e(cell.summary or cell.card or "?")}">'
                           f'{e(cell.card or "?")}</td>')
            elif (c, r) in offered and yours:
                n = offered[(c, r)]
                tds.append(f'<td class="offered"><button class="choice" data-index="{n - 1}">{n}</button></td>')
            else:
                tds.append("<td></td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    return f'<div class="gridbox"><span class="label">{e(g.label)}</span><table class="grid">{"".join(rows)}</table></div>'


STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f1ea; color: #222; }
header { background: #2f4f3a; color: #fff; padding: 6px 14px; display: flex; gap: 16px; align-items: baseline; }
header h1 { font-size: 18px; margin: 0; } header a { color: #cfe; }
main { display: flex; gap: 10px; padding: 10px; }
#board { flex: 3; min-width: 0; } #side { flex: 1; min-width: 220px; max-height: 90vh; overflow: auto; }
.title { font-weight: 600; margin-bottom: 6px; } .result { font-weight: 700; color: #8a1c1c; }
.areas { display: flex; flex-wrap: wrap; gap: 8px; }
.area { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 6px 10px; flex: 1 1 420px; }
.area.mine { border-color: #2f4f3a; border-width: 2px; }
.area h2 { font-size: 15px; margin: 2px 0 6px; }
.counters { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 6px; }
.counters div { display: flex; gap: 4px; } dt { color: #555; } dd { margin: 0; font-weight: 600; }
.pile, .trackbox, .gridbox { margin: 3px 0; } .label { color: #555; margin-right: 4px; }
.card { display: inline-block; border: 1px solid #b9a77a; background: #fffaf0; border-radius: 4px; padding: 0 5px;
        margin: 1px 2px; cursor: help; } .times { color: #8a6d1f; font-weight: 600; }
.slot { color: #555; font-size: 90%; } .hidden, .empty, .off { color: #888; font-style: italic; margin-left: 4px; }
table.grid { border-collapse: collapse; margin-top: 2px; } table.grid td { border: 1px solid #ddd; min-width: 64px;
        height: 34px; text-align: center; font-size: 12px; } td.filled { background: #e8f3e0; cursor: help; }
table.track td { border: 1px solid #ddd; min-width: 34px; vertical-align: top; font-size: 12px; }
.space { color: #999; } .piece { background: #334; color: #fff; border-radius: 8px; padding: 0 4px; margin: 1px; }
.markers { margin-top: 4px; } .marker { margin-right: 12px; }
.question { background: #fff7d6; border: 1px solid #d8c26a; border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
.question.waiting { background: #eee; border-color: #ccc; } .prompt { font-weight: 600; margin-bottom: 4px; }
button.choice { margin: 2px; padding: 3px 8px; cursor: pointer; } button.choice small { color: #666; }
.scores { border-collapse: collapse; margin: 4px 0; } .scores th, .scores td { padding: 1px 8px; text-align: right; }
.scores th:first-child { text-align: left; }
#log { font-size: 12px; white-space: pre-wrap; } .moves li { cursor: pointer; } .moves li.at { background: #fff3b0; }
.status { color: #666; font-size: 12px; } .cover { font-size: 20px; padding: 40px; text-align: center; }
"""


def page(title: str, body: str, script: bool = True) -> str:
    """A whole page: its title and body (already escaped HTML)."""
    js = '<script src="/static/studio.js" defer></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
            f'<style>{STYLE}</style>{js}</head><body>{body}</body></html>')
