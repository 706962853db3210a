"""The language server (`lfdsl lsp`), driven over the Language Server Protocol as an editor drives
it: a typo's diagnostic at its line and column, a definition found, a hover with the declaration's
comment, completion of declared names, and the diagnostics cleared once the text is fixed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading

import pytest

from .conftest import ROOT
from .test_hostile import CANARY

RULES = """game "Tiny" { players 2..2 cards "tiny.toml" }
kind Token { value: int }
zone pile: row of Token
# Twice a number: the bonus of the rules.
def double(n) = n * 2
setup { create defs(Token) into pile }
round {
    phase play each p {
        log "x", double(count(pile)) + doubel(1)
        win p "done"
    }
}
"""


class Client:
    """A minimal LSP client: Content-Length framed JSON-RPC over the server's pipes. The server
    runs with a canary variable in its environment and its standard error kept in `errors()`; a
    server still running after `deadline` seconds is killed, so a lost answer fails the test (its
    reader sees the end of the output) instead of hanging it."""

    def __init__(self, preexec_fn=None, deadline=60.0):
        self._errors = tempfile.TemporaryFile()
        env = dict(os.environ, LFDSL_CANARY=CANARY)
        self.proc = subprocess.Popen([sys.executable, "-m", "interpreter.tools.cli", "lsp"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors,
                                     preexec_fn=preexec_fn)
        self._watchdog = threading.Timer(deadline, self.proc.kill)
        self._watchdog.start()
        self.next_id = 0
        self.notifications = []

    def send(self, method, params, request=True):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return msg.get("id")

    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def errors(self) -> str:
        """What the server wrote on its standard error so far."""
        if not self._errors.closed:
            self._errors.seek(0)
            self._said = self._errors.read().decode("utf-8", errors="replace")
        return self._said

    def wait(self) -> int | None:
        """The server's exit code once it has stopped (None if the watchdog had to kill it)."""
        code = self.proc.wait()
        killed = not self._watchdog.is_alive() and code == -9
        self._watchdog.cancel()
        return None if killed else code

    def read(self):
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        wanted = self.send(method, params)
        while True:
            msg = self.read()
            if msg.get("id") == wanted and "method" not in msg:
                return msg.get("result")
            if "method" in msg:
                self.notifications.append(msg)

    def diagnostics_for(self, uri):
        return self.diagnostics_for_params(uri)["diagnostics"]

    def diagnostics_for_params(self, uri):
        """The next publishDiagnostics of `uri`: its diagnostics and the document's version."""
        while True:
            for i, msg in enumerate(self.notifications):
                if msg["method"] == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                    return self.notifications.pop(i)["params"]
            msg = self.read()
            if "method" in msg:
                self.notifications.append(msg)

    def close(self):
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None)
                self.send("exit", None, request=False)
                self.proc.wait(timeout=10)
        finally:
            self._watchdog.cancel()
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.errors()
            for stream in (self.proc.stdin, self.proc.stdout, self._errors):
                stream.close()


@pytest.fixture
def client():
    c = Client()
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.send("initialized", {}, request=False)
    yield c
    c.close()


def _opened(tmp_path, client, text=RULES) -> str:
    """The uri of the small ruleset (or of `text`), written in a project in `tmp_path` and opened in
    the editor."""
    (tmp_path / "tiny.toml").write_text((ROOT / "tests" / "rulesets" / "tiny.toml").read_text())
    (tmp_path / "lfdsl.toml").write_text("")
    path = tmp_path / "tiny.lf"
    path.write_text(text)
    uri = f"file://{path}"
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lfdsl", "version": 1,
                                                          "text": text}}, request=False)
    return uri


def test_the_server_reports_a_typo_finds_a_definition_hovers_and_completes(tmp_path, client):
    uri = _opened(tmp_path, client)
    diags = client.diagnostics_for(uri)
    assert len(diags) == 1
    d = diags[0]
    assert "doubel" in d["message"] and "did you mean `double`" in d["message"]
    # Line 9 of the file, column 40 (both from 1): `doubel` in the log line.
    assert d["range"]["start"] == {"line": 8, "character": RULES.splitlines()[8].index("doubel")}

    line = RULES.splitlines()[8]
    at = {"line": 8, "character": line.index("double(") + 2}
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    assert found["uri"] == uri and found["range"]["start"] == {"line": 4, "character": 0}

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    text = hover["contents"]["value"]
    assert "def double(n) = n * 2" in text and "Twice a number: the bonus of the rules." in text

    builtin = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": {"line": 8, "character": line.index("count(") + 1}})
    assert "built-in `count`" in builtin["contents"]["value"]

    items = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": at})
    labels = {i["label"] for i in items["items"]}
    assert {"double", "pile", "Token", "count", "choose", "together", "secretly", "pass", "next", "previous",
            "hand", "begin", "finish", "owner", "private", "hidden", "size", "display", "internal", "cell",
            "label"} <= labels

    fixed = RULES.replace("doubel(1)", "double(1)")
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                           "contentChanges": [{"text": fixed}]}, request=False)
    assert client.diagnostics_for(uri) == []


def test_a_card_database_error_is_published_for_the_card_file(tmp_path, client):
    (tmp_path / "tiny.toml").write_text('[[Token]]\nname = "Red"\nvalue = "one"\n')
    (tmp_path / "lfdsl.toml").write_text("")
    path = tmp_path / "tiny.lf"
    text = RULES.replace("doubel(1)", "double(1)")
    path.write_text(text)
    uri = f"file://{path}"
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lfdsl", "version": 1,
                                                          "text": text}}, request=False)
    card_uri = f"file://{tmp_path / 'tiny.toml'}"
    diags = client.diagnostics_for(card_uri)
    assert diags and "expected int" in diags[0]["message"] and diags[0]["range"]["start"]["line"] == 2


def test_the_textmate_grammar_knows_every_word_and_built_in():
    import re

    from rulesdsl.resolver import BUILTINS
    grammar = json.loads((ROOT / "editors" / "vscode" / "syntaxes" / "lfdsl.tmLanguage.json").read_text())
    patterns = []

    def collect(node):
        if isinstance(node, dict):
            if "match" in node:
                patterns.append((node.get("name", ""), re.compile(node["match"])))
            for v in node.values():
                collect(v)
        elif isinstance(node, list):
            for v in node:
                collect(v)
    collect(grammar["repository"])
    words = set(re.findall(r'"([a-z_]+)"', (ROOT / "rulesdsl" / "grammar.lark").read_text()))
    for word in sorted(words):
        assert any(p.fullmatch(word) for _, p in patterns), word
    for name in BUILTINS:
        assert any(scope.startswith("support.function") and p.match(f"{name}(") for scope, p in patterns), name

    def scope_of(text):
        return next(scope for scope, p in patterns if p.match(text))
    assert scope_of("# a comment").startswith("comment")
    assert scope_of('"a text"').startswith("string")
    declared = next(p for scope, p in patterns if "declaration" in scope or p.pattern.startswith("\\b(def|"))
    assert declared.match("def double").group(2) == "double"
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text())
    assert package["contributes"]["grammars"][0]["scopeName"] == grammar["scopeName"]


def test_closing_a_document_clears_its_diagnostics(tmp_path, client):
    uri = _opened(tmp_path, client)
    assert len(client.diagnostics_for(uri)) == 1
    client.send("textDocument/didClose", {"textDocument": {"uri": uri}}, request=False)
    assert client.diagnostics_for(uri) == []


def test_a_named_element_is_completed_inside_its_form_and_a_warning_is_published(tmp_path, client):
    text = RULES.replace('log "x", double(count(pile)) + doubel(1)',
                         'log "x", count(pile where tok: tok.value > double(1))\n'
                         '        log "y", count(pile where not any(pile where it.value == it.value - 1))')
    uri = _opened(tmp_path, client, text)
    (warning,) = client.diagnostics_for(uri)
    assert warning["severity"] == 2 and "`it` here is the element of the inner `where`" in warning["message"]
    lines = text.splitlines()
    assert warning["range"]["start"] == {"line": 9, "character": lines[9].rindex("it.value")}

    def labels(line, character):
        items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                           "position": {"line": line, "character": character}})
        return {i["label"]: i for i in items["items"]}
    inside = labels(8, lines[8].index("tok.value") + 1)
    assert "tok" in inside and inside["tok"]["detail"] == "element, named at line 9"
    assert "tok" not in labels(8, lines[8].index("count(")) and "tok" not in labels(10, 8)

    at = {"line": 8, "character": lines[8].index("tok.value") + 1}
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": at})
    name = lines[8].index("tok:")
    assert found["range"] == {"start": {"line": 8, "character": name}, "end": {"line": 8, "character": name + 3}}
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    assert "pile where tok: tok.value" in hover["contents"]["value"]
