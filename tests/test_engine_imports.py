"""The engine that runs a game stands below the compiler: the run and every module it imports,
directly or through another, import nothing of the compiler or its back ends."""
from __future__ import annotations

import ast

from .conftest import ROOT

PACKAGE = ROOT / "interpreter"
COMPILER = {"compiler", "backend", "pysource", "params", "program"}


def _imports(module: str) -> set[str]:
    """The modules of the package that `module` imports (relatively or by its full name)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 or base.startswith("interpreter"):
                base = base.removeprefix("interpreter").lstrip(".")
                names = [base.split(".")[0]] if base else [a.name for a in node.names]
                out.update(n for n in names if (PACKAGE / f"{n}.py").exists())
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("interpreter."))
    return out


def _reached(start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for name in _imports(todo.pop()) - seen:
            seen.add(name)
            todo.append(name)
    return seen


def test_the_run_does_not_import_the_compiler():
    reached = _reached("runtime")
    assert "primitives" in reached and "state" in reached
    assert not reached & COMPILER, sorted(reached & COMPILER)


def test_the_primitives_import_nothing_of_the_package():
    assert _imports("primitives") == set()


def test_the_run_keeps_its_slots_through_its_parts():
    """`Run` is composed of its service classes; each declares no slots of its own, so a run has no
    per-instance dictionary and a compiled rule's `rt.st` stays a slot read."""
    from interpreter.runtime import Run
    assert len(Run.__mro__) > 2
    assert all("__slots__" in vars(cls) for cls in Run.__mro__[:-1])
    assert not hasattr(Run.__new__(Run), "__dict__")
