"""Structure-aware chunking of markdown / plain text for document ingestion.

The text is cut into blocks — headings, fenced code blocks, lists, tables, paragraphs — and
blocks are packed into chunks of ``chunk_min_tokens``–``chunk_max_tokens`` tokens (the
embedder's tokenizer, ``core/tokens.py``). A heading starts a new chunk once the current one
has reached the minimum; code blocks, lists and tables are never split (one larger than the
maximum becomes a chunk of its own, and only one beyond four times the maximum is cut at line
boundaries); an oversized paragraph is split at sentence boundaries. Consecutive chunks
overlap by about ``chunk_overlap`` of the maximum: the next chunk repeats the trailing
sentences of the previous chunk's last paragraph (never a piece of code or a list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.settings import IngestSettings
from core.tokens import token_counter
from ingest.extract.sentences import split_sentences

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE = re.compile(r"^\s*\|")
ATOMIC = frozenset({"code", "list", "table"})


def count_tokens(text: str) -> int:
    return token_counter().count(text)


def count_tokens_batch(texts: list[str]) -> list[int]:
    counter = token_counter()
    return [counter.count(t) for t in texts]


@dataclass(frozen=True)
class Block:
    kind: str  # heading | code | list | table | paragraph
    text: str
    tokens: int = 0
    heading: str = ""  # breadcrumb of the headings above this block


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    tokens: int
    heading: str = ""
    overlap_tokens: int = 0  # tokens repeated from the previous chunk


def blocks_of(text: str) -> list[Block]:
    """Split markdown into structural blocks with their heading breadcrumb."""
    raw: list[tuple[str, str, str]] = []
    path: list[tuple[int, str]] = []
    lines = text.replace("\r\n", "\n").split("\n")
    para: list[str] = []
    i = 0

    def crumb() -> str:
        return " > ".join(t for _, t in path)

    def flush_para() -> None:
        if para:
            raw.append(("paragraph", "\n".join(para).strip(), crumb()))
            para.clear()

    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush_para()
            body = [line]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            if i < len(lines):
                body.append(lines[i])
            raw.append(("code", "\n".join(body), crumb()))
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            flush_para()
            level = len(heading.group(1))
            path[:] = [(lv, t) for lv, t in path if lv < level] + [(level, heading.group(2))]
            raw.append(("heading", line.strip(), crumb()))
            i += 1
            continue
        for kind, pattern in (("list", _LIST), ("table", _TABLE)):
            if pattern.match(line):
                flush_para()
                body = [line]
                i += 1
                while (
                    i < len(lines)
                    and lines[i].strip()
                    and (
                        pattern.match(lines[i])
                        or (kind == "list" and lines[i].startswith((" ", "\t")))
                    )
                ):
                    body.append(lines[i])
                    i += 1
                raw.append((kind, "\n".join(body), crumb()))
                break
        else:
            if line.strip():
                para.append(line)
            else:
                flush_para()
            i += 1
    flush_para()
    counts = count_tokens_batch([t for _, t, _ in raw])
    return [Block(k, t, n, h) for (k, t, h), n in zip(raw, counts, strict=True) if t.strip()]


def _split_large(block: Block, limit: int) -> list[Block]:
    """Pieces of a block over ``limit``: sentences for prose, lines for huge atomic blocks."""
    if block.kind in ATOMIC:
        if block.tokens <= 4 * limit:
            return [block]
        units = block.text.split("\n")
        sep = "\n"
    else:
        units = [s.text for s in split_sentences(block.text)] or [block.text]
        sep = " "
    pieces: list[Block] = []
    current: list[str] = []
    size = 0
    for unit, n in zip(units, count_tokens_batch(units), strict=True):
        if n > limit:  # a single run-on "sentence": cut by words
            words = unit.split()
            step = max(1, len(words) * limit // (n + 1))
            parts = [" ".join(words[k : k + step]) for k in range(0, len(words), step)]
        else:
            parts = [unit]
        for part in parts:
            m = count_tokens(part) if len(parts) > 1 else n
            if current and size + m > limit:
                pieces.append(Block(block.kind, sep.join(current), size, block.heading))
                current, size = [], 0
            current.append(part)
            size += m
    if current:
        pieces.append(Block(block.kind, sep.join(current), size, block.heading))
    return pieces


def _overlap(prev: list[Block], budget: int, room: int) -> str:
    """Trailing sentences of the previous chunk's last paragraph: about ``budget`` tokens,
    never more than ``room``."""
    limit = min(2 * budget, room)
    if not prev or prev[-1].kind != "paragraph" or budget <= 0 or limit <= 0:
        return ""
    taken: list[str] = []
    size = 0
    for sentence in reversed(split_sentences(prev[-1].text)):
        n = count_tokens(sentence.text)
        if size + n > limit:
            break
        taken.insert(0, sentence.text)
        size += n
        if size >= budget:
            break
    return " ".join(taken)


def chunk_text(text: str, settings: IngestSettings) -> list[Chunk]:
    """Chunks of ``text`` in order (see the module docstring)."""
    lo, hi = settings.chunk_min_tokens, settings.chunk_max_tokens
    budget = int(hi * settings.chunk_overlap)
    body_max = hi - budget  # room for the overlap of the previous chunk
    groups: list[list[Block]] = []
    current: list[Block] = []
    size = 0
    for block in blocks_of(text):
        for piece in _split_large(block, body_max) if block.tokens > body_max else [block]:
            starts_section = piece.kind == "heading" and size >= lo
            if current and (starts_section or size + piece.tokens > body_max):
                groups.append(current)
                current, size = [], 0
            current.append(piece)
            size += piece.tokens
    if current:
        if groups and size < lo // 2 and sum(b.tokens for b in groups[-1]) + size <= body_max:
            groups[-1].extend(current)  # no tiny tail chunk
        else:
            groups.append(current)
    chunks: list[Chunk] = []
    for index, group in enumerate(groups):
        body = "\n\n".join(b.text for b in group)
        room = hi - count_tokens(body)
        lead = _overlap(groups[index - 1], budget, room) if index else ""
        full = f"{lead}\n\n{body}" if lead else body
        chunks.append(
            Chunk(
                index=index,
                text=full,
                tokens=count_tokens(full),
                heading=group[0].heading,
                overlap_tokens=count_tokens(lead) if lead else 0,
            )
        )
    return chunks
