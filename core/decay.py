"""Class-based decay: a ranking factor only, never a deletion.

decay = exp(-ln2 · age_days / half_life_days), with the clock reset by each access.
"""

from __future__ import annotations

import math

from core.types import DecayClass

HALF_LIFE_DAYS: dict[DecayClass, float | None] = {
    DecayClass.NONE: None,
    DecayClass.SLOW: 90.0,
    DecayClass.MEDIUM: 14.0,
    DecayClass.FAST: 2.0,
}


def decay_factor(decay_class: DecayClass, last_touched: float, at: float) -> float:
    """1.0 when fresh (or never decaying), halving every half-life since ``last_touched``."""
    half_life = HALF_LIFE_DAYS[decay_class]
    if half_life is None:
        return 1.0
    days = max(0.0, at - last_touched) / 86_400.0
    return math.exp(-math.log(2) * days / half_life)
