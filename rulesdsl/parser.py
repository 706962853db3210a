"""Text to typed AST: the front door. A file parsed before, unchanged, is read back from the user's
cache folder; only a text not seen before loads the grammar's parser (syntax.py), which takes most
of a short command's time to import."""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from . import ast as A
from .errors import ParseError, make
from .files import RULES_MAX_BYTES, FileRefused, NotUtf8, decode, read_bytes


def _cache_folder() -> str | None:
    """The user's own cache folder for lfdsl, or None when there is no such folder we alone can
    write to: what is kept there is read back with pickle."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "lfdsl")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return folder


# ---- parsed files kept between processes ---------------------------------------------------------
# A file's syntax tree is kept in the cache folder, named by the hash of the parser's own code (the
# grammar, syntax.py, this module, the tree's classes), the file's path (spans carry it) and its text: a file
# parsed before, unchanged, is read back instead of parsed. At most this many are kept.
MAX_KEPT_TREES = 256


@functools.cache
def _code_tag() -> bytes:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for f in (here / "grammar.lark", here / "syntax.py", Path(__file__), Path(A.__file__)):
        h.update(f.read_bytes())
    return h.digest()


def _tree_file(source: str, path: str) -> str | None:
    folder = _cache_folder()
    if folder is None:
        return None
    h = hashlib.sha256(_code_tag())
    h.update(path.encode("utf-8", "surrogatepass") + b"\0" + source.encode("utf-8", "surrogatepass"))
    return os.path.join(folder, f"tree-{h.hexdigest()[:32]}.pickle")


def _kept_items(file: str | None):
    if file is None:
        return None
    try:
        with open(file, "rb") as f:
            return pickle.load(f)
    except Exception:  # none kept, or unreadable: parse the text
        return None


def _keep_items(file: str | None, items) -> None:
    if file is None:
        return
    try:
        data = pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)
        folder = os.path.dirname(file)
        kept = sorted((e for e in os.scandir(folder) if e.name.startswith("tree-")), key=lambda e: e.stat().st_mtime)
        for old in kept[:max(0, len(kept) - MAX_KEPT_TREES + 1)]:
            os.unlink(old.path)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tree-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, file)
    except (OSError, RecursionError, pickle.PicklingError):  # kept or not, the parse stands
        return


def parse(source: str, path: str = "<rules>") -> A.Program:
    """Parse a rules file; raise ParseError with a positioned diagnostic on bad syntax. A file
    parsed before with the same text and path is read back from the cache folder."""
    file = _tree_file(source, path)
    items = _kept_items(file)
    if items is None:
        from . import syntax  # the grammar's parser is loaded only when a text is parsed
        items = syntax.parse_text(source, path, "start")
        _keep_items(file, items)
    return A.Program(path, source, items)


def parse_expression(source: str, path: str = "<expression>"):
    """Parse one expression (used by scenario expectations)."""
    from . import syntax
    return syntax.parse_text(source, path, "expr")


def read_rules(path: str | Path) -> str:
    """The text of a rules file (regular, at most RULES_MAX_BYTES, UTF-8); ParseError otherwise."""
    try:
        data = read_bytes(path, RULES_MAX_BYTES)
    except FileRefused as exc:
        raise ParseError([make(str(path), None, 0, 0, f"cannot read this rules file: {exc.message}",
                               exc.hint)]) from None
    return decode_rules(data, path)


def decode_rules(data: bytes, path: str | Path) -> str:
    """The UTF-8 text of a rules file's bytes; a positioned ParseError at the first bad byte."""
    try:
        return decode(data)
    except NotUtf8 as exc:
        shown = data.decode("utf-8", errors="replace")
        raise ParseError([make(str(path), shown, exc.line, exc.col, "not valid UTF-8",
                               "save the file as UTF-8")]) from None


def parse_file(path: str | Path) -> A.Program:
    """Read and parse one rules file; an unreadable file is a positioned ParseError too."""
    return parse(read_rules(path), str(path))
