"""Text normalization shared by alias lookup, hashing and validation."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

_PUNCT = re.compile(r"[^\w\s&+-]")
_SPACE = re.compile(r"\s+")

# After a stop: not the stop of a title, an initial or "e.g." ("my GP is Dr. Brennan",
# "J. Smith", "we take biscuit to dr. nakamura"). Each look-behind has one width.
NOT_ABBREVIATION = (
    r"(?<!\b(?i:dr|mr|ms|st|jr|sr|vs)\.)(?<!\b(?i:mrs|rev|gen|col|lt.)\.)"
    r"(?<!\b(?i:prof|capt|sgt.)\.)(?<!\b[A-Z]\.)(?<!\b(?i:e\.g|i\.e)\.)"
)
# Where one sentence ends and the next begins.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])" + NOT_ABBREVIATION + r"\s+")


@functools.lru_cache(maxsize=65_536)
def normalize_name(name: str) -> str:
    """Case-, accent- and punctuation-insensitive key for a name or alias (memoized: the
    resolver normalizes every namesake's names on each read).

    >>> normalize_name("  Wolf of Blog  Street ")
    'wolf of blog street'
    >>> normalize_name("W.O.B.S.") == normalize_name("wobs")
    True
    >>> normalize_name("Zoë") == normalize_name("ZOE")
    True
    """
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    folded = _PUNCT.sub("", stripped.casefold())
    return _SPACE.sub(" ", folded).strip()


def content_hash(text: str) -> str:
    """Stable hash of content, insensitive to surrounding whitespace."""
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()
