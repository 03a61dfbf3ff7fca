"""The values a correction replaced, and the lines that still say them
(``retrieval/stale.py``): a correction of one value leaves the others of its line current."""

from __future__ import annotations

from typing import Any

from core.types import LineageLink
from retrieval.stale import old_values, passing_mentions, replaced
from tests.memories import ranked, said

MINUTE = 60.0


def test_a_corrected_time_replaces_the_time_only(nlp: Any) -> None:
    booking = said(
        nlp,
        "So I'll book a table for 2 people at California Cafe in Los Gatos for 5:15 pm today.",
        0,
        session_id="s",
        superseded_at=2 * MINUTE,
    )
    fix = said(nlp, "Actually, make the reservation at 17:45.", 2 * MINUTE, session_id="s")
    asked = said(nlp, "Can you find some alternatives in Los Gatos?", -MINUTE, session_id="s")
    echo = said(nlp, "Yes, go ahead, make it for 5:15 pm.", MINUTE, session_id="s")
    links = [LineageLink(memory=booking), LineageLink(memory=fix, current=True)]

    gone, kept = replaced(old_values(links, 3 * MINUTE), fix)
    assert gone == {"17:15"}, gone  # 5:15 pm
    assert not gone & {"los gatos", "2", "california cafe"}  # the place and the party hold

    out = passing_mentions(ranked(asked, echo, fix), [(fix.id, gone, kept)])
    # the city the user asked for is no earlier value; the time said before the fix is
    assert [(h.memory.id, h.memory.earlier_until) for h in out] == [
        (asked.id, None),
        (fix.id, None),
        (echo.id, 2 * MINUTE),
    ]
