"""The shipped query-expansion data, in `trifecta/data/`:

- `es_en.json`: Spanish written forms -> English code words (irregular forms, phrases, and forms whose
  meaning differs from their lemma's); these win over inflected forms.
- `es_lemmas.json`: Spanish dictionary forms by kind, `{"verbs": {"sugerir:ie": ["suggest"]}, "nouns":
  {...}, "adjectives": {...}}`, every form of which is generated on load (`domain.spanish_forms`). A verb
  may carry its stem change after a colon (ie, ue, i); keys are folded, at most 3 English words each.
- `synonyms.json`: English -> English code synonyms.
"""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from typing import Any

from ..domain.lexicon import Lexicon
from ..domain.spanish_forms import LEMMA_KINDS

ES_EN_FILE = "es_en.json"
ES_LEMMAS_FILE = "es_lemmas.json"
SYNONYMS_FILE = "synonyms.json"


def _read_json(name: str) -> Any:
    return json.loads((files("trifecta") / "data" / name).read_text(encoding="utf-8"))


def read_data_json(name: str) -> dict[str, list[str]]:
    """One JSON object of word -> list of words from the package data directory."""
    raw = _read_json(name)
    if not isinstance(raw, dict):
        raise ValueError(f"{name}: expected a JSON object")
    return {str(k): [str(w) for w in v] for k, v in raw.items()}


def read_lemmas(name: str = ES_LEMMAS_FILE) -> dict[str, dict[str, list[str]]]:
    """The lemma table: kind -> lemma -> English words."""
    raw = _read_json(name)
    if not isinstance(raw, dict) or not set(raw) <= set(LEMMA_KINDS):
        raise ValueError(f"{name}: expected an object of {', '.join(LEMMA_KINDS)}")
    return {kind: {str(k): [str(w) for w in v] for k, v in raw[kind].items()} for kind in raw}


@functools.lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The lexicon built from the shipped data, read once per process."""
    return Lexicon.from_mappings(read_data_json(ES_EN_FILE), read_data_json(SYNONYMS_FILE), read_lemmas())
