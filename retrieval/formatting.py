"""Plain-text formatting of context layers: one memory per line with its type, turns in
order, each non-empty layer under a short header. Plain text reads well to any LLM and its
token count is exact (WordPiece counts add up over whitespace-joined lines)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from core.retrieval_types import Layer
from core.text import SENTENCE_BREAK
from core.times import dated
from core.types import Memory, MemoryType

HEADERS: dict[Layer, str] = {
    Layer.PROCEDURAL: "Procedures:",
    Layer.PROJECT_CONTEXT: "Project and core facts:",
    Layer.MEMORIES: "Relevant memories:",
    Layer.DOCUMENT_CHUNKS: "Document excerpts:",
    Layer.RECENT_CONVERSATION: "Recent conversation:",
}
ORDER = tuple(Layer)  # most stable first
_SPACE = re.compile(r"\s+")
_SENTENCE = SENTENCE_BREAK  # not after "Dr." or an initial


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def memory_line(memory: Memory) -> str:
    """``- [fact, 2026-03-04] Peter is a writer at WOBS``: the type and when it was stated
    (its ``valid_from``), so a model can weigh an old statement against a new one; a turn
    with a statement corrected since: ``- [episodic, 2026-01-02, corrected on 2026-03-04]
    Peter is a writer at WOBS``; the version that replaced an earlier one says so
    (``- [fact, 2026-03-04, replaces an earlier statement] Peter is an editor``); a memory one
    part of which says an earlier value marks that part (``... the office is on floor 6
    [earlier, until 2026-05-01], ...``)."""
    label = f"{memory.type.value}, {day(memory.valid_from)}"
    if memory.earlier_until is not None and memory.earlier_part is not None:
        _, b = memory.earlier_part  # one part of it is earlier; the rest still holds
        text = memory.content
        marked = f"{text[:b]} [earlier, until {day(memory.earlier_until)}]{text[b:]}"
        return f"- [{label}] {one_line(_dated(memory, marked))}"
    content = one_line(_dated(memory, memory.content))
    if memory.earlier_until is not None:  # an earlier value, right after the current one
        return f"- earlier: {content} (until {day(memory.earlier_until)})"
    if memory.supersedes is not None:  # the current value, said over an earlier one
        label += ", replaces an earlier statement"
    if memory.corrected_at is not None:
        label += f", corrected on {day(memory.corrected_at)}"
    if memory.now_value is not None and memory.names_earlier:
        label += f"; now: {memory.now_value}; earlier: {', '.join(memory.names_earlier)}"
    return f"- [{label}] {content}"


def _dated(memory: Memory, text: str) -> str:
    """Relative days resolved against when the memory was said ("yesterday [2023-05-07]");
    a document's words were written at a time the service does not know."""
    return text if memory.type is MemoryType.DOCUMENT else dated(text, memory.valid_from)


def day(at: float) -> str:
    """An epoch time as its UTC date, ``2026-03-04``."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


def turn_line(turn: Memory) -> str:
    """A conversation turn as its own line (its content carries the speaker if it has one)."""
    return f"- {one_line(turn.content)}"


def first_sentence(text: str) -> str:
    flat = one_line(text)
    return _SENTENCE.split(flat, maxsplit=1)[0] if flat else ""


def summary_line(turns: list[Memory]) -> str:
    """Extractive summary of older turns: the first sentence of each, oldest first."""
    return "- Earlier: " + " / ".join(first_sentence(t.content) for t in turns)


def render(layers: dict[Layer, str]) -> str:
    """The context text: non-empty layers under their headers, most stable first."""
    blocks = [f"{HEADERS[layer]}\n{layers[layer]}" for layer in ORDER if layers.get(layer)]
    return "\n\n".join(blocks)
