"""The engine's API is the only door between the engine and the rooms that use games.

Read from the source files with `ast`, not by running them: a room (bots, lab, environments, table,
language server, command line, agents, replay, scenarios, saved records) reads no internal of a game
(the pending decision's record, the frame stack, a procedure's instructions, a view's skeleton, the
compiled program) and imports no engine internal; no engine module imports a room. Where a room
legitimately uses one of those names for something else, the allow-list says so.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from interpreter.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "interpreter"

# The rooms: everything that uses games rather than runs them.
ROOM_PACKAGES = ("bots", "lab", "env", "table")
ROOM_MODULES = ("tools.lsp", "tools.cli", "tools.agents", "tools.replay", "tools.scenario", "tools.records")
# The engine: the compiler, the game's data and its run, and the API over them.
ENGINE_MODULES = ("compile.compiler", "compile.pysource", "compile.backend", "core.ir", "compile.params",
                  "compile.program", "core.state", "core.chance", "core.present", "core.view", "core.runtime", "engine",
                  "core.position", "tools.trace")
# What a room may import of the engine: the API (engine.py), chance sources and arranged starts that
# the API takes, parameter values (what `Engine.load` and `--set` take, with their errors), trace sinks.
ROOM_MAY_IMPORT = {"interpreter.engine", "interpreter.core.chance", "interpreter.core.position", "interpreter.compile.params",
                   "interpreter.tools.trace"}
# Attributes that are a game's or a program's internals.
INTERNALS = {"pending", "stack", "ir", "procs", "spans", "how", "skeleton", "_deal", "program"}
# (file, attribute): why that room may name it.
ALLOWED = {
    ("interpreter/tools/lsp.py", "program"): "the language server's own parsed ruleset (rulesdsl's syntax tree), "
                                       "which it keeps for definitions and hover; not an engine's program",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _files(names_and_packages) -> list[Path]:
    """The source files of these modules and packages of `interpreter/` that exist."""
    out = []
    for name in names_and_packages:
        folder = PACKAGE.joinpath(*name.split("."))
        if folder.is_dir():
            out.extend(sorted(folder.glob("*.py")))
        elif folder.with_suffix(".py").is_file():
            out.append(folder.with_suffix(".py"))
    return out


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (at any depth of its code), relative imports resolved; `from P
    import N` counts as importing P.N too, since N may be a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.append((node.lineno, module))
            out.extend((node.lineno, f"{module}.{a.name}") for a in node.names)
    return out


def _is_room(module: str) -> bool:
    return any(module == f"interpreter.{r}" or module.startswith(f"interpreter.{r}.")
               for r in ROOM_PACKAGES + ROOM_MODULES)


def _is_engine(module: str) -> bool:
    return module in {f"interpreter.{m}" for m in ENGINE_MODULES}


def room_violations() -> list[str]:
    """Each internal a room reads or imports, as `file:line: what`."""
    out = []
    for path in _files(ROOM_PACKAGES + ROOM_MODULES):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A function of that name called from a module (`unparse.program(...)`) reads no internal.
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in INTERNALS and id(node) not in called
                    and (rel, node.attr) not in ALLOWED):
                out.append(f"{rel}:{node.lineno}: reads `.{node.attr}`")
        for line, module in _imports(path):
            if _is_engine(module) and module not in ROOM_MAY_IMPORT:
                out.append(f"{rel}:{line}: imports {module}")
    return out


def engine_violations() -> list[str]:
    """Each room an engine module imports, as `file:line: what`."""
    out = []
    for path in _files(ENGINE_MODULES):
        rel = path.relative_to(ROOT).as_posix()
        out.extend(f"{rel}:{line}: imports the room {module}" for line, module in _imports(path) if _is_room(module))
    return out


def test_the_lists_name_files_that_exist():
    for name in ROOM_PACKAGES:
        assert (PACKAGE / name / "__init__.py").is_file(), name
    for name in ROOM_MODULES + ENGINE_MODULES:
        assert PACKAGE.joinpath(*name.split(".")).with_suffix(".py").is_file(), name
    assert all(Path(ROOT, f).is_file() for f, _ in ALLOWED)


def test_rooms_use_the_engine_api_only():
    assert room_violations() == []


def test_the_engine_imports_no_room():
    assert engine_violations() == []


def test_the_engine_forwards_nothing():
    # Every name of the API is written on Engine itself: none reads through to the program.
    assert "__getattr__" not in vars(Engine)
    assert not hasattr(Engine(None), "procs")


def test_the_check_sees_what_it_forbids(tmp_path, monkeypatch):
    """The checks find a room reading a game's internals, a room importing the run, and the engine
    importing a room (in a small tree of its own under tmp_path; the real one stays as it is)."""
    room = tmp_path / "interpreter" / "bots"
    room.mkdir(parents=True)
    (room / "greedy.py").write_text("from ..core.runtime import Run\n\ndef f(st, v):\n"
                                    "    return st.pending['player'], v.skeleton, st.stack[-1]\n")
    (tmp_path / "interpreter" / "core").mkdir()
    (tmp_path / "interpreter" / "core" / "view.py").write_text("def g():\n    from ..bots import greedy\n")
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "ROOT", tmp_path)
    monkeypatch.setattr(here, "PACKAGE", tmp_path / "interpreter")
    found = room_violations()
    assert "interpreter/bots/greedy.py:1: imports interpreter.core.runtime" in found
    assert {"interpreter/bots/greedy.py:4: reads `.pending`", "interpreter/bots/greedy.py:4: reads `.skeleton`",
            "interpreter/bots/greedy.py:4: reads `.stack`"} <= set(found)
    assert engine_violations() == ["interpreter/core/view.py:2: imports the room interpreter.bots",
                                   "interpreter/core/view.py:2: imports the room interpreter.bots.greedy"]
