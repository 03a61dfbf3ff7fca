"""Budget invariants of context packing, with the real offline tokenizer: never over budget,
never fewer than three recent turns, lowest-scored items dropped first."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.retrieval_types import Layer
from core.settings import RetrievalSettings
from core.text import content_hash
from core.tokens import token_counter
from core.types import Memory, MemoryType
from retrieval.formatting import HEADERS, memory_line, render
from retrieval.packing import pack

COUNTER = token_counter()
BUDGETS = {Layer(k): v for k, v in RetrievalSettings().layer_budgets.items()}
words = st.text(alphabet="abcdefghij klmnop.,!?", min_size=1, max_size=400).filter(str.strip)


def mem(i: int, text: str, kind: MemoryType = MemoryType.FACT) -> Memory:
    return Memory(
        id=f"m{i}",
        tenant_id="t",
        type=kind,
        content=text,
        created_at=float(i),
        valid_from=float(i),
        content_hash=content_hash(text),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    budget=st.integers(64, 3000),
    turns=st.lists(words, max_size=12),
    facts=st.lists(st.tuples(words, st.floats(0, 1)), max_size=15),
)
def test_never_over_budget_and_never_fewer_than_three_turns(
    budget: int, turns: list[str], facts: list[tuple[str, float]]
) -> None:
    turn_objs = [mem(i, t, MemoryType.WORKING) for i, t in enumerate(turns)]
    candidates = {Layer.MEMORIES: [(mem(100 + i, t), s) for i, (t, s) in enumerate(facts)]}
    packed = pack(COUNTER, budget, BUDGETS, candidates, turn_objs, 3)
    assert packed.total_tokens == COUNTER.count(packed.text) <= budget
    kept = [i for i in packed.items if i.layer is Layer.RECENT_CONVERSATION]
    assert len(kept) >= min(3, len(turns))
    assert [i.memory.id for i in kept] == [t.id for t in turn_objs[len(turn_objs) - len(kept) :]]


def test_lowest_scored_items_are_dropped_first() -> None:
    facts = [(mem(i, f"fact number {i} " + "detail " * 30), i / 10) for i in range(10)]
    packed = pack(COUNTER, 600, BUDGETS, {Layer.MEMORIES: facts}, [], 3)
    chosen = sorted(int(i.memory.id[1:]) for i in packed.items)
    assert chosen and chosen == list(range(10 - len(chosen), 10))
    assert packed.total_tokens <= 600


def test_budgets_scale_with_the_request() -> None:
    facts = [(mem(i, f"fact {i} " + "word " * 20), 0.5) for i in range(60)]
    small = pack(COUNTER, 500, BUDGETS, {Layer.MEMORIES: facts}, [], 3)
    large = pack(COUNTER, 5000, BUDGETS, {Layer.MEMORIES: facts}, [], 3)
    assert small.total_tokens <= 500 < large.total_tokens <= 5000
    assert len(large.items) > len(small.items)


def test_token_counts_are_cached_by_text_and_bounded() -> None:
    from core.tokens import TokenCounter, default_tokenizer_path

    counter = TokenCounter(default_tokenizer_path(), cache_size=2)
    texts = ["Peter is a writer at WOBS", "Invoices go out monthly", "x y z"]
    first = [counter.count(t) for t in texts]
    assert first == [COUNTER.count(t) for t in texts] and first[0] == 7
    assert [counter.count(t) for t in texts] == first  # served from the cache, same counts
    assert len(counter._counts) == 2  # the oldest text was evicted


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=6))
def test_token_counts_add_up_over_joined_lines(texts: list[str]) -> None:
    """What packing's accounting rests on, for any text: a layer's count is the sum of its
    lines', and the context's is that plus its headers'."""
    lines = [memory_line(mem(i, t)) for i, t in enumerate(texts)]
    body = "\n".join(lines)
    assert COUNTER.count(body) == sum(COUNTER.count(line) for line in lines)
    text = render({Layer.MEMORIES: body, Layer.PROCEDURAL: lines[0]})
    expected = COUNTER.count(body) + COUNTER.count(lines[0])
    headers = COUNTER.count(HEADERS[Layer.MEMORIES]) + COUNTER.count(HEADERS[Layer.PROCEDURAL])
    assert COUNTER.count(text) == expected + headers
