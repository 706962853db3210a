"""Reading the files a ruleset names, confined to its project and capped in size.

A ruleset is untrusted data: it may name other files (`extends`, `cards`), and those names are
checked here before anything is opened. A named file must lie inside the project of the ruleset the
user started from (after symbolic links are resolved), be a regular file (no device, FIFO or
folder) and be no larger than the cap of its kind. The refusal never shows any of the refused
file's content.

The project is the folder tree under the nearest folder, from the starting ruleset's own folder
upwards, that holds a `lfdsl.toml` marker; without one, the starting ruleset's folder. The user can
add search roots on the command line (`--path DIR`).

The same rule holds for every file lfdsl reads back (a trace, a saved game): the files it names are
checked here against its own project, as if a ruleset had named them.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import io
import os
import stat
from pathlib import Path

import attrs

MARKER = "lfdsl.toml"

# Caps on what one file may hold, checked before it is read.
RULES_MAX_BYTES = 256 << 10    # a rules file (`.lf`): 256 KiB, about 15 times the largest shipped
DATA_MAX_BYTES = 4 << 20       # a card database or a scenario file: 4 MiB


# Files given in memory (path -> bytes) that stand in for the disk while set: a pickled engine is
# rebuilt from the texts it carries, reading nothing.
_OVERLAY: contextvars.ContextVar = contextvars.ContextVar("lfdsl_overlay", default=None)


# Files being edited (path -> bytes), read instead of the disk for those paths only, the disk for
# every other: an editor's unsaved text is checked as it stands (the language server).
_EDITED: contextvars.ContextVar = contextvars.ContextVar("lfdsl_edited", default=None)


@contextlib.contextmanager
def edited(files: dict):
    """Within the block, the given paths (normalised) read as the given bytes; the rest, and every
    check of what a ruleset may name, as usual."""
    token = _EDITED.set({os.path.normpath(str(k)): v for k, v in files.items()})
    try:
        yield
    finally:
        _EDITED.reset(token)


@contextlib.contextmanager
def overlay(files: dict):
    """Within the block, `read_bytes` and `check_readable` see only `files` (path -> bytes)."""
    token = _OVERLAY.set(dict(files))
    try:
        yield
    finally:
        _OVERLAY.reset(token)


NUL_REFUSED = "a file name cannot hold a NUL character"


class FileRefused(Exception):
    """A file the ruleset may not read, or cannot be read: `message` says why, never what it holds."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class NotUtf8(Exception):
    """The bytes are not UTF-8: `line` and `col` (1-based) locate the first bad byte."""

    def __init__(self, line: int, col: int):
        super().__init__(f"not valid UTF-8 at line {line}, column {col}")
        self.line = line
        self.col = col


@attrs.frozen
class Project:
    """The folders a ruleset's file names may point into (real paths, symbolic links resolved)."""

    roots: tuple

    @classmethod
    def around(cls, start: str | Path, extra=()) -> "Project":
        """The project of the ruleset at `start`, plus the user's own search roots."""
        folder = Path(_real(os.path.dirname(os.path.abspath(str(start)))))
        root = folder
        for candidate in (folder, *folder.parents):
            if (candidate / MARKER).is_file():
                root = candidate
                break
        roots = [str(root)] + [_real(str(p)) for p in extra]
        return cls(tuple(dict.fromkeys(roots)))

    def contains(self, real: str) -> bool:
        """True if the real path `real` lies under one of the roots."""
        return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)

    def describe(self) -> str:
        """The roots, for messages."""
        return " or ".join(self.roots)


def _real(path: str) -> str:
    """The real path; a name holding a NUL, which no file can have, stays as written (absolute), so
    that it widens nothing and the read that follows refuses it with its own message."""
    if "\0" in path:
        return os.path.abspath(path)
    return os.path.realpath(path)


def named_path(written: str, naming_file: str) -> str:
    """The path a ruleset writes (`extends "x.lf"`), resolved against the folder of the naming file."""
    return os.path.normpath(os.path.join(os.path.dirname(naming_file), written))


def check_name(written: str, resolved: str, project: Project, kind: str = "ruleset") -> None:
    """Refuse a name a file of this `kind` (a ruleset, a trace, a saved game) may not use: holding
    a NUL, absolute, escaping with `..`, or leaving the project.

    Under an overlay only the files it holds can be read, and they passed this check when they
    were first loaded: the names are not held against the disk of wherever the rebuild runs."""
    if "\0" in written or "\0" in resolved:
        raise FileRefused(NUL_REFUSED)
    if _OVERLAY.get() is not None:
        return
    if os.path.isabs(written) or written.startswith("~"):
        raise FileRefused(f"a {kind} may only name files by a path relative to its own folder",
                          "write the path from this file's folder, e.g. \"cards/game.toml\"")
    real = os.path.realpath(resolved)
    if not project.contains(real):
        raise FileRefused(f"this file is outside the {kind}'s project",
                          f"a {kind} may only name files under {project.describe()}; "
                          f"put a `{MARKER}` in a common parent folder, or pass --path")


def check_readable(path: str | Path, limit: int) -> None:
    """Refuse, without opening it, anything but an existing regular file of at most `limit` bytes."""
    path = str(path)
    if "\0" in path:
        raise FileRefused(NUL_REFUSED)
    being_edited = _EDITED.get()
    if being_edited is not None and os.path.normpath(path) in being_edited:
        if len(being_edited[os.path.normpath(path)]) > limit:
            raise FileRefused(f"file too large: {len(being_edited[os.path.normpath(path)]):,} bytes, "
                              f"the limit is {limit:,}")
        return
    files = _OVERLAY.get()
    if files is not None:
        if path not in files:
            raise FileRefused("file not found")
        if len(files[path]) > limit:
            raise FileRefused(f"file too large: {len(files[path]):,} bytes, the limit is {limit:,}")
        return
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FileRefused("file not found") from None
    except OSError as exc:
        raise FileRefused(f"cannot read this file: {exc.strerror or 'access refused'}") from None
    if stat.S_ISDIR(info.st_mode):
        raise FileRefused("this is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused("this is not a regular file (a device, a pipe or a socket)")
    if info.st_size > limit:
        raise FileRefused(f"file too large: {info.st_size:,} bytes, the limit is {limit:,}")


def open_bytes(path: str | Path, limit: int):
    """A binary stream of a regular file of at most `limit` bytes (checked as `read_bytes` checks
    it), for a reader that takes it piece by piece; the caller closes it, and reads no more than
    `limit` bytes from it (the file may grow after the check)."""
    path = str(path)
    check_readable(path, limit)
    being_edited = _EDITED.get()
    if being_edited is not None and os.path.normpath(path) in being_edited:
        return io.BytesIO(being_edited[os.path.normpath(path)])
    files = _OVERLAY.get()
    if files is not None:
        return io.BytesIO(files[path])
    try:
        # Non-blocking: if the name was swapped for a pipe since the check, open does not wait.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileRefused(f"cannot read this file: {exc.strerror or 'access refused'}") from None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise FileRefused("this is not a regular file (a device, a pipe or a socket)")
    return f


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileRefused otherwise."""
    with open_bytes(path, limit) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise FileRefused(f"file too large: more than {limit:,} bytes")
    return data


def decode(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark is dropped); NotUtf8 locates the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        start = before.rfind(b"\n") + 1
        col = len(before[start:].decode("utf-8", errors="replace")) + 1
        raise NotUtf8(line, col) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str | Path, limit: int) -> str:
    """`read_bytes` then `decode`."""
    return decode(read_bytes(path, limit))


def digest(text: str) -> str:
    """The hash recorded in traces for a file that was loaded (of its UTF-8 text)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
