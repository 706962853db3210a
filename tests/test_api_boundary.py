"""The engine's API is the only door between the engine and the rooms that use games, and the folders
of `interpreter/` are its layers.

Read from the source files with `ast`, not by running them. The layers, from the ground up: the
engine's core (`core/`: the run, a game's state, places, views), the compiler (`compile/`: a ruleset to
a `Program`), the API (`engine.py`), then the tools (`tools/`: the command line, agents, records,
replay, scenarios, trace sinks, the language server) and the rooms (`bots/`, `lab/`, `env/`,
`table/`, `board/`). Each layer of the engine imports only its own and those below it; a tool or a room reads
no internal of a game (the pending decision's record, the frame stack, a procedure's instructions, a
view's skeleton, the compiled program) and imports of the engine only its API and the few value
modules the API takes. Where a file legitimately breaks a rule, the allow-lists say why.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from interpreter.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "interpreter"

# Each layer's packages (or modules) of `interpreter`, from the ground up.
LAYERS = {
    "core": ("interpreter.core",),
    "compile": ("interpreter.compile",),
    "api": ("interpreter.engine",),
    "tools": ("interpreter.tools",),
    "rooms": ("interpreter.bots", "interpreter.lab", "interpreter.env", "interpreter.table", "interpreter.board",
              "interpreter.studio"),
}
# The layers of the engine and what each may import besides itself: only downward.
ENGINE_MAY_IMPORT = {"core": set(), "compile": {"core"}, "api": {"core", "compile"}}
# Tools and rooms use each other freely (the command line adds the rooms' subcommands; the rooms use
# its shared helpers and the agents); of the engine they import the API and the values it takes:
# chance sources and arranged starts, place keys, parameter values (what `Engine.load` and `--set`
# take, with their errors).
USER_MAY_IMPORT = {"interpreter.engine", "interpreter.core.chance", "interpreter.core.position",
                   "interpreter.core.place", "interpreter.compile.params"}
# (layer, module): why that layer of the engine may import that module from above.
UPWARD: dict = {}  # none: parameter values are read with rulesdsl/values.py, below the compiler
# Attributes that are a game's or a program's internals.
INTERNALS = {"pending", "stack", "ir", "procs", "spans", "how", "skeleton", "_deal", "program"}
# (file, attribute): why that tool or room may name it.
ALLOWED = {
    ("interpreter/tools/lsp.py", "program"): "the language server's own parsed ruleset (rulesdsl's syntax "
                                             "tree), which it keeps for definitions and hover; not an "
                                             "engine's program",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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


def _within(module: str, names) -> bool:
    return any(module == n or module.startswith(f"{n}.") for n in names)


def layer_of(module: str) -> str | None:
    """The layer a module of the package stands on (None outside `interpreter`'s layers)."""
    return next((layer for layer, names in LAYERS.items() if _within(module, names)), None)


def _files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def _may_import(layer: str, module: str) -> bool:
    target = layer_of(module)
    if target is None or target == layer:
        return True
    if layer in ENGINE_MAY_IMPORT:
        return target in ENGINE_MAY_IMPORT[layer] or any(_within(module, (m,)) for (l, m) in UPWARD if l == layer)
    return target in ("tools", "rooms") or _within(module, USER_MAY_IMPORT)


def layer_violations() -> list[str]:
    """Each import that runs against the layers, as `file:line: what`."""
    out = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        layer = layer_of(_module_name(path))
        out.extend(f"{rel}:{line}: the {layer} layer imports {module}"
                   for line, module in _imports(path) if not _may_import(layer, module))
    return out


def internal_reads() -> list[str]:
    """Each internal of a game that a tool or a room reads, as `file:line: what`."""
    out = []
    for path in _files():
        if layer_of(_module_name(path)) not in ("tools", "rooms"):
            continue
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A function of that name called from a module (`unparse.program(...)`) reads no internal.
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        out.extend(f"{rel}:{node.lineno}: reads `.{node.attr}`" for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and node.attr in INTERNALS and id(node) not in called
                   and (rel, node.attr) not in ALLOWED)
    return out


def test_every_module_stands_on_a_layer_and_the_lists_name_what_exists():
    assert [p.relative_to(ROOT).as_posix() for p in _files() if layer_of(_module_name(p)) is None] == []
    for names in LAYERS.values():
        for name in names:
            path = ROOT.joinpath(*name.split("."))
            assert (path / "__init__.py").is_file() or path.with_suffix(".py").is_file(), name
    for name in USER_MAY_IMPORT | {m for _, m in UPWARD}:
        assert ROOT.joinpath(*name.split(".")).with_suffix(".py").is_file(), name
    assert all(Path(ROOT, f).is_file() for f, _ in ALLOWED)


def test_imports_run_down_the_layers():
    assert layer_violations() == []


def test_tools_and_rooms_read_no_internal_of_a_game():
    assert internal_reads() == []


def test_the_engine_forwards_nothing():
    # Every name of the API is written on Engine itself: none reads through to the program.
    assert "__getattr__" not in vars(Engine)
    assert not hasattr(Engine(None), "procs")


def test_the_check_sees_what_it_forbids(tmp_path, monkeypatch):
    """The checks find a room reading a game's internals and importing the run, the core importing a
    room or the compiler, the compiler importing a tool, and a module on no layer (in a small tree of
    its own under tmp_path; the real one stays as it is)."""
    tree = tmp_path / "interpreter"
    for folder in ("bots", "core", "compile", "tools"):
        (tree / folder).mkdir(parents=True)
    (tree / "bots" / "greedy.py").write_text("from ..core.runtime import Run\n\ndef f(st, v):\n"
                                             "    return st.pending['player'], v.skeleton, st.stack[-1]\n")
    (tree / "core" / "view.py").write_text("def g():\n    from ..bots import greedy\n")
    (tree / "core" / "state.py").write_text("from ..compile.program import Program\n")
    (tree / "compile" / "pysource.py").write_text("from ..tools import cli\nfrom ..tools.options import shown\n")
    (tree / "tools" / "cli.py").write_text("from ..core.place import place\nfrom ..core import ir\n")
    (tree / "loose.py").write_text("x = 1\n")
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "ROOT", tmp_path)
    monkeypatch.setattr(here, "PACKAGE", tree)
    found = layer_violations()
    assert "interpreter/bots/greedy.py:1: the rooms layer imports interpreter.core.runtime" in found
    assert "interpreter/core/view.py:2: the core layer imports interpreter.bots" in found
    assert "interpreter/core/state.py:1: the core layer imports interpreter.compile.program" in found
    assert "interpreter/compile/pysource.py:1: the compile layer imports interpreter.tools.cli" in found
    assert "interpreter/tools/cli.py:2: the tools layer imports interpreter.core.ir" in found
    assert "interpreter/compile/pysource.py:2: the compile layer imports interpreter.tools.options" in found
    # The allowed import stays allowed: a place key for a tool.
    assert not [f for f in found if f.startswith("interpreter/tools/cli.py:1:")]
    assert {"interpreter/bots/greedy.py:4: reads `.pending`", "interpreter/bots/greedy.py:4: reads `.skeleton`",
            "interpreter/bots/greedy.py:4: reads `.stack`"} == set(internal_reads())
    with_loose = [p.relative_to(tmp_path).as_posix() for p in _files() if layer_of(_module_name(p)) is None]
    assert with_loose == ["interpreter/loose.py"]
