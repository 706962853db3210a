"""The studio's web server (Starlette): pages, a websocket per browser, the traces' steps.

The server is the authority: a browser sends only "I take option i at decision n" and receives
its own player's board, built from that player's view (`Engine.view`) by the board model and
escaped (render.py). A message from a browser is untrusted: it is read within bounds, its every
field checked, and a wrong one is answered with an error message, never with a traceback.
"""
from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..board import build
from ..tools.trace import render as render_event
from . import traces
from .render import board_html, e, page
from .store import HUMAN, Live, Store, StudioError

MAX_MESSAGE = 4096      # bytes of one message from a browser
MAX_EVENT_LINES = 50_000  # lines of events a seat's log keeps (then it says it stops)
HEADERS = {"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; "
                                      "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=HEADERS)


class Hub:
    """The browsers connected to each table, and what each seat has read of the game."""

    def __init__(self, store: Store):
        self.store = store
        # Each browser's socket, whose seat, and the queue its own writer reads (on its own event
        # loop: a socket is written only by the task that owns it)
        self.sockets: dict[str, list[tuple[WebSocket, object, asyncio.AbstractEventLoop, asyncio.Queue]]] = {}
        self.sent: dict[int, tuple[int, int]] = {}  # a socket -> (the seat whose log it has, lines sent)
        self.watched: dict[str, Live] = {}  # the table whose logs `logs` holds, by key
        self.logs: dict[str, dict[int, list[str]]] = {}

    def logs_of(self, live: Live) -> dict:
        """The logs of a table, watched from its start the first time they are asked for (a table
        read again from SQLite); those of tables no longer in memory are let go."""
        if self.watched.get(live.key) is not live:
            self.watch(live)
        for key in [k for k in self.logs if k not in self.store.live]:
            del self.logs[key]
            self.watched.pop(key, None)
        return self.logs[live.key]

    def watch(self, live: Live):
        """Keep each person's events (through their player's filter) from the game's start on."""
        t = live.table
        self.watched[live.key] = live
        logs = self.logs[live.key] = {seat: [] for seat in t.humans}

        internal = t.engine.model.display.internal

        def keeper(seat):
            def keep(event):
                lines = logs[seat]
                if event["event"] == "state" or len(lines) > MAX_EVENT_LINES:
                    return
                if event["event"] == "counter" and event["data"]["name"].split("[")[0] in internal:
                    return  # a helper of the rules the display section leaves out
                lines.extend(render_event(event))
                if len(lines) > MAX_EVENT_LINES:
                    lines.append("(the log stops here: it is long enough)")
            return keep
        filters = [t.engine.player_sink(seat, keeper(seat)) for seat in sorted(t.humans)]

        def sink(event):
            for f in filters:
                f(event)
        t.sink = sink
        t.replay(list(t.history))  # played again with the sink: every event from the set-up

    def message(self, live: Live, who, ws=None) -> dict:
        """What the browser of `who` (a seat, or "host") is shown now; the log's lines it has not
        been sent yet (all of them when the seat shown changed: `log_reset`)."""
        t = live.table
        acting = live.acting(who)
        seat = acting if acting is not None else (who if who != "host" else self._host_seat(live))
        mine = acting is not None
        options = t.engine.options(t.state) if mine else None
        board = build(t.engine, t.engine.view(t.state, seat), options)
        lines = self.logs_of(live).get(seat, [])
        had_seat, sent = self.sent.get(id(ws), (None, 0))
        reset = had_seat != seat
        start = 0 if reset else sent
        self.sent[id(ws)] = (seat, len(lines))
        return {"type": "board", "seat": seat, "turn": len(t.history), "yours": mine, "over": t.over,
                "humans": len(t.humans), "html": board_html(board, mine), "log_reset": reset,
                "log": lines[start:]}

    @staticmethod
    def _host_seat(live: Live) -> int:
        t = live.table
        now = t.seat_to_play
        if now is not None and now in t.humans:
            return now
        return min(t.humans) if t.humans else 0

    def tell_all(self, key: str):
        """Ask every browser of table `key` to be sent its new board (by its own writer)."""
        for _, _, loop, queue in list(self.sockets.get(key, ())):
            loop.call_soon_threadsafe(queue.put_nowait, None)

    def drop(self, key: str, ws):
        self.sockets[key] = [entry for entry in self.sockets.get(key, ()) if entry[0] is not ws]
        self.sent.pop(id(ws), None)


def make_app(store: Store) -> Starlette:
    hub = Hub(store)

    async def index(request: Request):
        rows = []
        for key, live in store.live.items():
            t = live.table
            state = "over" if t.over else f"decision {len(t.history) + 1}"
            rows.append(f"<li>{e(t.engine.model.game.name)} ({e(live.ruleset)}), {t.players} players, "
                        f"{e(t.agents_spec)}: {e(state)}</li>")
        aside = "".join(f"<li>{e(k)}: {e(why)}</li>" for k, why in store.aside.items())
        options = "".join(f'<option value="{e(r)}">{e(r)}</option>' for r in store.rulesets())
        body = (f'<header><h1>lfdsl studio</h1><a href="/">tables</a></header><main><div id="board">'
                f'<h2>A new table</h2><form method="post" action="/new">'
                f'<label>Ruleset <select name="ruleset">{options}</select></label> '
                f'<label>Players <input name="players" type="number" min="1" max="8" value="2"></label> '
                f'<label>Agents, one per seat <input name="agents" value="human,random" size="40"></label> '
                f'<label>Seed <input name="seed" size="10" placeholder="new"></label> '
                f'<button type="submit">Open the table</button></form>'
                f'<p class="status">Agents: <code>human</code> for a person (each gets a link), or a bot: '
                f'random, greedy, mcts.</p><h2>Tables</h2><ul>{"".join(rows) or "<li>none yet</li>"}</ul>'
                + (f"<h2>Kept aside</h2><ul>{aside}</ul>" if aside else "") +
                '<h2>A trace</h2><form method="get" action="/trace"><input name="path" size="50" '
                'placeholder="a .jsonl trace under the studio\'s folder"> <button>Open</button></form>'
                "</div></main>")
        return _html(page("lfdsl studio", body, script=False))

    async def new(request: Request):
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_MESSAGE:
                return _html(page("lfdsl studio", "<main><p>The form is too long.</p></main>", False), 413)
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), max_num_fields=10).items()}
        try:
            players = int(str(form.get("players", "")) or 0)
            agents = [a.strip() for a in str(form.get("agents", "")).split(",") if a.strip()]
            if len(agents) == 1 and players > 1:
                agents = [HUMAN] + agents * (players - 1) if agents[0] != HUMAN else agents * players
            seed = int(form["seed"]) if form.get("seed", "").strip() else None
            if seed is not None and not 0 <= seed < 2 ** 63:
                raise StudioError("a seed is a whole number from 0")
            live = await run_in_threadpool(store.create, str(form.get("ruleset", "")), players, agents, seed)
        except (StudioError, ValueError) as exc:
            return _html(page("lfdsl studio", f"<main><p>{e(exc)}</p><a href='/'>back</a></main>", False), 400)
        return RedirectResponse(f"/play/{live.key}/{live.tokens['host']}", status_code=303, headers=HEADERS)

    async def play(request: Request):
        key, token = request.path_params["key"], request.path_params["token"]
        live = store.get(key)
        who = live.seat_of(token) if live is not None else None
        if who is None:
            return _html(page("lfdsl studio", "<main><p>No such table or seat.</p></main>", False), 404)
        t = live.table
        links = ""
        if who == "host":
            base = str(request.base_url).rstrip("/")
            links = "<p class='status'>Seat links (send each person theirs): " + " ".join(
                f'<a href="{e(base)}/play/{e(key)}/{e(live.tokens[str(s)])}">P{s + 1}</a>' for s in sorted(t.humans)) + "</p>"
        title = f"{t.engine.model.game.name}: " + ("host" if who == "host" else f"P{who + 1}")
        body = (f'<header><h1>{e(title)}</h1><a href="/">tables</a><span id="status" class="status"></span></header>'
                f'{links}<main id="play" data-table="{e(key)}" data-token="{e(token)}"><div id="board"></div>'
                f'<div id="side"><h3>Events</h3><div id="log"></div></div></main>')
        return _html(page(title, body))

    async def socket(ws: WebSocket):
        key, token = ws.path_params["key"], ws.path_params["token"]
        live = store.get(key)
        who = live.seat_of(token) if live is not None else None
        if who is None:
            await ws.close(code=4404)
            return
        await ws.accept()
        queue: asyncio.Queue = asyncio.Queue()
        hub.sockets.setdefault(key, []).append((ws, who, asyncio.get_running_loop(), queue))
        queue.put_nowait(None)  # the board as it is now

        async def writer():
            """Send this browser its board each time the table changes (None), or a reply."""
            while True:
                item = await queue.get()
                if item is None:
                    with live.lock:
                        item = hub.message(live, who, ws)
                await ws.send_text(json.dumps(item))

        async def reader():
            while True:
                text = await ws.receive_text()
                reply = await _handle(text, key, token)
                if reply is not None:
                    queue.put_nowait(reply)
                else:
                    hub.tell_all(key)
        tasks = [asyncio.ensure_future(writer()), asyncio.ensure_future(reader())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            hub.drop(key, ws)
            for task in tasks:  # a browser gone ends here (it rejoins when it comes back); any other failure is raised
                exc = task.exception() if task.done() and not task.cancelled() else None
                if exc is not None and not isinstance(exc, (WebSocketDisconnect, RuntimeError)):
                    raise exc

    async def _handle(text: str, key: str, token: str):
        """None when the choice was taken (everyone is then told), else the error to answer."""
        if len(text) > MAX_MESSAGE:
            return {"type": "error", "message": "message too long"}
        try:
            msg = json.loads(text)
        except ValueError:
            return {"type": "error", "message": "not JSON"}
        if not isinstance(msg, dict) or msg.get("type") != "choose":
            return {"type": "error", "message": "a message is {\"type\": \"choose\", \"turn\": N, \"index\": I}"}
        turn, index = msg.get("turn"), msg.get("index")
        if type(turn) is not int or type(index) is not int:
            return {"type": "error", "message": "turn and index are whole numbers"}
        try:
            await run_in_threadpool(store.choose, key, token, turn, index)
        except StudioError as exc:
            return {"type": "error", "message": str(exc)}
        return None

    async def trace_page(request: Request):
        path = request.query_params.get("path", "")
        try:
            t = await run_in_threadpool(traces.open_trace, store.root, path)
        except StudioError as exc:
            return _html(page("lfdsl studio", f"<main><p>{e(exc)}</p><a href='/'>back</a></main>", False), 400)
        seats = "".join(f'<option value="{p}">P{p + 1}</option>' for p in range(t.players))
        moves = "".join(f'<li data-n="{n}">{e(who)} {e(prompt)}: {e(label)}</li>'
                        for n, (who, prompt, label) in enumerate(t.shown))
        body = (f'<header><h1>{e(t.engine.model.game.name)}: {e(path)}</h1><a href="/">tables</a></header>'
                f'<main id="trace" data-path="{e(path)}"><div id="board"></div><div id="side">'
                f'<label>Seen by <select id="seat"><option value="all">everyone (the referee)</option>{seats}'
                f'</select></label> <button id="back">&larr;</button> <button id="forward">&rarr;</button>'
                f'<div id="curves"></div><ol class="moves" start="1">{moves}</ol></div></main>')
        return _html(page(f"trace {path}", body))

    async def trace_step(request: Request):
        q = request.query_params
        try:
            n = int(q.get("n", "0"))
            seat = q.get("seat", "all")
            out = await run_in_threadpool(traces.step_html, store.root, q.get("path", ""), n, seat)
        except (StudioError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400, headers=HEADERS)
        return JSONResponse(out, headers=HEADERS)

    async def script(request: Request):
        return Response(SCRIPT, media_type="text/javascript", headers=HEADERS)

    return Starlette(routes=[
        Route("/", index), Route("/new", new, methods=["POST"]), Route("/play/{key}/{token}", play),
        WebSocketRoute("/ws/{key}/{token}", socket), Route("/trace", trace_page), Route("/trace/step", trace_step),
        Route("/static/studio.js", script)])


SCRIPT = r"""
"use strict";
function $(id) { return document.getElementById(id); }
function play(main) {
  const table = main.dataset.table, token = main.dataset.token;
  let ws = null, last = null, shownSeat = null, covered = false, wait = 500, log = [];
  function draw() {
    if (!last) return;
    if (covered) {
      $("board").innerHTML = "";
      const c = document.createElement("div"); c.className = "cover";
      c.textContent = "Pass the screen to P" + (last.seat + 1) + ", then click here.";
      c.onclick = () => { covered = false; draw(); };
      $("board").appendChild(c);
      return;
    }
    $("board").innerHTML = last.html;   // the server's HTML: every text in it is escaped
    $("side").scrollTop = $("side").scrollHeight;
    for (const b of document.querySelectorAll("#board button.choice")) {
      b.onclick = () => ws.send(JSON.stringify({type: "choose", turn: last.turn, index: Number(b.dataset.index)}));
    }
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + "/ws/" + table + "/" + token);
    ws.onopen = () => { $("status").textContent = "connected"; wait = 500; shownSeat = null; };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "error") { $("status").textContent = msg.message; return; }
      if (msg.humans > 1 && shownSeat !== null && msg.seat !== shownSeat && msg.yours) covered = true;
      if (msg.log_reset) log = [];
      log.push(...msg.log);
      $("log").textContent = log.join("\n");
      shownSeat = msg.seat; last = msg; draw();
      $("status").textContent = msg.over ? "game over" : (msg.yours ? "your turn" : "waiting");
    };
    ws.onclose = () => { $("status").textContent = "reconnecting..."; setTimeout(connect, wait); wait = Math.min(wait * 2, 5000); };
  }
  connect();
}
function trace(main) {
  const path = main.dataset.path; let at = 0;
  const items = Array.from(document.querySelectorAll(".moves li"));
  async function show(n) {
    if (n < 0 || n > items.length) return;
    at = n;
    const seat = $("seat").value;
    const r = await fetch("/trace/step?path=" + encodeURIComponent(path) + "&n=" + n + "&seat=" + seat);
    const out = await r.json();
    if (out.error) { $("board").textContent = out.error; return; }
    $("board").innerHTML = out.html;   // escaped by the server
    $("curves").innerHTML = out.curves || "";
    items.forEach((li, i) => li.classList.toggle("at", i === n));
  }
  items.forEach((li) => li.onclick = () => show(Number(li.dataset.n)));
  $("back").onclick = () => show(at - 1); $("forward").onclick = () => show(at + 1);
  $("seat").onchange = () => show(at);
  document.addEventListener("keydown", (ev) => { if (ev.key === "ArrowLeft") show(at - 1); if (ev.key === "ArrowRight") show(at + 1); });
  show(0);
}
document.addEventListener("DOMContentLoaded", () => {
  if ($("play")) play($("play"));
  if ($("trace")) trace($("trace"));
});
"""
