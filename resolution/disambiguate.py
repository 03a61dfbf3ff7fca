"""Choosing among same-named candidates purely by context.

The context is the text with the ambiguous name (and its possessive) cut out, so the name
itself — shared by every candidate — cannot sway the score. Each candidate is scored on three
views of its profile:

- ``whole``: cosine between the context and the profile embedding (all its describing
  sentences, roles and parent in one vector);
- ``facet``: the best cosine between the context and one facet of the profile (each describing
  sentence, and the roles, embedded on its own), so one memory that matches well is not
  drowned by the others;
- ``keyword``: the words the context shares with the profile (light stemming), each weighted
  by how few candidates have it — a word every candidate shares says nothing.

The score is the mean of ``whole`` and ``facet``. The best candidate wins only when it is clear:
above the floor, ahead of the second by the margin (half the margin when the keyword signal
independently points at the same candidate), and also ahead on the ``facet`` view — when the
two embedding views disagree (or nearly tie) on who fits, the answer is a clarification. Frequency,
recency and creation order play no part; when context cannot separate the candidates the
answer is a clarification, never a guess.
"""

from __future__ import annotations

import functools
import math
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.settings import ResolutionSettings
from core.types import Entity
from resolution.profiles import profile_facets
from vectors.embedding.embedder import Embedder

# Words that say nothing about who someone is: talking to them, and when. A context made only
# of these (and stop words) cannot separate candidates, however the cosines happen to fall.
_GENERIC = frozenset(
    {"call", "calls", "called", "calling", "tell", "told", "email", "emailed", "mail", "text",
     "message", "ping", "remind", "reminder", "ask", "asked", "say", "said", "says", "hello",
     "hi", "hey", "thanks", "thank", "meet", "met", "see", "talk", "speak", "spoke", "chat",
     "contact", "reach", "write", "later", "soon", "tomorrow", "today", "tonight", "yesterday",
     "morning", "afternoon", "evening", "night", "week", "weekend", "month", "monday",
     "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "please", "ok",
     "okay", "need", "want", "let", "know", "check", "again", "back", "quick", "quickly"}
)  # fmt: skip
_WORDS = re.compile(r"[a-z]+")
_SUFFIXES = ("ies", "ing", "ed", "es", "s")
KEYWORD_RELIEF = 0.5  # share of the margin still required when the keyword signal agrees
FACET_LEAD = 0.2  # share of the margin by which the winner must also lead the facet view
MAX_CACHED_FACETS = 8192  # facet vectors kept in memory (~1.5 kB each)
MAX_CACHED_PROFILES = 4096  # candidates' facet texts and keyword terms kept in memory

Vector = npt.NDArray[np.float32]


@functools.cache
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _content_words(text: str) -> list[str]:
    stop = _stop_words()
    return [
        w
        for w in _WORDS.findall(text.lower())
        if w not in stop and w not in _GENERIC and len(w) > 2
    ]


def informative(context: str) -> bool:
    """Does the context carry any word that could describe someone (not just "call X")?"""
    return bool(_content_words(context))


def stem(word: str) -> str:
    """A light suffix strip so "fixes", "fixed" and "fix" meet; the same on both sides."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> set[str]:
    """The stemmed content words of ``text`` (stop words and talk-to-someone words left out)."""
    return {stem(w) for w in _content_words(text)}


@dataclass(frozen=True)
class Scored:
    """One candidate's context score (``score``) and the views it is made of."""

    entity: Entity
    score: float
    whole: float = 0.0
    facet: float = 0.0
    keyword: float = 0.0


def context_without(text: str, names: Sequence[str], placeholder: str = "") -> str:
    """``text`` with every occurrence of ``names`` (and a following "'s") replaced by
    ``placeholder`` (removed by default: a stand-in word such as "someone" measured worse)."""
    out = text
    for name in sorted(set(names), key=len, reverse=True):
        pattern = rf"(?<!\w){re.escape(name)}(?:['’]s)?(?!\w)"
        out = re.sub(pattern, f" {placeholder} ", out, flags=re.I)
    return re.sub(r"\s+", " ", out).strip()


def cosine(
    a: Sequence[float] | npt.NDArray[np.floating], b: Sequence[float] | npt.NDArray[np.floating]
) -> float:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    norms = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norms if norms else 0.0


def profile_terms(entity: Entity) -> set[str]:
    """The words a candidate's profile offers to the keyword signal: its describing facets and
    its context tags, without its own names."""
    names = terms(" ".join((entity.name, *entity.aliases)))
    tags = " ".join(t.split(":", 1)[-1] for t in entity.context_tags)
    return (terms(" ".join(profile_facets(entity))) | terms(tags)) - names


def keyword_scores(
    context: str,
    candidates: Sequence[Entity],
    offered_terms: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, float]:
    """Per candidate id: the sum over context words found in its profile of log(1 + n / df),
    where df counts the candidates whose profile has the word (n candidates in all).
    ``offered_terms`` holds each candidate's ``profile_terms`` when the caller has them."""
    wanted = terms(context)
    known = offered_terms or {}
    offered = {
        c.id: (known[c.id] if c.id in known else profile_terms(c)) & wanted for c in candidates
    }
    df: dict[str, int] = {}
    for found in offered.values():
        for t in found:
            df[t] = df.get(t, 0) + 1
    n = len(candidates)
    return {i: sum(math.log(1 + n / df[t]) for t in found) for i, found in offered.items()}


def rank_by_context(
    context: Sequence[float],
    candidates: Sequence[Entity],
    facets: Mapping[str, Sequence[Sequence[float] | Vector]] | None = None,
    keywords: Mapping[str, float] | None = None,
) -> list[Scored]:
    """Candidates by context score, best first; ties broken by id (stable, neutral).

    ``facets`` holds each candidate's facet vectors (a candidate without any is scored on its
    whole profile alone); ``keywords`` each candidate's keyword score.
    """
    if not candidates:
        return []
    query = np.asarray(context, dtype=np.float64)
    query_norm = float(np.linalg.norm(query))
    scored: list[Scored] = []
    for c in candidates:
        whole = cosine(query, c.profile_embedding) if c.profile_embedding else 0.0
        vectors = (facets or {}).get(c.id)
        facet = whole
        if vectors is not None and len(vectors):
            matrix = np.asarray(vectors, dtype=np.float64)
            norms = np.linalg.norm(matrix, axis=1) * query_norm
            sims = np.divide(matrix @ query, norms, out=np.zeros(len(matrix)), where=norms > 0)
            facet = float(sims.max())
        keyword = (keywords or {}).get(c.id, 0.0)
        scored.append(Scored(c, (whole + facet) / 2, whole, facet, keyword))
    return sorted(scored, key=lambda s: (-s.score, s.entity.id))


def _keyword_winner(ranked: Sequence[Scored]) -> Scored | None:
    top = max(ranked, key=lambda s: s.keyword)
    if top.keyword <= 0 or sum(1 for s in ranked if s.keyword == top.keyword) > 1:
        return None
    return top


def decide(ranked: Sequence[Scored], margin: float, floor: float) -> Scored | None:
    """The winner if it is clear, else None (the caller then asks which one was meant).

    Clear means: score at least ``floor``; ahead of the second by ``margin`` (by
    ``KEYWORD_RELIEF * margin`` when the keyword signal's single best is the same candidate);
    and ahead on the facet view too, by ``FACET_LEAD * margin`` (a near tie there means the
    views disagree about who fits).
    """
    if not ranked:
        return None
    best = ranked[0]
    if best.score < floor:
        return None
    if len(ranked) == 1:
        return best
    needed = margin * KEYWORD_RELIEF if _keyword_winner(ranked) is best else margin
    if best.score - ranked[1].score < needed:
        return None
    if best.facet - max(s.facet for s in ranked[1:]) < margin * FACET_LEAD:
        return None
    return best


class Disambiguator:
    """Context disambiguation for one embedder: embeds the context, scores the candidates on
    the three views and applies ``decide``. Facet vectors are derived from the stored profile
    summary and cached by text (bounded), so a candidate's facets are embedded once.

        best, ranked = await Disambiguator(embedder, settings).choose(text, ["Peter"], people)
    """

    def __init__(self, embedder: Embedder, settings: ResolutionSettings) -> None:
        self._embedder = embedder
        self._s = settings
        self._facets: OrderedDict[str, Vector] = OrderedDict()
        # Per candidate profile (its id and everything the derivations read): facet texts
        # and keyword terms. A candidate set is met again on every turn that names it.
        self._profiles: OrderedDict[tuple[object, ...], tuple[list[str], frozenset[str]]] = (
            OrderedDict()
        )

    async def choose(
        self, text: str, names: Sequence[str], candidates: Sequence[Entity]
    ) -> tuple[Scored | None, list[Scored]]:
        """The clear winner (or None) and every candidate ranked; ``ranked`` is empty when the
        context without ``names`` carries no describing word ("Call Peter tomorrow")."""
        context = context_without(text, names)
        if not informative(context) or not candidates:
            return None, []
        vector = await self._embedder.embed_query(context)
        derived = {c.id: self._derived(c) for c in candidates}
        facets = await self._facet_vectors({i: d[0] for i, d in derived.items()})
        keywords = keyword_scores(context, candidates, {i: d[1] for i, d in derived.items()})
        ranked = rank_by_context(vector, candidates, facets, keywords)
        return decide(ranked, self._s.clarify_margin, self._s.min_context_similarity), ranked

    async def warm(self, entities: Sequence[Entity]) -> None:
        """Embed the facets of these profiles now (the ones not cached yet)."""
        await self._facet_vectors({e.id: self._derived(e)[0] for e in entities})

    def _derived(self, c: Entity) -> tuple[list[str], frozenset[str]]:
        """``profile_facets`` and ``profile_terms`` of a candidate, cached by its profile."""
        key = (c.id, c.name, tuple(c.aliases), c.profile_summary, tuple(c.context_tags))
        found = self._profiles.get(key)
        if found is None:
            found = self._profiles[key] = (profile_facets(c), frozenset(profile_terms(c)))
            while len(self._profiles) > MAX_CACHED_PROFILES:
                self._profiles.popitem(last=False)
        else:
            self._profiles.move_to_end(key)
        return found

    async def _facet_vectors(self, texts: Mapping[str, list[str]]) -> dict[str, list[Vector]]:
        wanted = dict.fromkeys(t for ts in texts.values() for t in ts)
        missing = [t for t in wanted if t not in self._facets]
        if missing:
            vectors = await self._embedder.embed_documents(missing)
            for t, v in zip(missing, vectors, strict=True):
                self._facets[t] = np.asarray(v, dtype=np.float32)
        out: dict[str, list[Vector]] = {}
        for ident, ts in texts.items():
            out[ident] = [self._facets[t] for t in ts if t in self._facets]
            for t in ts:
                if t in self._facets:
                    self._facets.move_to_end(t)
        while len(self._facets) > MAX_CACHED_FACETS:
            self._facets.popitem(last=False)
        return out
