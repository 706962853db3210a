"""Load on one studio server (issue 31): `--tables` clients at once, each opening a Duel table of a
person against a bot and playing it to its end over the websocket (the person's choices random),
then the next, for `--seconds`; the server is `lfdsl studio` in a process of its own on 127.0.0.1.

Prints the games finished, the errors (an error message, a dropped connection, a game that stopped
before its end: none is expected), the choices per second and the server's resident memory
(VmRSS, sampled every 10 s: flat once the finished games kept in memory reach their cap).

    .venv/bin/python benchmarks/studio_load.py --tables 50 --seconds 120
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def new_table(base: str, ruleset: str) -> tuple[str, str]:
    data = urllib.parse.urlencode({"ruleset": ruleset, "players": "2", "agents": "human,random"}).encode()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(base + "/new", data=data, timeout=60)
    except urllib.error.HTTPError as exc:
        if exc.code != 303:
            raise
        _, _, key, token = exc.headers["location"].split("/")
        return key, token
    raise RuntimeError("no table made")


async def client(n: int, base: str, ws_base: str, deadline: float, ruleset: str, stats: dict):
    import websockets
    rng = random.Random(n)
    while time.monotonic() < deadline:
        key, token = await asyncio.to_thread(new_table, base, ruleset)
        stats["started"] += 1
        try:
            async with websockets.connect(f"{ws_base}/ws/{key}/{token}", max_size=2 ** 24) as ws:
                msg = json.loads(await ws.recv())
                while not msg["over"]:
                    if not msg["yours"]:
                        raise RuntimeError("a board that is not the person's turn, and no game over")
                    count = len(set(re.findall(r'data-index="([0-9]+)"', msg["html"])))
                    await ws.send(json.dumps({"type": "choose", "turn": msg["turn"], "index": rng.randrange(count)}))
                    msg = json.loads(await ws.recv())
                    if msg.get("type") == "error":
                        raise RuntimeError(msg["message"])
                    stats["choices"] += 1
            stats["finished"] += 1
        except Exception as exc:  # counted and shown: none is expected
            stats["errors"].append(f"{type(exc).__name__}: {exc}")


async def main_async(args, base, ws_base, pid):
    stats = {"started": 0, "finished": 0, "choices": 0, "errors": []}
    deadline = time.monotonic() + args.seconds
    memory = []

    async def sample():
        start = time.monotonic()
        while time.monotonic() < deadline:
            memory.append((round(time.monotonic() - start), rss_mb(pid)))
            await asyncio.sleep(10)
    await asyncio.gather(sample(), *(client(n, base, ws_base, deadline, args.ruleset, stats)
                                     for n in range(args.tables)))
    return stats, memory


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--ruleset", default="rulesets/duel.lf")
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = os.path.join(tempfile.mkdtemp(), "load.sqlite")
    server = subprocess.Popen([sys.executable, "-m", "interpreter.tools.cli", "studio", "--root", ROOT, "--db", db,
                               "--port", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL)
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        began = time.monotonic()
        stats, memory = asyncio.run(main_async(args, base, ws_base, server.pid))
        took = time.monotonic() - began
    finally:
        server.terminate()
        server.wait(10)
    lost = stats["started"] - stats["finished"] - len(stats["errors"])
    print(f"{args.tables} tables at once for {args.seconds} s on one studio ({args.ruleset}, a person against random)")
    print(f"games finished: {stats['finished']} of {stats['started']} started; errors: {len(stats['errors'])}; "
          f"games lost (neither finished nor failed: cut off by the deadline): {lost}")
    print(f"choices: {stats['choices']} ({stats['choices'] / took:.0f} per second)")
    print("server memory (VmRSS, MB) by second: " + ", ".join(f"{t}s {m:.0f}" for t, m in memory))
    for e in stats["errors"][:10]:
        print("  error:", e)


if __name__ == "__main__":
    main()
