"""Fit context layers into a token budget (pure: no engines, property-tested).

Rules: budgets are scaled to the request's total after reserving the headers; the recent
conversation is packed first, newest turn first, and never holds fewer than
``min_turns`` turns (truncated if they do not fit); turns that do not fit are folded into one
extractive summary line when room is left; every other layer takes its items by score,
skipping what does not fit, so the lowest-scored items are the ones dropped; unused budget
flows to the memories layer. The rendered text never exceeds the total budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.retrieval_types import ContextItem, Layer
from core.tokens import TokenCounter
from core.types import Memory
from retrieval.formatting import HEADERS, ORDER, memory_line, render, summary_line, turn_line

_MIN_SUMMARY_TOKENS = 8
Rc = Layer.RECENT_CONVERSATION


@dataclass
class Packed:
    layers: dict[Layer, str]
    token_counts: dict[Layer, int]
    total_tokens: int
    text: str
    items: list[ContextItem] = field(default_factory=list)
    summarized_turns: int = 0


def scale_budgets(budgets: Mapping[Layer, int], available: int) -> dict[Layer, int]:
    """Budgets scaled proportionally so they sum to at most ``available``."""
    total = sum(budgets.values())
    if total <= 0:
        return dict.fromkeys(budgets, 0)
    return {layer: (b * available) // total for layer, b in budgets.items()}


def pack(
    counter: TokenCounter,
    token_budget: int,
    budgets: Mapping[Layer, int],
    candidates: Mapping[Layer, Sequence[tuple[Memory, float]]],
    turns: Sequence[Memory],
    min_turns: int,
) -> Packed:
    """Choose and format what goes into each layer (``turns`` oldest first)."""
    headers = sum(counter.count(HEADERS[layer]) for layer in ORDER)
    available = max(0, token_budget - headers)
    scaled = scale_budgets(budgets, available)
    conv_turns, conv_lines, conv_used, summarized, forced_extra = _conversation(
        counter, scaled[Rc], turns, min_turns
    )
    # Forced turns beyond the conversation budget are paid for by the other layers.
    spare = available - conv_used - sum(v for k, v in scaled.items() if k is not Rc)
    spare = min(spare, 0) if forced_extra else max(spare, 0)
    lines: dict[Layer, list[str]] = {Rc: conv_lines}
    items: list[ContextItem] = []
    carry = spare
    for layer in (Layer.PROJECT_CONTEXT, Layer.PROCEDURAL, Layer.DOCUMENT_CHUNKS, Layer.MEMORIES):
        room = scaled[layer] + carry
        chosen, used = _by_score(counter, candidates.get(layer, ()), max(0, room))
        carry = room - used
        lines[layer] = [memory_line(m) for m, _ in chosen]
        items.extend(ContextItem(memory=m, layer=layer, score=s) for m, s in chosen)
    items.extend(ContextItem(memory=turn, layer=Rc, score=0.0) for turn in conv_turns)
    layers = {layer: "\n".join(lines.get(layer, [])) for layer in ORDER}
    # WordPiece counts add up over whitespace-joined lines, and every line was counted (and
    # cached) while packing: no need to tokenize the whole context again. The property test
    # checks the sum against a count of the rendered text.
    counts = {layer: sum(counter.count(line) for line in lines.get(layer, [])) for layer in ORDER}
    shown = sum(counter.count(HEADERS[layer]) for layer in ORDER if layers[layer])
    return Packed(
        layers=layers,
        token_counts=counts,
        total_tokens=shown + sum(counts.values()),
        text=render(layers),
        items=items,
        summarized_turns=summarized,
    )


def _by_score(
    counter: TokenCounter, candidates: Sequence[tuple[Memory, float]], room: int
) -> tuple[list[tuple[Memory, float]], int]:
    chosen: list[tuple[Memory, float]] = []
    used = 0
    seen: set[str] = set()
    for memory, score in sorted(candidates, key=lambda c: -c[1]):
        if memory.id in seen:
            continue
        cost = counter.count(memory_line(memory))
        if used + cost <= room:
            chosen.append((memory, score))
            seen.add(memory.id)
            used += cost
    return chosen, used


def _conversation(
    counter: TokenCounter, budget: int, turns: Sequence[Memory], min_turns: int
) -> tuple[list[Memory], list[str], int, int, bool]:
    """(turns kept, lines oldest first, tokens used, turns summarized, forced past budget?)."""
    kept: list[str] = []
    used = 0
    index = len(turns) - 1
    while index >= 0:
        line = turn_line(turns[index])
        cost = counter.count(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
        index -= 1
    forced = False
    need = min(min_turns, len(turns))
    if len(kept) < need:
        # The newest `need` turns are kept, each cut to an equal share of the budget.
        share = max(budget // need, 2)
        kept = [counter.truncate(turn_line(t), share) for t in turns[-need:]][::-1]
        kept = [line for line in kept if line]
        used = sum(counter.count(line) for line in kept)
        forced = used > budget
        index = len(turns) - need - 1
    kept.reverse()
    kept_turns = list(turns[index + 1 :])
    summarized = 0
    older = list(turns[: index + 1])
    room = budget - used
    if older and room >= _MIN_SUMMARY_TOKENS:
        line = counter.truncate(summary_line(older), room)
        if line:
            kept.insert(0, line)
            used += counter.count(line)
            summarized = len(older)
    return kept_turns, kept, used, summarized, forced
