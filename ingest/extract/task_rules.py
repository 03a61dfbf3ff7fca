"""Task extraction from conversation: seed patterns, confidence and priority (pure functions).

    confidence = signal × 0.6 + entity density × 0.25 + repetition × 0.15

``signal`` is the pattern's confidence ("TODO:" 0.90, "Don't forget to" 0.85, "I need to"
0.80, "Before we can X, we need Y" 0.78 …), raised by 0.10 for urgency words ("urgent",
"asap", "by Friday"). ``entity density`` is how much the task names: content words of the task
clause, named entities counting double, over three (capped at 1) — so "I need to sleep" is not
a task and "I need to send the backlink report to WOBS" is. ``repetition`` is how often the
same task (normalized text) was said before: 0, 0.5, then 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.text import normalize_name
from ingest.extract.sentences import content_words, split_sentences

# (signal, pattern); the task text is group "t", the precondition (if any) group "x".
SEED_PATTERNS: list[tuple[float, re.Pattern[str]]] = [
    (0.90, re.compile(r"^\s*(?:TODO|To-?do|Action item)\s*[:\-]\s*(?P<t>.+)$", re.IGNORECASE)),
    (0.85, re.compile(r"\b(?:don't|do not|dont) forget to\s+(?P<t>.+)$", re.IGNORECASE)),
    (0.85, re.compile(r"\bremind me to\s+(?P<t>.+)$", re.IGNORECASE)),
    (
        0.78,
        re.compile(
            r"\bbefore we can\s+(?P<x>.+?),\s*(?:we|I)\s+(?:need|have|must|'ll need) to\s+"
            r"(?P<t>.+)$",
            re.IGNORECASE,
        ),
    ),
    (
        0.80,
        re.compile(
            r"^(?:so\s+|and\s+|also\s+)?(?:I|we)\s+(?:really\s+)?need to\s+(?P<t>.+)$",
            re.IGNORECASE,
        ),
    ),
    (0.80, re.compile(r"\bmake sure (?:to|that we|we|I)\s+(?P<t>.+)$", re.IGNORECASE)),
    (
        0.75,
        re.compile(
            r"^(?:so\s+|and\s+)?(?:I|we)\s+(?:have to|have got to|'ve got to|must)\s+(?P<t>.+)$",
            re.IGNORECASE,
        ),
    ),
    (0.72, re.compile(r"^(?:I|we)(?:'ll| will) need to\s+(?P<t>.+)$", re.IGNORECASE)),
    (0.65, re.compile(r"^(?:I|we)\s+should\s+(?P<t>.+)$", re.IGNORECASE)),
    (0.60, re.compile(r"^let's\s+(?P<t>.+)$", re.IGNORECASE)),
]
_URGENT = re.compile(
    r"\b(?:urgent(?:ly)?|asap|immediately|right away|today|tonight|by tomorrow|by eod"
    r"|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|deadline)\b",
    re.IGNORECASE,
)
_NOT_TASK = re.compile(
    r"^(?:know|think|understand|remember|relax|sleep|rest|breathe|see|wait|go|be|say|admit"
    r"|agree|confess)\b"
    r"|\b(?:if|whether)\b.*\bneed to\b",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:please\s+|also\s+|still\s+|really\s+)+", re.IGNORECASE)

SIGNAL_WEIGHT, DENSITY_WEIGHT, REPETITION_WEIGHT = 0.6, 0.25, 0.15


@dataclass(frozen=True)
class TaskCandidate:
    content: str  # the task, capitalized, without the trigger phrase
    key: str  # normalized text: the deduplication key
    signal: float
    density: float
    start: int  # span of the task clause in the turn
    end: int

    def confidence(self, prior_mentions: int = 0) -> float:
        repetition = min(1.0, prior_mentions / 2)
        value = (
            self.signal * SIGNAL_WEIGHT
            + self.density * DENSITY_WEIGHT
            + repetition * REPETITION_WEIGHT
        )
        return round(min(1.0, value), 4)


def entity_density(clause: str, entity_words: Sequence[str] = ()) -> float:
    """Content words of the clause, named-entity words counting double, over three."""
    names = {w.casefold() for w in entity_words}
    words = content_words(clause)
    score = sum(2.0 if w.casefold() in names else 1.0 for w in words)
    return min(1.0, score / 3.0)


def task_key(text: str) -> str:
    return normalize_name(text)


def find_tasks(text: str, entity_names: Sequence[str] = ()) -> list[TaskCandidate]:
    """Task candidates in ``text`` before thresholds (one per sentence, deduplicated).

    ``entity_names`` are the names the resolver found in the turn; their words count double
    in the density.
    """
    entity_words = [w for name in entity_names for w in name.split()]
    out: dict[str, TaskCandidate] = {}
    for sentence in split_sentences(text):
        clause = sentence.text
        if clause.endswith("?") and not clause.lower().startswith(("can you", "could you")):
            continue
        for signal, pattern in SEED_PATTERNS:
            m = pattern.search(clause)
            if m is None:
                continue
            task = _clean(m.group("t"))
            if not task or _NOT_TASK.search(task):
                break
            precondition = m.groupdict().get("x")
            content = task[0].upper() + task[1:]
            if precondition:
                content = f"{content} (before we can {_clean(precondition)})"
            boost = 0.10 if _URGENT.search(clause) else 0.0
            key = task_key(task)
            if key and key not in out:
                out[key] = TaskCandidate(
                    content=content,
                    key=key,
                    signal=min(1.0, signal + boost),
                    density=entity_density(
                        f"{task} {precondition}" if precondition else task, entity_words
                    ),
                    start=sentence.start + m.start("t"),
                    end=sentence.start + m.end("t"),
                )
            break
    return list(out.values())


def _clean(text: str) -> str:
    text = _LEAD.sub("", text.strip())
    return text.rstrip(" .!?;:").strip()
