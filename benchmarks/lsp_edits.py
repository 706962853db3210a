"""Latency of the language server's diagnostics after a burst of edits: `lfdsl lsp` opens a ruleset,
receives EDITS quick full-text edits of it (as an editor sends them while someone types), and the
time from writing the last edit to reading the publishDiagnostics of that version is measured, with
the time from the first edit (a server that reads slowly holds the editor's writes back: the last
edit is written late) and how many analyses were published on the way.

    python benchmarks/lsp_edits.py                     # rulesets/duel.lf, 200 edits, 5 runs
    python benchmarks/lsp_edits.py --edits 50 --runs 3 rulesets/base.lf

It also times one analysis of the ruleset in this process (what the server does once the edits
stop), the least of the runs.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.tools.lsp import Analysis  # noqa: E402


def _message(method: str, params, msg_id=None) -> bytes:
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        msg["id"] = msg_id
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _next(stream) -> dict:
    length = 0
    for line in iter(stream.readline, b""):
        if line.strip() == b"":
            return json.loads(stream.read(length))
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    raise EOFError("the server stopped")


def one_burst(path: Path, edits: int) -> tuple[float, float, int]:
    """(seconds from the last edit to its diagnostics, from the first edit, diagnostics published)."""
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.tools.cli", "lsp"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    text, uri = path.read_text(), path.resolve().as_uri()

    def send(data: bytes):
        proc.stdin.write(data)
        proc.stdin.flush()
    try:
        send(_message("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, 1))
        while _next(proc.stdout).get("id") != 1:
            pass
        send(_message("initialized", {}))
        send(_message("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lfdsl", "version": 1,
                                                                "text": text}}))
        last = edits + 1
        first = time.perf_counter()
        for version in range(2, last + 1):
            send(_message("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": text + f"\n# edit {version}\n"}]}))
        sent = time.perf_counter()
        published = 0
        while True:
            msg = _next(proc.stdout)
            if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                published += 1
                if msg["params"].get("version") == last:
                    now = time.perf_counter()
                    return now - sent, now - first, published
    finally:
        send(_message("shutdown", None, 2))
        send(_message("exit", None))
        proc.wait(timeout=30)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset", nargs="?", default="rulesets/duel.lf")
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    path = (ROOT / args.ruleset).resolve()
    text = path.read_text()
    alone = []
    for _ in range(args.runs):
        start = time.perf_counter()
        Analysis(str(path), text)
        alone.append(time.perf_counter() - start)
    print(f"one analysis of {args.ruleset}: least {min(alone) * 1000:.0f} ms ({args.runs} runs, the first "
          f"{alone[0] * 1000:.0f} ms)")
    results = [one_burst(path, args.edits) for _ in range(args.runs)]
    latencies, totals = sorted(r[0] for r in results), sorted(r[1] for r in results)
    print(f"{args.edits} quick edits: the last one's diagnostics after a median {latencies[len(latencies) // 2]:.3f} s "
          f"(worst {latencies[-1]:.3f} s), {totals[len(totals) // 2]:.3f} s after the first edit "
          f"(worst {totals[-1]:.3f} s), {args.runs} runs; diagnostics published per burst: "
          f"{', '.join(str(r[2]) for r in results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
