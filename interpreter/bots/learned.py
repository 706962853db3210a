"""A learned evaluation: a linear model that predicts a player's result (1 for a win, 0 for a loss)
from the entries of the position as that player sees it (features.py), fitted by `lfdsl train` on
games the bots played (interpreter/lab/train.py). The bots use it when a ruleset has no `evaluate`
block: a game won by points then has something to go on besides the victory thresholds.

The model is data, never code: a JSON file of numbers and labels, read back as untrusted input (a
positioned error for anything amiss, numbers bounded and finite, its size capped). It is kept
beside the ruleset, in `.lfdsl/` of the ruleset's folder, one file per player count, and carries
the *key* of what it was trained on: the hashes of every file loaded (the ruleset, the files it
extends, the card databases), the parameters as set, the player count and the layout of the
entries. A model whose key is not the engine's is refused with a message saying why: the rules
changed since it was trained.

The fit is ridge regression (least squares with a penalty on the weights, on entries
standardised to mean 0 and spread 1), solved by numpy: a closed form, so the same positions give
the same weights in any process. The penalty is chosen on games the fit does not see
(`choose_ridge`): a ruleset laying out thousands of entries learns from a few hundred positions
only with a strong one. Ridge rather than a logistic fit: its prediction is a number a
bot compares between options, it needs no iterations, and it stays defined when an entry never
varies (its weight is then 0).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from rulesdsl.errors import LanguageError
from rulesdsl.files import FileRefused, read_bytes

from ..tools.records import Doc, kind_of
from .features import MAX_ENTRIES, FeatureLayout, LayoutTooLarge

FORMAT = "lfdsl learned evaluation 1"
MAX_MODEL_BYTES = 16 * 1024 * 1024
MAX_WEIGHT = 1e12
MIN_SCALE = 1e-9  # an entry's spread, as the fit floors it: with the caps above, every standing is finite
FOLDER = ".lfdsl"


class ModelError(LanguageError):
    """A learned evaluation's file that cannot be used: unreadable, malformed, or trained on other
    rules."""

    step = "model"


class LearnedModel:
    """The fitted model of one ruleset at one player count: `standing(entries)` predicts the result
    of the player whose entries they are."""

    def __init__(self, key: str, players: int, labels: list, mean, scale, weights, bias: float, trained: dict):
        self.key = key
        self.players = players
        self.labels = list(labels)
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.bias = float(bias)
        self.trained = dict(trained)
        # (x - mean) / scale @ weights + bias, folded into one product.
        self._w = self.weights / self.scale
        self._b = self.bias - float(self.mean @ self._w)

    def standing(self, entries) -> float:
        """The predicted result of the player whose position `entries` is (0 if it were not a number)."""
        value = float(entries @ self._w) + self._b
        return value if math.isfinite(value) else 0.0

    def to_text(self) -> str:
        """The model as JSON text, one entry per line, the same bytes for the same model."""
        data = {"format": FORMAT, "key": self.key, "players": self.players, "bias": self.bias,
                "trained": self.trained,
                "entries": [{"label": lab, "mean": float(m), "scale": float(s), "weight": float(w)}
                            for lab, m, s, w in zip(self.labels, self.mean, self.scale, self.weights)]}
        head = {k: v for k, v in data.items() if k != "entries"}
        lines = [json.dumps(head, sort_keys=True)[:-1] + ', "entries": [']
        last = len(data["entries"]) - 1
        lines += ["  " + json.dumps(e, sort_keys=True) + ("," if i < last else "") for i, e in enumerate(data["entries"])]
        lines.append("]}")
        return "\n".join(lines) + "\n"


def fit(X: np.ndarray, y: np.ndarray, ridge: float = 1.0):
    """Mean, scale, weights and bias of the ridge fit of `y` on the rows of `X` (see the module)."""
    from threadpoolctl import threadpool_limits
    # One thread: a sum split among threads is added in another order, and the last digits of the
    # weights would depend on the machine's count of cores.
    with threadpool_limits(limits=1):
        mean, scale, Z = _standardised(X)
        bias = float(y.mean())
        if Z.shape[1] <= Z.shape[0]:
            weights = np.linalg.solve(Z.T @ Z + ridge * np.eye(Z.shape[1]), Z.T @ (y - bias))
        else:  # more entries than positions: the same weights from the smaller system
            weights = Z.T @ np.linalg.solve(Z @ Z.T + ridge * np.eye(Z.shape[0]), y - bias)
    return mean, scale, weights, bias


def _standardised(X: np.ndarray):
    """The entries' means and spreads, and `X` standardised by them."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < MIN_SCALE] = 1.0  # an entry that never varies: weight 0, whatever its scale
    return mean, scale, (X - mean) / scale


# The penalties tried by `choose_ridge`, on entries of spread 1: from barely any to one that keeps
# every weight near 0 unless thousands of positions agree on it.
RIDGES = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0)


def choose_ridge(X: np.ndarray, y: np.ndarray, held: np.ndarray) -> tuple[float, list]:
    """The penalty of `RIDGES` whose fit on the rows of `X` not `held` predicts the `held` rows best
    (least mean squared error; the smaller penalty of equal ones), and each penalty's error. The
    held rows are whole games the fit did not see: a layout of many entries and few positions
    needs a strong penalty, and one of few entries and many positions a weak one."""
    from threadpoolctl import threadpool_limits
    fitted, test = ~held, held
    if not test.any() or not fitted.any():
        return 1.0, []
    with threadpool_limits(limits=1):
        mean, scale, Z = _standardised(X[fitted])
        b = y[fitted] - float(y[fitted].mean())
        T = (X[test] - mean) / scale
        # One eigendecomposition of the smaller system serves every penalty.
        primal = Z.shape[1] <= Z.shape[0]
        values, vectors = np.linalg.eigh(Z.T @ Z if primal else Z @ Z.T)
        right = vectors.T @ (Z.T @ b if primal else b)
        errors = []
        for ridge in RIDGES:
            solved = vectors @ (right / (values + ridge))
            weights = solved if primal else Z.T @ solved
            errors.append(float(np.mean((T @ weights + float(y[fitted].mean()) - y[test]) ** 2)))
    best = min(range(len(RIDGES)), key=lambda i: (round(errors[i], 12), i))
    return RIDGES[best], errors


def model_key(engine, players: int, layout: FeatureLayout) -> str:
    """The hash of what a model of `engine` at `players` is trained on (see the module)."""
    origin = engine.origin or {}
    h = hashlib.sha256(FORMAT.encode())
    for digest in sorted((origin.get("files") or {}).values()):
        h.update(digest.encode() + b"\0")
    for name, value in sorted(engine.params.items()):
        h.update(f"{name}={value!r}\0".encode("utf-8", "surrogatepass"))
    h.update(f"players={players}\0".encode())
    for label in layout.labels:
        h.update(label.encode("utf-8", "surrogatepass") + b"\0")
    return "sha256:" + h.hexdigest()


def model_path(engine, players: int) -> Path | None:
    """Where the model of `engine`'s ruleset at `players` is kept: `.lfdsl/NAME-Np.model.json` in
    the ruleset's folder (None for a ruleset not loaded from a file)."""
    ruleset = (engine.origin or {}).get("ruleset")
    if not ruleset:
        return None
    path = Path(ruleset)
    return path.parent / FOLDER / f"{path.stem}-{players}p.model.json"


def misplaced(path: Path) -> str | None:
    """Why the model file `path` may not be used or written, or None: its folder must be a real
    folder and the file a plain file, no link, so that what is read or written is what the name
    says, beside the ruleset (a link could lead out of the project, to be read or written over)."""
    if os.path.lexists(path.parent) and (os.path.islink(path.parent) or not os.path.isdir(path.parent)):
        return f"{path.parent} is not a folder of its own (a link or a file): the learned evaluation is kept only in a real folder"
    if os.path.islink(path):
        return f"{path} is a link: the learned evaluation is read only from a plain file"
    return None


def writable(path: Path) -> str | None:
    """Why `save` could not write `path`, or None: said before a long training, not after it."""
    why = misplaced(path)
    if why is not None:
        return why
    made = not os.path.lexists(path.parent)
    try:
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".model-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        return f"cannot write in {path.parent}: {exc.strerror}"
    finally:
        if made and os.path.isdir(path.parent) and not os.listdir(path.parent):
            os.rmdir(path.parent)  # made only to try: `save` makes it again
    return None


def save(model: LearnedModel, path: Path) -> None:
    """Write `model` to `path` (its folder made if need be), replacing the file in one step through
    a new file of its own (never through a name someone may have left there); OSError if not."""
    why = misplaced(path)
    if why is not None:
        raise OSError(0, why)
    path.parent.mkdir(exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".model-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(model.to_text())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read(path: Path, engine, players: int) -> LearnedModel:
    """The model in `path`, checked against `engine` at `players`; ModelError otherwise."""
    shown = str(path)
    why = misplaced(path)
    if why is not None:
        raise ModelError([Doc(shown, "").diag(0, why, "train it again: lfdsl train writes a plain file there")])
    try:
        data = read_bytes(path, MAX_MODEL_BYTES)
    except FileRefused as exc:
        raise ModelError([Doc(shown, "").diag(0, f"cannot read this learned evaluation: {exc.message}",
                                              exc.hint)]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError([Doc(shown, "").diag(0, "not valid UTF-8", "write it with `lfdsl train`")]) from None
    doc = Doc(shown, text, error=ModelError, whole="the learned evaluation")
    value = doc.parse("the learned evaluation")
    if not isinstance(value, dict):
        doc.fail([], f"a learned evaluation is a JSON object, not {kind_of(value)}")
    if value.get("format") != FORMAT:
        doc.fail(["format"] if "format" in value else [], f"not a learned evaluation of this version "
                 f"(`format` must be \"{FORMAT}\")", "write it again with `lfdsl train`")
    try:
        layout = FeatureLayout(engine, players)
    except LayoutTooLarge as exc:
        doc.fail([], str(exc))
    key = model_key(engine, players, layout)
    got = doc.text_at(value, ["key"])
    if doc.int_at(value, ["players"], 1, 1000) != players:
        doc.fail(["players"], f"this learned evaluation is for {value['players']} players, not {players}")
    if got != key:
        doc.fail(["key"], "this learned evaluation was trained on other rules: a file of the ruleset, its "
                 "cards or a parameter changed since", f"train it again: lfdsl train {engine.origin['ruleset']} "
                 f"--players {players}")
    entries = doc.value_at(value, ["entries"])
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
        doc.fail(["entries"], f"`entries` must be a list of at most {MAX_ENTRIES:,} entries" + (
            f", not {len(entries):,}" if isinstance(entries, list) else f", not {kind_of(entries)}"))
    if len(entries) != layout.size:
        doc.fail(["entries"], f"{len(entries)} entries where the ruleset lays out {layout.size}")
    numbers = {"mean": [], "scale": [], "weight": []}
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            doc.fail(["entries", i], f"an entry is an object, not {kind_of(e)}")
        if e.get("label") != layout.labels[i]:
            doc.fail(["entries", i], f"entry {i + 1} is not `{layout.labels[i]}`")
        for name, out in numbers.items():
            out.append(_number(doc, value, ["entries", i, name], positive=name == "scale"))
    bias = _number(doc, value, ["bias"])
    trained = value.get("trained") if isinstance(value.get("trained"), dict) else {}
    return LearnedModel(key, players, layout.labels, numbers["mean"], numbers["scale"], numbers["weight"],
                        bias, trained)


def _number(doc: Doc, data: dict, keys, positive: bool = False) -> float:
    value = doc.value_at(data, keys)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_WEIGHT:
        doc.fail(keys, f"`{keys[-1]}` must be a number of at most {MAX_WEIGHT:g} in size, not {kind_of(value)}")
    if positive and value < MIN_SCALE:
        doc.fail(keys, f"`{keys[-1]}` must be at least {MIN_SCALE:g}")
    return float(value)


# Models read, by path and the file's bytes' state: a game of many bots reads the file once.
_READ: dict = {}


def find(engine, players: int) -> tuple[LearnedModel | None, str | None]:
    """The learned evaluation kept for `engine`'s ruleset at `players`, or None and why not (None
    when there is simply none)."""
    path = model_path(engine, players)
    if path is None or not path.is_file():
        return None, None
    try:
        stat = path.stat()
    except OSError:
        return None, None
    cache_key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, engine.origin and
                 tuple(sorted((engine.origin.get("files") or {}).values())), tuple(sorted(map(str, engine.params.items()))),
                 players)
    if cache_key not in _READ:
        if len(_READ) > 64:
            _READ.clear()
        try:
            _READ[cache_key] = (read(path, engine, players), None)
        except ModelError as exc:
            _READ[cache_key] = (None, str(exc))
    return _READ[cache_key]
