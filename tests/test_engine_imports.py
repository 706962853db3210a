"""The engine that runs a game stands below the compiler: the engine's core (`interpreter/core/`) is
closed under its imports, so the run and every module it reaches, directly or through another, import
nothing of the compiler, its back ends, the API, the tools or the rooms."""
from __future__ import annotations

import ast

from .conftest import ROOT

PACKAGE = ROOT / "interpreter"
COMPILER = {"compile.compiler", "compile.backend", "compile.pysource", "compile.params", "compile.program",
            "compile.library"}
CORE = sorted(f"core.{p.stem}" for p in (PACKAGE / "core").glob("*.py") if p.stem != "__init__")


def _imports(module: str) -> set[str]:
    """The modules of the package (dotted below `interpreter`) that `module` imports, relatively or by
    its full name."""
    path = PACKAGE.joinpath(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text())
    package = module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            elif (node.module or "").startswith("interpreter."):
                base = node.module.split(".")[1:]
            else:
                continue
            # `from P import N` imports P, and P.N too where N is a module (`from ..core import ir`).
            for name in [".".join(base)] + [".".join(base + [a.name]) for a in node.names]:
                if PACKAGE.joinpath(*name.split(".")).with_suffix(".py").exists():
                    out.add(name)
        elif isinstance(node, ast.Import):
            out.update(a.name.removeprefix("interpreter.") for a in node.names if a.name.startswith("interpreter."))
    return out


def _reached(start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for name in _imports(todo.pop()) - seen:
            seen.add(name)
            todo.append(name)
    return seen


def test_the_run_does_not_import_the_compiler():
    reached = _reached("core.runtime")
    assert "core.primitives" in reached and "core.state" in reached
    assert not reached & COMPILER, sorted(reached & COMPILER)


def test_the_core_reaches_nothing_outside_itself():
    assert {"core.runtime", "core.view", "core.ir", "core.primitives"} <= set(CORE)
    reached = set().union(*(_reached(m) for m in CORE))
    assert "core.zones" in reached and "core.visibility" in reached
    assert all(m.startswith("core.") for m in reached), sorted(m for m in reached if not m.startswith("core."))


def test_the_primitives_import_nothing_of_the_package():
    assert _imports("core.primitives") == set()


def test_the_run_keeps_its_slots_through_its_parts():
    """`Run` is composed of its service classes; each declares no slots of its own, so a run has no
    per-instance dictionary and a compiled rule's `rt.st` stays a slot read."""
    from interpreter.core.runtime import Run
    assert len(Run.__mro__) > 2
    assert all("__slots__" in vars(cls) for cls in Run.__mro__[:-1])
    assert not hasattr(Run.__new__(Run), "__dict__")
