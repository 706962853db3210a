"""The engine is generic: no game vocabulary in rulesdsl/ or interpreter/."""
from __future__ import annotations

import re
import tomllib

from .conftest import ROOT

GAME_WORDS = [
    "onibi", "kodamas?", "varans?", "sanki", "fragments?", "guardians?", "spirits?", "sacred",
    "fires?", "water", "winds?", "suns?", "flowers?", "seasons?", "summer", "winter", "autumn",
    "lotus", "forests?", "clearing", "help line",
]


def card_names():
    names = set()
    for path in (ROOT / "cards").glob("*.toml"):
        for entries in tomllib.loads(path.read_text()).values():
            for entry in entries:
                names.add(entry["name"])
    return names


def engine_files():
    for folder in ("rulesdsl", "interpreter"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".lark"):
                yield path


def test_no_game_vocabulary_in_the_engine():
    words = GAME_WORDS + [re.escape(n) for n in sorted(card_names())]
    pattern = re.compile(r"\b(" + "|".join(words) + r")\b", re.IGNORECASE)
    hits = []
    for path in engine_files():
        for i, line in enumerate(path.read_text().splitlines(), 1):
            m = pattern.search(line)
            if m:
                hits.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)}")
    assert not hits, "game words in the engine:\n" + "\n".join(hits)


def test_the_check_itself_catches_a_game_word(tmp_path):
    pattern = re.compile(r"\b(" + "|".join(GAME_WORDS) + r")\b", re.IGNORECASE)
    assert pattern.search("x = count_water(p)  # Onibi attacks") is not None
    assert len(card_names()) > 60
