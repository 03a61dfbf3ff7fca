"""What a hit needs to enter a context (``retrieval.assembly.Floor``)."""

from __future__ import annotations

from core.retrieval_types import Layer, RetrievalPath
from core.types import Hit
from retrieval.answers import ANSWERS
from retrieval.assembly import Floor
from retrieval.slots import answering
from tests.memories import a_memory

FLOOR = Floor({"memories": 0.2}, similarity=0.3, assistant=0.45)


def hit(
    similarity: float,
    keyword: float = 0.0,
    gate: float = 1.0,
    source: str = "turn:user",
    paths: tuple[str, ...] = (RetrievalPath.SEMANTIC,),
) -> Hit:
    signals = {"similarity": similarity, "keyword": keyword, "relevance_gate": gate}
    memory = a_memory("Dimitri services our combi oven every March", source=source)
    return Hit(memory=memory, score=1.0, paths=paths, signals=signals)


def test_a_close_hit_passes_and_a_faint_one_without_a_word_of_the_question_does_not() -> None:
    assert not FLOOR.below(hit(0.42), Layer.MEMORIES)
    assert FLOOR.below(hit(0.12), Layer.MEMORIES)
    # a word of the question lets a faint hit in (the relative floor still applies)
    assert not FLOOR.below(hit(0.12, keyword=0.5), Layer.MEMORIES)
    assert FLOOR.below(hit(0.12, keyword=0.5, gate=0.1), Layer.MEMORIES)


def test_an_assistant_turn_needs_to_be_closer() -> None:
    assert not FLOOR.below(hit(0.5, source="turn:assistant"), Layer.MEMORIES)
    assert FLOOR.below(hit(0.4, keyword=0.5, source="turn:assistant"), Layer.MEMORIES)
    assert not FLOOR.below(hit(0.4, keyword=0.5), Layer.MEMORIES)  # the user's own words pass


def test_a_hit_about_an_entity_the_question_names_always_passes() -> None:
    about = (RetrievalPath.ENTITY, RetrievalPath.SEMANTIC)
    assert not FLOOR.below(hit(0.05, gate=0.05, paths=about), Layer.MEMORIES)
    assert not FLOOR.below(hit(0.05, source="turn:assistant", paths=about), Layer.MEMORIES)


def test_a_hit_the_slot_check_found_answering_the_question_always_passes() -> None:
    """ "sorry, 2791" is faint beside "what's Dana's number?", and it is the answer."""
    faint, other = hit(0.05, gate=0.05), hit(0.05, gate=0.05)
    marked = answering([faint, other], {faint.memory.id})
    assert marked[0].signals[ANSWERS] == 1.0 and ANSWERS not in marked[1].signals
    assert marked[0].signals["similarity"] == 0.05  # the rest of its signals kept
    assert not FLOOR.below(marked[0], Layer.MEMORIES, rank=5)
    assert FLOOR.below(marked[1], Layer.MEMORIES, rank=5)
    assert answering([faint], set()) == [faint]
