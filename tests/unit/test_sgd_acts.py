"""The SGD dialogue-act benchmark's reading of one turn (``bench/sgd_acts.py``): a value a
turn informs is counted as read, of its slot's family, in the mood it was read in; a turn
that informs nothing counts a value said as so as a misreading."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from bench.sgd_acts import family_of, read_turn


def turn(text: str, *acts: tuple[str, str, str]) -> dict[str, Any]:
    actions = [{"act": a, "slot": s, "values": [v] if v else []} for a, s, v in acts]
    return {"utterance": text, "speaker": "USER", "frames": [{"actions": actions}]}


def read(nlp: Any, *turns: dict[str, Any]) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        read_turn(nlp, t, counts, examples)
    return counts


def test_an_informed_day_is_read_as_a_date_in_a_slots_mood(nlp: Any) -> None:
    counts = read(nlp, turn("I need to check in on next Thursday.",
                            ("INFORM", "check_in_date", "next Thursday")))  # fmt: skip
    informed = counts["values informed"]
    assert informed["values"] == 1 and informed["not read"] == 0
    assert informed["family right"] == informed["family known"] == 1
    assert informed["mood request"] == 1


def test_a_turn_that_informs_nothing_is_read_with_no_value(nlp: Any) -> None:
    counts = read(
        nlp,
        turn("That one sounds good.", ("SELECT", "", "")),
        turn("What's the address?", ("REQUEST", "address", "")),
    )
    assert counts["no value"] == Counter({"turns": 1})
    assert counts["questions only"] == Counter({"turns": 1})


def test_a_slots_name_says_its_family() -> None:
    assert family_of("pickup_time") == "time"
    assert family_of("number_of_days") == "duration"
    assert family_of("number_of_seats") == "amount"
    assert family_of("destination_city") == "thing"
    assert family_of("genre") is None
