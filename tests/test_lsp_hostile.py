"""The language server under a hostile or careless client: it stops with the code the protocol
asks for, refuses a message it cannot hold without allocating it, answers every request (an error
for a position that is not one), reports half a character as an error, and analyses a burst of
edits once. Each server runs with a canary variable that must never be printed, and, where the
test is about memory, under the 1 GiB memory limit of the hostile-ruleset tests."""
from __future__ import annotations

import json
import resource
from unittest.mock import ANY

from interpreter.tools.lsp import EXIT_BAD_INPUT, FRAME_MAX_BYTES, End, Frames, Refused

from .conftest import ROOT
from .test_hostile import CANARY, MEMORY_LIMIT
from .test_lsp import RULES, Client

DUEL = ROOT / "rulesets" / "duel.lf"


def _memory_limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def started(**kwargs) -> Client:
    c = Client(**kwargs)
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.send("initialized", {}, request=False)
    return c


def frame(body: bytes, length: bytes | None = None) -> bytes:
    return b"Content-Length: " + (length if length is not None else b"%d" % len(body)) + b"\r\n\r\n" + body


def clean(c: Client) -> str:
    """The server's standard error, checked for what it must never hold."""
    errors = c.errors()
    assert "internal error" not in errors and "Traceback" not in errors and CANARY not in errors
    return errors


def reply(c: Client) -> dict:
    """The next message that is not a notification (those are kept for later)."""
    msg = c.read()
    while "method" in msg:
        c.notifications.append(msg)
        msg = c.read()
    return msg


def opened(c: Client, path, text: str) -> str:
    uri = f"file://{path}"
    c.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lfdsl", "version": 1,
                                                     "text": text}}, request=False)
    return uri


def test_shutdown_then_exit_ends_with_0_exit_alone_with_1_and_a_closed_input_with_0():
    c = started()
    assert c.request("shutdown", None) is None
    c.send("exit", None, request=False)
    assert c.wait() == 0 and clean(c) == ""
    c.close()

    c = started()
    c.send("exit", None, request=False)  # no shutdown first: the protocol says exit code 1
    assert c.wait() == 1 and clean(c) == ""
    c.close()

    c = started()
    c.proc.stdin.close()
    assert c.wait() == 0 and clean(c) == ""
    c.close()


def test_a_message_over_the_limit_is_dropped_and_the_next_one_answered():
    c = started(preexec_fn=_memory_limit)
    uri = opened(c, DUEL, DUEL.read_text())
    c.send_raw(frame(b"x" * (FRAME_MAX_BYTES + 1)))
    # Bodies that are not JSON-RPC get an error reply without an id, and the server goes on.
    for body, code in ((b"[" * 100_000, -32700), (b"\xff\xfe{}", -32700), (b"[1, 2]", -32600)):
        c.send_raw(frame(body))
        assert reply(c) == {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": ANY}}
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    assert hover is None or "contents" in hover
    shown = [m for m in c.notifications if m["method"] == "window/showMessage"]
    assert shown and "refused" in shown[0]["params"]["message"]
    c.close()
    assert c.wait() == 0 and "refused" in clean(c)


def test_a_content_length_of_99999999999_is_never_allocated():
    c = started(preexec_fn=_memory_limit)
    c.send_raw(frame(b"{}", b"99999999999"))
    c.proc.stdin.close()  # the promised bytes never come: the server stops as at any end of input
    assert c.wait() == 0
    assert "99,999,999,999 bytes was refused" in clean(c)
    c.close()


def test_a_malformed_header_stops_the_server_with_code_2_and_a_message():
    for length, said in ((b"abc", "`abc` is not a number of bytes"), (b"-5", "`-5` is not a number of bytes"),
                         (b"9" * 5000, "a header line longer than 1024 bytes")):
        c = started(preexec_fn=_memory_limit)
        c.send_raw(frame(b"{}", length))
        assert c.wait() == EXIT_BAD_INPUT  # the input is still open: the server stops by itself
        errors = clean(c)
        assert "message 3 of the client" in errors and said in errors, errors
        c.close()


def test_positions_out_of_range_get_an_error_reply_and_the_server_goes_on():
    c = started()
    uri = opened(c, DUEL, DUEL.read_text())
    for line, character in ((-1, 0), (0, -1), (2 ** 31, 0), (0, 2 ** 40)):
        position = {"line": line, "character": character}
        for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion"):
            wanted = c.send(method, {"textDocument": {"uri": uri}, "position": position})
            error = reply(c)
            assert error["id"] == wanted
            assert error["error"]["code"] == -32602 and "position" in error["error"]["message"]
    beyond = {"textDocument": {"uri": uri}, "position": {"line": 10 ** 6, "character": 2 ** 31 - 1}}
    assert c.request("textDocument/hover", beyond) is None
    assert c.request("textDocument/definition", beyond) is None
    line, text = next((i, t) for i, t in enumerate(DUEL.read_text().splitlines()) if t.startswith("def other(p)"))
    at = {"line": line, "character": text.index("next_player") + 1}
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    assert "next_player" in hover["contents"]["value"]
    c.close()
    assert c.wait() == 0
    clean(c)


def test_a_lone_surrogate_is_reported_where_it_stands_and_the_server_goes_on(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "lfdsl.toml").write_text("")
    path = tmp_path / "tiny.lf"
    broken = RULES.replace("doubel(1)", "double(1) # half \ud800 a pair")
    c = started()
    uri = opened(c, path, broken)
    diags = c.diagnostics_for(uri)
    at = broken.splitlines()[8].index("\ud800")
    assert len(diags) == 1 and "not valid text" in diags[0]["message"]
    assert diags[0]["range"]["start"] == {"line": 8, "character": at}
    c.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                      "contentChanges": [{"text": RULES}]}, request=False)
    assert "doubel" in c.diagnostics_for(uri)[0]["message"]
    c.close()
    assert c.wait() == 0
    clean(c)


def test_a_burst_of_200_edits_is_analysed_far_fewer_than_200_times_and_the_last_one_published():
    text = DUEL.read_text()
    c = started()
    uri = opened(c, DUEL, text)
    for version in range(2, 202):
        edit = text + f"\n# edit {version}\n" + ("def newest_name(n) = other(n)\n" if version == 201 else "")
        c.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                          "contentChanges": [{"text": edit}]}, request=False)
    # A request right after the burst sees the newest text (its last line is in no older one).
    at = {"line": len(edit.splitlines()) - 1, "character": edit.splitlines()[-1].index("other(") + 1}
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    assert "def other(p) = next_player(p)" in hover["contents"]["value"]
    published = []
    while not published or published[-1].get("version") != 201:
        published.append(c.diagnostics_for_params(uri))
    assert published[-1]["diagnostics"] == []
    assert len(published) <= 20, [p.get("version") for p in published]
    assert [p["version"] for p in published] == sorted(p["version"] for p in published)
    c.close()
    assert c.wait() == 0
    clean(c)


def test_frames_read_each_message_and_refuse_what_is_over_the_limit_in_chunks():
    def reader(data: bytes, log: list):
        position = 0

        def read(n):
            nonlocal position
            log.append(n)
            chunk = data[position:position + n]
            position += len(chunk)
            return chunk
        return read

    reads = []
    body = json.dumps({"jsonrpc": "2.0", "method": "x"}).encode()
    data = (b"content-length: 2\n\n{}" + frame(b"y" * 300_000) + b"Content-Type: x\r\n" + frame(body)
            + frame(b"{}", b"12"))
    frames = Frames(reader(data, reads), limit=100_000)
    assert frames.next() == b"{}"
    refused = frames.next()
    assert isinstance(refused, Refused) and refused.size == 300_000
    assert frames.next() == body
    end = frames.next()
    assert isinstance(end, End) and end.code == 0 and "inside a message" in end.message
    assert max(reads) <= 64 << 10  # nothing announced is read at once
    for bad, said in ((b"Content-Length 5\r\n\r\n", "without `:`"), (b"X: 1\r\n\r\n", "without Content-Length"),
                      (b"A" * 2000, "longer than"), (b"X: 1\r\n" * 17 + b"\r\n", "more than 16 header lines"),
                      (frame(b"{}", b"9" * 30), "a Content-Length of 30 digits")):
        end = Frames(reader(bad, [])).next()
        assert isinstance(end, End) and end.code == EXIT_BAD_INPUT and said in end.message
    assert Frames(reader(b"", [])).next().message is None


def test_a_hover_shows_the_rulesets_comment_and_line_as_text_not_markdown(tmp_path):
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "lfdsl.toml").write_text("")
    path = tmp_path / "tiny.lf"
    hostile = RULES.replace("doubel(1)", "double(1)").replace(
        "# Twice a number: the bonus of the rules.", "# <img src=x onerror=alert(1)> [click](https://example.com) **b**")
    assert hostile != RULES.replace("doubel(1)", "double(1)")
    c = started()
    uri = opened(c, path, hostile)
    line = hostile.splitlines()[8]
    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                             "position": {"line": 8, "character": line.index("double(") + 2}})
    text = hover["contents"]["value"]
    assert "\\<img src=x onerror=alert(1)\\> \\[click\\](https://example.com) \\*\\*b\\*\\*" in text
    assert "<img" not in text.replace("\\<img", "") and "[click]" not in text
    assert "```lfdsl\ndef double(n) = n * 2\n```" in text
    c.close()
    assert c.wait() == 0
    clean(c)
