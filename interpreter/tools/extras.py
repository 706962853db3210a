"""The optional extras of lfdsl (pyproject.toml's `optional-dependencies`) and the libraries each
brings, so that a command that finds one missing names the extra to install rather than failing as
if lfdsl were at fault."""
from __future__ import annotations

import importlib.util

# top-level module -> the extras that bring it, the one to suggest first
EXTRAS_OF = {
    "rich": ("lab", "play"), "statsmodels": ("lab",), "scipy": ("lab",), "matplotlib": ("lab",),
    "numpy": ("lab", "rl"), "optuna": ("tune",), "distributed": ("cluster",), "dask": ("cluster",),
    "textual": ("play",), "pygls": ("lsp",), "lsprotocol": ("lsp",), "gymnasium": ("rl",),
    "pettingzoo": ("rl",), "starlette": ("studio",), "uvicorn": ("studio",),
}
# extras that bring another's libraries too (pyproject.toml: `tune = ["lfdsl[lab]", ...]`)
INCLUDES = {"tune": ("tune", "lab"), "cluster": ("cluster", "lab")}


def missing_extra(module: str | None, wanted: str | None = None) -> str | None:
    """The extra to install when `module` (a dotted name counts by its top level) cannot be imported:
    `wanted`, the extra of the command that ran, when it brings the module, else the first extra that
    does. None when no extra brings it, or when it is installed after all (then the failure is
    lfdsl's, not a missing extra)."""
    top = (module or "").split(".")[0]
    extras = EXTRAS_OF.get(top)
    if extras is None or _installed(top):
        return None
    if wanted is not None and set(INCLUDES.get(wanted, (wanted,))) & set(extras):
        return wanted
    return extras[0]


def _installed(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a module left half-imported
        return False


def install_hint(extra: str) -> str:
    """The command that installs `extra`."""
    return f"pip install 'lfdsl[{extra}]'"
