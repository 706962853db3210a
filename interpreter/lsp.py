"""The language server for `.lf` files (`lfdsl lsp`), over the Language Server Protocol on stdio.

A thin layer over the existing steps, built on pygls (the protocol, its messages and the open
documents are pygls's; nothing here parses JSON-RPC): as the designer types, the document's text
is loaded with its layers and cards exactly as `lfdsl check` loads the file (the unsaved text
stands in for the file, every other file is read from disk), and the diagnostics are published at
their line and column. Go-to-definition and hover use the resolver's bindings (a name's declaration,
and the comment lines written just above it); completion offers the declared names, the built-ins
and the language's words. No second parser: a file that does not parse gets its diagnostics and no
other answer.
"""
from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlparse

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from rulesdsl import ast as A
from rulesdsl.errors import LanguageError
from rulesdsl.files import Project, edited
from rulesdsl.layers import load_ruleset
from rulesdsl.resolver import BUILTINS, resolve

from .program import Program

# The language's words, as the reference grammar writes them (so completion never drifts from it).
_GRAMMAR = os.path.join(os.path.dirname(A.__file__), "grammar.lark")
with open(_GRAMMAR, encoding="utf-8") as _f:
    KEYWORDS = sorted(set(re.findall(r'"([a-z_]+)"', _f.read())))

_DECL_KINDS = {"param": T.CompletionItemKind.Constant, "kind": T.CompletionItemKind.Class,
               "enum": T.CompletionItemKind.Enum, "def": T.CompletionItemKind.Function,
               "action": T.CompletionItemKind.Method, "routine": T.CompletionItemKind.Method,
               "zone": T.CompletionItemKind.Variable, "counter": T.CompletionItemKind.Variable,
               "grid": T.CompletionItemKind.Variable, "track": T.CompletionItemKind.Variable,
               "marker": T.CompletionItemKind.Variable, "piece": T.CompletionItemKind.Variable}


def path_of(uri: str) -> str:
    """The file path of a `file:` URI."""
    return os.path.normpath(unquote(urlparse(uri).path))


def uri_of(path: str) -> str:
    return "file://" + os.path.abspath(path)


def _range(line: int, col: int, end_line: int = 0, end_col: int = 0) -> T.Range:
    """An LSP range (from 0) from 1-based positions; without an end, to the end of the word."""
    start = T.Position(max(line - 1, 0), max(col - 1, 0))
    if end_line and end_col:
        return T.Range(start, T.Position(end_line - 1, end_col - 1))
    return T.Range(start, T.Position(start.line, start.character + 1))


class Analysis:
    """What the server knows of one document: its diagnostics by file, and when it parses, the
    program and the resolver's bindings."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.diagnostics: dict[str, list[T.Diagnostic]] = {path: []}
        self.program = None
        self.bindings: dict = {}
        with edited({path: text.encode("utf-8")}):
            try:
                self.program = load_ruleset(path, Project.around(path))
                self.bindings = resolve(self.program).bindings
            except LanguageError as exc:
                self._add(exc)
                return
            except RecursionError:
                return
            try:
                Program.load(path)
            except LanguageError as exc:
                self._add(exc)
            except RecursionError:
                pass

    def _add(self, exc: LanguageError):
        for d in exc.diagnostics:
            target = os.path.normpath(d.path) if d.path else self.path
            message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
            severity = T.DiagnosticSeverity.Warning if d.severity == "warning" else T.DiagnosticSeverity.Error
            self.diagnostics.setdefault(target, []).append(T.Diagnostic(
                _range(d.line, d.col, d.end_line, d.end_col), message, severity=severity, source="lfdsl"))

    # ---- what is under the cursor -------------------------------------------------------------
    def node_at(self, line: int, col: int):
        """The name (or called name) at a 1-based position of this document, the innermost one."""
        best = None
        for node in self.bindings:
            s = node.span
            if (s.path or self.path) != self.path or not s.line:
                continue
            if (s.line, s.col) <= (line, col) and (line, col) < (s.end_line or s.line, s.end_col or s.col + 1):
                size = (s.end_line - s.line, s.end_col - s.col)
                if best is None or size < best[0]:
                    best = (size, node)
        return best[1] if best else None

    def declaration_span(self, node):
        b = self.bindings.get(node)
        if b is None:
            return None
        decl = b.decl
        if b.kind == "local" and decl is not None:
            return getattr(decl.site, "span", None)
        return getattr(decl, "span", None) if decl is not None else None


def _doc_comment(path: str, line: int, text_of) -> list[str]:
    """The `#` comment lines written just above line `line` (1-based) of a file."""
    lines = text_of(path).splitlines()
    out = []
    i = line - 2
    while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
        out.insert(0, lines[i].lstrip()[1:].strip())
        i -= 1
    return out


def build_server() -> LanguageServer:
    """The server, its features registered; `start_io()` runs it."""
    server = LanguageServer("lfdsl", "1")
    analyses: dict[str, Analysis] = {}

    def text_of(path: str) -> str:
        for a in analyses.values():
            if a.path == path:
                return a.text
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError:
            return ""

    def refresh(uri: str):
        doc = server.workspace.get_text_document(uri)
        path = path_of(uri)
        old = analyses.get(uri)
        a = analyses[uri] = Analysis(path, doc.source)
        touched = set(a.diagnostics) | (set(old.diagnostics) if old else set())
        for target in sorted(touched):
            server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri_of(target) if target != path else uri, a.diagnostics.get(target, [])))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: T.DidOpenTextDocumentParams):
        refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: T.DidChangeTextDocumentParams):
        refresh(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: T.DidSaveTextDocumentParams):
        refresh(params.text_document.uri)

    def under_cursor(params):
        """(analysis, the name under the cursor) of a request, either None when there is none."""
        a = analyses.get(params.text_document.uri)
        if a is None:
            return None, None
        return a, a.node_at(params.position.line + 1, params.position.character + 1)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: T.DefinitionParams):
        a, node = under_cursor(params)
        span = a.declaration_span(node) if node is not None else None
        if span is None or not span.line:
            return None
        target = span.path or a.path
        return T.Location(uri_of(target) if target != a.path else params.text_document.uri,
                          _range(span.line, span.col, span.end_line, span.end_col))

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: T.HoverParams):
        a, node = under_cursor(params)
        if node is None:
            return None
        b = a.bindings[node]
        if b.kind == "builtin":
            lo, hi, what = BUILTINS[b.name]
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, f"built-in `{b.name}`: {what}"))
        span = a.declaration_span(node)
        if span is None or not span.line:
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, f"`{b.name}`: {b.kind}"))
        target = span.path or a.path
        source = text_of(target).splitlines()
        line = source[span.line - 1].strip() if span.line <= len(source) else b.name
        doc = _doc_comment(target, span.line, text_of)
        where = f"{os.path.relpath(target)}:{span.line}"
        body = f"```lfdsl\n{line}\n```\n" + ("\n".join(doc) + "\n\n" if doc else "") + f"{b.kind}, {where}"
        return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, body))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    def completion(ls, params: T.CompletionParams):
        a = analyses.get(params.text_document.uri)
        items = {}
        if a is not None and a.program is not None:
            for item in a.program.items:
                name = getattr(item, "name", None)
                if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                    kind = type(item).__name__.removesuffix("Decl").lower()
                    if isinstance(item, A.ActionDecl) and item.routine:
                        kind = "routine"
                    items[name] = T.CompletionItem(name, kind=_DECL_KINDS.get(kind, T.CompletionItemKind.Variable),
                                                   detail=kind)
        for name, (_, _, what) in BUILTINS.items():
            items.setdefault(name, T.CompletionItem(name, kind=T.CompletionItemKind.Function, detail=what))
        for word in KEYWORDS:
            items.setdefault(word, T.CompletionItem(word, kind=T.CompletionItemKind.Keyword))
        return T.CompletionList(is_incomplete=False, items=sorted(items.values(), key=lambda i: i.label))

    return server


def main():
    """`lfdsl lsp`: serve on stdin and stdout until the client says exit."""
    build_server().start_io()
