"""The language server for `.lf` files (`lfdsl lsp`), over the Language Server Protocol on stdio.

A thin layer over the existing steps, built on pygls (the protocol, its messages and the open
documents are pygls's; nothing here parses JSON-RPC): as the designer types, the document's text
is loaded with its layers and cards exactly as `lfdsl check` loads the file (the unsaved text
stands in for the file, every other file is read from disk), and the diagnostics are published at
their line and column. Go-to-definition and hover use the resolver's bindings (a name's declaration,
and the comment lines written just above it); completion offers the declared names, the built-ins,
the language's words and, inside a form that names its element (`xs where c: ...`), that name. No
second parser: a file that does not parse gets its diagnostics and no other answer.

The server owns its input stream (`Frames`) rather than pygls's reader, so that every message is
bounded (`FRAME_MAX_BYTES`), a malformed header stops it with a message instead of a fault, a
request whose parameters do not fit the protocol (a negative position) gets an error reply, and
`exit` ends the process with the code the protocol asks for. Edits are analysed after a short quiet
time (`DEBOUNCE_SECONDS`), one at a time in a worker thread, and only the newest text of a document
is ever analysed: a burst of edits costs one analysis, not one per keystroke.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote, urlparse

from lsprotocol import types as T
from cattrs import transform_error
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from rulesdsl import ast as A
from rulesdsl.builtins import BUILTINS
from rulesdsl.errors import LanguageError
from rulesdsl.files import Project, edited
from rulesdsl.layers import load_ruleset
from rulesdsl.resolver import resolve

from ..engine import Engine

# The largest message read from the client. The largest rules file is 256 KiB (RULES_MAX_BYTES),
# sent as JSON text at most six times larger (every character escaped): 4 MiB leaves room for that
# and lets a too large document reach the loader's own "file too large", while the decoded JSON of
# the worst 4 MiB message stays near 120 MB.
FRAME_MAX_BYTES = 4 << 20
HEADER_LINE_MAX_BYTES = 1024    # a header line is `Content-Length: 123`; longer is not a header
HEADER_LINES_MAX = 16
LENGTH_DIGITS_MAX = 18          # more digits than any stream can carry (and than int() should see)
READ_CHUNK_BYTES = 64 << 10
DEBOUNCE_SECONDS = 0.15         # quiet time after an edit before it is analysed
EXIT_OK, EXIT_NO_SHUTDOWN, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 4  # as the command's

log = logging.getLogger("lfdsl.lsp")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# The language's words, as the reference grammar writes them (so completion never drifts from it),
# and the one it reads as a name where it stands, so that it may name a field too (`size private`).
_GRAMMAR = os.path.join(os.path.dirname(A.__file__), "grammar.lark")
with open(_GRAMMAR, encoding="utf-8") as _f:
    KEYWORDS = sorted(set(re.findall(r'"([a-z_]+)"', _f.read())) | {"size"})

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

    def __init__(self, path: str, text: str, generation: int = 0):
        self.path = path
        self.text = text
        self.generation = generation
        self.diagnostics: dict[str, list[T.Diagnostic]] = {path: []}
        self.program = None
        self.bindings: dict = {}
        self.named: dict = {}  # a named element (ast.Element) -> the expression it is bound in
        # JSON can carry half of a UTF-16 pair ("\ud800"), which no file can hold: it is reported
        # where it stands, as a file that is not UTF-8 stops at its first bad byte.
        bad = _LONE_SURROGATE.search(text)
        if bad is not None:
            at = bad.start()
            line = text.count("\n", 0, at) + 1
            col = at - text.rfind("\n", 0, at)
            self.diagnostics[path].append(T.Diagnostic(
                _range(line, col), f"not valid text: U+{ord(bad.group()):04X} is half of a character"
                "\nhint: retype this character (the editor sent only half of its UTF-16 pair)",
                severity=T.DiagnosticSeverity.Error, source="lfdsl"))
            return
        with edited({path: text.encode("utf-8")}):
            try:
                self.program = load_ruleset(path, Project.around(path))
                resolved = resolve(self.program)
                self.bindings, self.named = resolved.bindings, resolved.named
            except LanguageError as exc:
                self._add(exc.diagnostics)
                return
            except RecursionError:
                return
            try:
                self._add(Engine.load(path).model.warnings)
            except LanguageError as exc:
                self._add(exc.diagnostics)
            except RecursionError:
                pass

    def _add(self, diagnostics):
        for d in diagnostics:
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

    def elements_at(self, line: int, col: int) -> list:
        """The named elements (ast.Element) bound at a 1-based position of this document: those of
        every form whose expression holds it, outermost first."""
        out = []
        for elem, body in self.named.items():
            s = body.span
            if (s.path or self.path) == self.path and s.line and \
                    (s.line, s.col) <= (line, col) <= (s.end_line or s.line, s.end_col or s.col):
                out.append(elem)
        return sorted(out, key=lambda e: (e.span.line, e.span.col))

    def declaration_span(self, node):
        b = self.bindings.get(node)
        if b is None:
            return None
        decl = b.decl
        if b.kind == "local" and decl is not None:
            return getattr(decl.site, "span", None)
        return getattr(decl, "span", None) if decl is not None else None


# Characters Markdown reads as markup (emphasis, links, HTML, headings, tables, code): a ruleset's
# comments and paths are shown in a hover as written, never as markup of the editor's.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~&!#])")
_LINE_START = re.compile(r"^(\s*)([-+=]|\d+[.)])", re.M)


def markdown_text(text: str) -> str:
    """`text` escaped so that a Markdown renderer shows it as it is."""
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), _MARKDOWN.sub(r"\\\1", text))


def markdown_code(line: str) -> str:
    """A fenced block holding `line` as it is: the fence is longer than any run of backticks in it."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", line)), default=0))
    return f"{fence}lfdsl\n{line}\n{fence}\n"


def _doc_comment(path: str, line: int, text_of) -> list[str]:
    """The `#` comment lines written just above line `line` (1-based) of a file."""
    lines = text_of(path).splitlines()
    out = []
    i = line - 2
    while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
        out.insert(0, lines[i].lstrip()[1:].strip())
        i -= 1
    return out


# ---- the input stream ---------------------------------------------------------------------------
class End:
    """The input stream is over: `code` is the exit code, `message` what is logged (None when the
    client simply closed it)."""

    def __init__(self, code: int, message: str | None = None):
        self.code = code
        self.message = message


class Refused:
    """A message longer than the limit, announced with `size` bytes: its bytes are read and
    dropped before the next message."""

    def __init__(self, size: int):
        self.size = size


class Frames:
    """The messages of a `Content-Length` framed stream, read through `read(n)` (up to n bytes,
    b"" at its end), each either a body (bytes), a Refused message or the End.

    Nothing announced is allocated before it is checked: a body is read only when its length is
    at most `limit`; a longer one is read in chunks and dropped, so the stream stays in step and
    the server goes on with the next message. A header that cannot be read as one (a line that is
    too long or has no `:`, a length that is not a decimal number, no length at all) leaves no way
    to find where the next message starts: the stream ends there, with exit code 2."""

    def __init__(self, read, limit: int = FRAME_MAX_BYTES):
        self._read = read
        self._limit = limit
        self._buffer = bytearray()
        self._drop = 0
        self.count = 0

    def _fill(self) -> bool:
        chunk = self._read(READ_CHUNK_BYTES)
        self._buffer += chunk
        return bool(chunk)

    def _line(self):
        """The next line with its end of line, None at the end of the stream, End if too long."""
        while True:
            i = self._buffer.find(b"\n", 0, HEADER_LINE_MAX_BYTES)
            if i >= 0:
                line = bytes(self._buffer[:i + 1])
                del self._buffer[:i + 1]
                return line
            if len(self._buffer) >= HEADER_LINE_MAX_BYTES:
                return self._malformed(f"a header line longer than {HEADER_LINE_MAX_BYTES} bytes")
            if not self._fill():
                return None

    def _malformed(self, what: str) -> End:
        return End(EXIT_BAD_INPUT, f"message {self.count + 1} of the client: {what}; the messages after "
                                   "it cannot be told apart, so the server stops")

    def _skip(self) -> bool:
        """Drop the body of a refused message; False if the stream ends first."""
        while self._drop:
            if self._buffer:
                n = min(self._drop, len(self._buffer))
                del self._buffer[:n]
            else:
                n = len(self._read(min(self._drop, READ_CHUNK_BYTES)))
                if not n:
                    return False
            self._drop -= n
        return True

    def next(self):
        """The next body, Refused or End."""
        if not self._skip():
            return End(EXIT_OK, "the input ended inside a refused message")
        length = None
        lines = 0
        while True:
            line = self._line()
            if isinstance(line, End):
                return line
            if line is None:
                return End(EXIT_OK, "the input ended inside a header" if lines else None)
            header = line.rstrip(b"\r\n")
            if not header:
                if lines:
                    break
                continue  # a stray empty line between messages
            lines += 1
            if lines > HEADER_LINES_MAX:
                return self._malformed(f"more than {HEADER_LINES_MAX} header lines")
            name, colon, value = header.partition(b":")
            if not colon:
                return self._malformed("a header line without `:`")
            if name.strip().lower() != b"content-length":
                continue  # Content-Type, the only other header, says UTF-8 JSON, which is all we read
            value = value.strip()
            if not value.isdigit():
                return self._malformed(f"Content-Length `{_shown(value)}` is not a number of bytes")
            if len(value) > LENGTH_DIGITS_MAX:
                return self._malformed(f"a Content-Length of {len(value)} digits")
            length = int(value)
        if length is None:
            return self._malformed("a header without Content-Length")
        self.count += 1
        if length > self._limit:
            self._drop = length
            return Refused(length)
        while len(self._buffer) < length:
            if not self._fill():
                return End(EXIT_OK, "the input ended inside a message")
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        return body


def _shown(value: bytes) -> str:
    """A header value as printable ASCII, cut short: it is the client's text, not ours."""
    text = "".join(chr(b) if 32 <= b < 127 else "?" for b in value[:24])
    return text + ("..." if len(value) > 24 else "")


# ---- the output stream --------------------------------------------------------------------------
class Output:
    """pygls's writer on the server's standard output: a client that went away (a broken pipe)
    ends the server instead of faulting every later message, and `close` only stops writing, so
    the process's own standard output is never left closed under the command that runs it."""

    def __init__(self, stream, lost):
        self._stream = stream
        self._lost = lost
        self.closed = False

    def write(self, data: bytes) -> None:
        """Write one framed message, at once."""
        if self.closed:
            return
        try:
            self._stream.write(data)
            self._stream.flush()
        except (OSError, ValueError):
            self.closed = True
            self._lost()

    def close(self) -> None:
        """Write nothing more."""
        self.closed = True


class Protocol(LanguageServerProtocol):
    """pygls's protocol, but `exit` ends the serving loop with its exit code (0 after `shutdown`,
    1 without, as the protocol says) instead of raising SystemExit under a closed standard output."""

    @lsp_method(T.EXIT)
    def lsp_exit(self, *args):
        """The client's `exit` notification."""
        self._server.finish(EXIT_OK if self._server.shutdown_requested else EXIT_NO_SHUTDOWN)


# ---- the analyses ---------------------------------------------------------------------------------
class Documents:
    """The analyses of the open documents, kept up to date as edits arrive.

    Each change gives the document a new generation and (re)starts a quiet-time timer; only when
    the timer runs out is the newest text analysed, in one worker thread (so the server answers
    while a file is checked), and an analysis that a newer text made stale before it started is
    skipped. A request (hover, definition, completion) asks for the newest text's analysis, run at
    once if the timer has not run out yet; its diagnostics are published with the document's
    version."""

    def __init__(self, server: "Server", delay: float = DEBOUNCE_SECONDS):
        self.server = server
        self.delay = delay
        self.latest: dict[str, int] = {}
        self.done: dict[str, Analysis] = {}
        self.published: dict[str, set[str]] = {}
        self.waiting: dict[str, asyncio.Task] = {}
        self.running: dict[str, tuple[int, asyncio.Future]] = {}
        self.generations = 0
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lfdsl-analysis")

    def changed(self, uri: str) -> None:
        """The text of `uri` changed (opened, edited, saved): analyse it after the quiet time."""
        self.generations += 1
        self.latest[uri] = self.generations
        old = self.waiting.pop(uri, None)
        if old is not None:
            old.cancel()
        self.waiting[uri] = asyncio.ensure_future(self._later(uri))

    def closed(self, uri: str) -> None:
        """The document was closed: forget it, and clear what was published for it (an editor
        keeps a closed file's last diagnostics otherwise, though nothing checks it any more)."""
        old = self.waiting.pop(uri, None)
        if old is not None:
            old.cancel()
        mine = path_of(uri)
        for target in sorted(self.published.get(uri, set())):
            self.server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri if target == mine else uri_of(target), []))
        for table in (self.latest, self.done, self.published, self.running):
            table.pop(uri, None)

    def stop(self) -> None:
        """No more analyses: the waiting ones are dropped, the running one is left to finish."""
        for task in self.waiting.values():
            task.cancel()
        self.waiting.clear()
        self.latest.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def _later(self, uri: str) -> None:
        await asyncio.sleep(self.delay)
        # From here the task is no longer cancelled by a change: the analysis it starts skips itself
        # if a newer text came first.
        self.waiting.pop(uri, None)
        try:
            await self.fresh(uri)
        except Exception as exc:  # a defect of lfdsl: said in one line, and the next edit is checked
            log.error("internal error (%s) while checking %s; this is a fault of lfdsl, not of the file",
                      type(exc).__name__, path_of(uri))

    async def fresh(self, uri: str) -> Analysis | None:
        """The analysis of the newest text of `uri` (run now if needed), or the newest there is
        when a newer text came meanwhile; None for a document that is not open."""
        generation = self.latest.get(uri)
        if generation is None:
            return None
        have = self.done.get(uri)
        if have is not None and have.generation == generation:
            return have
        doc = self.server.workspace.get_text_document(uri)
        version = doc.version
        running = self.running.get(uri)
        if running is None or running[0] != generation:
            running = self.running[uri] = (generation, asyncio.get_running_loop().run_in_executor(
                self.pool, self._analyse, uri, generation, path_of(uri), doc.source))
        # Shielded: the requests waiting for the same check share it, and one of them cancelled
        # does not cancel it for the others.
        a = await asyncio.shield(running[1])
        if self.running.get(uri) is running:
            del self.running[uri]
        have = self.done.get(uri)
        if a is not None and uri in self.latest and (have is None or have.generation < a.generation):
            self.done[uri] = a
            if a.generation == self.latest[uri]:
                self._publish(uri, a, version)
        return self.done.get(uri)

    def _analyse(self, uri: str, generation: int, path: str, text: str) -> Analysis | None:
        """In the worker thread: the analysis, unless a newer text came while it waited its turn."""
        if self.latest.get(uri) != generation:
            return None
        return Analysis(path, text, generation)

    def _publish(self, uri: str, a: Analysis, version) -> None:
        # A file that had diagnostics and has none now gets an empty list, which clears it.
        for target in sorted(set(a.diagnostics) | self.published.get(uri, set())):
            mine = target == a.path
            self.server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri if mine else uri_of(target), a.diagnostics.get(target, []),
                version=version if mine else None))
        self.published[uri] = set(a.diagnostics)

    def text_of(self, path: str) -> str:
        """The text of a file: the open document's when it is open, else the file's on disk."""
        for a in self.done.values():
            if a.path == path:
                return a.text
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (OSError, ValueError):
            return ""


# ---- the server -----------------------------------------------------------------------------------
class Server(LanguageServer):
    """The language server: pygls's, with its own loop over the input (`serve`)."""

    def __init__(self):
        super().__init__("lfdsl", "1", protocol_cls=Protocol)
        self.documents = Documents(self)
        self.shutdown_requested = False
        self._finished: asyncio.Future | None = None
        self._output: Output | None = None

    def finish(self, code: int) -> None:
        """End the serving loop with this exit code (the first call decides)."""
        if self._finished is not None and not self._finished.done():
            self._finished.set_result(code)
            # Replies to requests still in flight are dropped: the client has said exit or gone.
            self._output.close()

    def serve(self, read, stream) -> int:
        """Serve messages read through `read(n)`, answering on the binary `stream`, until `exit`,
        the end of the input or a malformed header; returns the exit code."""
        return asyncio.run(self._serve(read, stream))

    async def _serve(self, read, stream) -> int:
        loop = asyncio.get_running_loop()
        self._finished = loop.create_future()
        self._output = Output(stream, lambda: loop.call_soon_threadsafe(self.finish, EXIT_OK))
        self.protocol.set_writer(self._output)
        # One message read ahead at most: the client cannot fill the server's memory faster than
        # the messages are handled.
        ready = threading.Semaphore(1)

        def deliver(item):
            try:
                if isinstance(item, bytes):
                    self.receive(item)
                elif isinstance(item, Refused):
                    self._refused(item)
                else:
                    if item.message:
                        log.warning("%s", item.message)
                    self.finish(item.code)
            except Exception as exc:  # a defect of lfdsl: said plainly, and the next message is served
                log.error("internal error (%s) while handling message %d; this is a fault of lfdsl, not of "
                          "the client", type(exc).__name__, frames.count)
            finally:
                ready.release()

        frames = Frames(read)

        def pump():
            while True:
                try:
                    item = frames.next()
                except OSError:
                    item = End(EXIT_OK, "the input cannot be read any more")
                except Exception as exc:  # a defect of lfdsl, never blamed on the client
                    item = End(EXIT_INTERNAL, f"internal error ({type(exc).__name__}) while reading the input; "
                                              "this is a fault of lfdsl, not of the client")
                ready.acquire()
                try:
                    loop.call_soon_threadsafe(deliver, item)
                except RuntimeError:
                    return  # the loop is over: the server has stopped
                if isinstance(item, End):
                    return

        # A daemon thread: a blocked read of the input never holds the process once it is done.
        threading.Thread(target=pump, name="lfdsl-input", daemon=True).start()
        code = await self._finished
        self.documents.stop()
        return code

    def report_server_error(self, error: Exception, source) -> None:
        """A notification pygls could not handle (a change to a document that is not open, a fault
        of a handler): one line in the log and to the user, without pygls's Python wording; a
        request has its error reply already."""
        if source is FeatureRequestError:
            return
        message = ("a notification from the editor could not be handled (a change to a document that "
                   "is not open?); LFDSL_DEBUG=1 logs the details")
        log.warning("%s", message)
        self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"lfdsl: {message}"))

    def _refused(self, item: Refused) -> None:
        message = (f"a message of {item.size:,} bytes was refused: the limit is {FRAME_MAX_BYTES:,} bytes "
                   "(the largest rules file is 256 KiB)")
        log.warning("%s", message)
        self.window_show_message(T.ShowMessageParams(T.MessageType.Error, f"lfdsl: {message}"))

    def receive(self, body: bytes) -> None:
        """Handle one message's body: JSON that is not a message, or a request whose parameters
        do not fit the protocol, gets an error reply (its id when it has one) and the server goes
        on."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            self._reply_error(None, -32700, "the message is not JSON text (UTF-8)")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            self._reply_error(_id_of(data), -32600, "the message is not a JSON-RPC 2.0 message")
            return
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcException as exc:
            cause = exc.__cause__
            where = "; ".join(transform_error(cause)[:3]) if cause is not None else "no detail"
            what = f"{str(data.get('method', 'a message'))[:80]}: invalid parameters ({where})"
            if "method" in data and "id" in data:
                self._reply_error(_id_of(data), exc.code, what)
            else:
                log.warning("%s", what)
            return
        self.protocol.handle_message(message)

    def _reply_error(self, msg_id, code: int, message: str) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
        data = body.encode("utf-8")
        self._output.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)


def _id_of(data):
    """A message's id when it is one JSON-RPC allows (a string or a whole number), else None."""
    msg_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool)):
        return msg_id
    return None


def build_server() -> Server:
    """The server, its features registered; `serve()` runs it."""
    server = Server()
    documents = server.documents

    @server.feature(T.SHUTDOWN)
    def shutdown(ls, params):
        server.shutdown_requested = True
        documents.stop()

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: T.DidOpenTextDocumentParams):
        documents.changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: T.DidChangeTextDocumentParams):
        documents.changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: T.DidSaveTextDocumentParams):
        documents.changed(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: T.DidCloseTextDocumentParams):
        documents.closed(params.text_document.uri)

    async def under_cursor(params):
        """(analysis, the name under the cursor) of a request, either None when there is none."""
        a = await documents.fresh(params.text_document.uri)
        if a is None:
            return None, None
        return a, a.node_at(params.position.line + 1, params.position.character + 1)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls, params: T.DefinitionParams):
        a, node = await under_cursor(params)
        span = a.declaration_span(node) if node is not None else None
        if span is None or not span.line:
            return None
        target = span.path or a.path
        return T.Location(uri_of(target) if target != a.path else params.text_document.uri,
                          _range(span.line, span.col, span.end_line, span.end_col))

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    async def hover(ls, params: T.HoverParams):
        a, node = await under_cursor(params)
        if node is None:
            return None
        b = a.bindings[node]
        if b.kind == "builtin":
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, f"built-in `{b.name}`: {BUILTINS[b.name].doc}"))
        span = a.declaration_span(node)
        if span is None or not span.line:
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, f"`{b.name}`: {b.kind}"))
        target = span.path or a.path
        source = documents.text_of(target).splitlines()
        line = source[span.line - 1].strip() if span.line <= len(source) else b.name
        doc = _doc_comment(target, span.line, documents.text_of)
        where = f"{os.path.relpath(target)}:{span.line}"
        body = (markdown_code(line) + ("\n".join(markdown_text(d) for d in doc) + "\n\n" if doc else "")
                + f"{b.kind}, {markdown_text(where)}")
        return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, body))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    async def completion(ls, params: T.CompletionParams):
        a = await documents.fresh(params.text_document.uri)
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
        for name, row in BUILTINS.items():
            items.setdefault(name, T.CompletionItem(name, kind=T.CompletionItemKind.Function, detail=row.doc))
        for word in KEYWORDS:
            items.setdefault(word, T.CompletionItem(word, kind=T.CompletionItemKind.Keyword))
        if a is not None:  # inside a form that names its element, the name reads the element
            for elem in a.elements_at(params.position.line + 1, params.position.character + 1):
                items[elem.name] = T.CompletionItem(elem.name, kind=T.CompletionItemKind.Variable,
                                                    detail=f"element, named at line {elem.span.line}")
        return T.CompletionList(is_incomplete=False, items=sorted(items.values(), key=lambda i: i.label))

    return server


class _OneLine(logging.Formatter):
    """Log records as one short line each, without the traceback pygls writes into some of them
    (LFDSL_DEBUG=1 keeps everything)."""

    def format(self, record: logging.LogRecord) -> str:
        first = (record.getMessage().splitlines() or [""])[0]
        return "lfdsl lsp: " + (first[:300] + "..." if len(first) > 300 else first)


def main() -> int:
    """`lfdsl lsp`: serve on stdin and stdout until the client says exit; returns the exit code."""
    handler = logging.StreamHandler(sys.stderr)
    if not os.environ.get("LFDSL_DEBUG"):
        handler.setFormatter(_OneLine())
    for name in ("pygls", "asyncio", log.name):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG if os.environ.get("LFDSL_DEBUG") else logging.WARNING)
        logger.propagate = False
    fd = sys.stdin.fileno()
    return build_server().serve(lambda n: os.read(fd, n), sys.stdout.buffer)
