"""The shipped query-expansion data: `trifecta/data/es_en.json` and `trifecta/data/synonyms.json`."""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from typing import Any

from ..domain.lexicon import Lexicon

ES_EN_FILE = "es_en.json"
SYNONYMS_FILE = "synonyms.json"


def read_data_json(name: str) -> dict[str, list[str]]:
    """One JSON object of word -> list of words from the package data directory."""
    raw: Any = json.loads((files("trifecta") / "data" / name).read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ValueError(f"{name}: expected a JSON object")
    return {str(k): [str(w) for w in v] for k, v in raw.items()}


@functools.lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The lexicon built from the shipped data, read once per process."""
    return Lexicon.from_mappings(read_data_json(ES_EN_FILE), read_data_json(SYNONYMS_FILE))
