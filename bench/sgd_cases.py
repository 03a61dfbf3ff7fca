"""The cases ``bench.sgd`` measures, read from the Schema-Guided Dialogue corpus (train/ and
dev/ only): a (dialogue, service, slot) whose value the user replaced with a disjoint one, the
forms each value takes in the turns, and the question asked for it (see ``bench/sgd.py``)."""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SPLITS = ("train", "dev")  # never test/
SCHEMA_GIT = Path("/work/.mirror/google-research-datasets+dstc8-schema-guided-dialogue/repo")
SAMPLE_CASES = 40

GENERIC = {"dontcare", "true", "false", "none", "yes", "no", "any", "one"}
NUMBER_WORDS = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}
_SPACE = re.compile(r"\s+")
_NUMERIC = re.compile(r"^\d+(?:\.\d+)?$")


def norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def form_pattern(form: str) -> re.Pattern[str]:
    """Word-bounded, case-insensitive; numbers also kept apart from times, dates, decimals."""
    body = re.escape(form).replace(r"\ ", r"\s+")
    if _NUMERIC.match(form):
        return re.compile(rf"(?<![\w:/.-]){body}(?![\w:/]|\.\d)", re.IGNORECASE)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def first_match(forms: Iterable[str], text: str) -> tuple[int, str] | None:
    """The earliest (position, form) at which any form occurs in ``text``."""
    best: tuple[int, str] | None = None
    for form in forms:
        m = form_pattern(form).search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), form)
    return best


def generic(form: str) -> bool:
    return form in GENERIC or (len(form) == 1 and not form.isdigit())


def with_number_words(forms: set[str]) -> set[str]:
    out = set(forms)
    for f in forms:
        if f.isdigit() and int(f) in NUMBER_WORDS:
            out.add(NUMBER_WORDS[int(f)])
    return out


# ---------------------------------------------------------------------------------- the corpus


def load_schema(data: Path, split: str) -> dict[tuple[str, str], str]:
    """(service, slot) -> the slot's description; from the split's schema.json, else from the
    upstream repository's snapshot."""
    path = data / split / "schema.json"
    if path.exists():
        raw = json.loads(path.read_text())
    else:
        shown = subprocess.run(
            ["git", "-C", str(SCHEMA_GIT), "show", f"HEAD:{split}/schema.json"],
            capture_output=True,
            text=True,
            check=True,
        )
        raw = json.loads(shown.stdout)
    return {
        (svc["service_name"], slot["name"]): slot["description"]
        for svc in raw
        for slot in svc["slots"]
    }


def load_dialogues(data: Path, split: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Every dialogue of the split; files that are missing or empty are skipped and named."""
    if split not in SPLITS:
        raise SystemExit(f"split must be one of {SPLITS}")
    dialogues: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in sorted((data / split).glob("dialogues_*.json")):
        text = path.read_text()
        try:
            dialogues.extend(json.loads(text))
        except json.JSONDecodeError:
            skipped.append(path.name)
    return dialogues, skipped


def question(description: str) -> str:
    d = description.strip().rstrip(".").strip()
    d = re.sub(r"^the\s+", "", d, flags=re.IGNORECASE)
    first = d.split(" ", 1)[0]
    if not (len(first) > 1 and first.isupper()):
        d = d[:1].lower() + d[1:]
    return f"What is the {d}?"


@dataclass
class Case:
    dialogue_id: str
    service: str
    slot: str
    question: str
    new: list[str]  # the final value set as the state has it
    old: list[str]  # the earlier disjoint value sets, flattened
    current: list[str]  # forms of the new value
    stale: list[str]  # forms of the old values
    turn: int  # the turn in which the new value appeared

    @property
    def numeric(self) -> bool:
        return any(_NUMERIC.match(f) for f in self.current + self.stale)


def _pairs(dialogue: dict[str, Any]) -> list[tuple[str, str]]:
    pairs = []
    for turn in dialogue["turns"]:
        for frame in turn["frames"]:
            for action in frame["actions"]:
                values, canon = action.get("values", []), action.get("canonical_values", [])
                for i, v in enumerate(values):
                    c = canon[i] if i < len(canon) else v
                    pairs.append((norm(v), norm(c)))
    return pairs


def _forms(seed: set[str], pairs: list[tuple[str, str]]) -> set[str]:
    forms = set(seed)
    grew = True
    while grew:
        grew = False
        for a, b in pairs:
            if (a in forms) != (b in forms):
                forms |= {a, b}
                grew = True
    return forms


def find_cases(
    dialogue: dict[str, Any], schema: dict[tuple[str, str], str], dropped: Counter[str]
) -> list[Case]:
    turns = dialogue["turns"]
    history: dict[tuple[str, str], list[tuple[int, frozenset[str]]]] = defaultdict(list)
    for i, turn in enumerate(turns):
        if turn["speaker"] != "USER":
            continue
        for frame in turn["frames"]:
            for slot, values in frame.get("state", {}).get("slot_values", {}).items():
                history[(frame["service"], slot)].append((i, frozenset(map(norm, values))))
    pairs: list[tuple[str, str]] | None = None
    cases = []
    for (service, slot), seq in history.items():
        final = seq[-1][1]
        k = len(seq) - 1
        while k > 0 and seq[k - 1][1] == final:
            k -= 1
        earlier = [s for _, s in seq[:k] if not s & final]
        if not earlier:
            continue
        if pairs is None:
            pairs = _pairs(dialogue)
        current = with_number_words(_forms(set(final), pairs))
        stale = with_number_words(_forms(set().union(*earlier), pairs))
        at = seq[k][0]
        utterance = turns[at]["utterance"]
        informed = any(
            action["act"] == "INFORM"
            and action["slot"] == slot
            and any(norm(v) in final for v in action["values"])
            for frame in turns[at]["frames"]
            if frame["service"] == service
            for action in frame["actions"]
        )
        if not informed or first_match(current, utterance) is None:
            dropped["not_informed_by_user"] += 1
            continue
        current = {f for f in current if not generic(f)}
        stale = {f for f in stale if not generic(f)}
        if not current or not stale:
            dropped["generic"] += 1
            continue
        if any(first_match([a], b) or first_match([b], a) for a in current for b in stale):
            dropped["overlap"] += 1
            continue
        description = schema.get((service, slot), slot.replace("_", " "))
        cases.append(
            Case(
                dialogue_id=dialogue["dialogue_id"],
                service=service,
                slot=slot,
                question=question(description),
                new=sorted(final),
                old=sorted(set().union(*earlier)),
                current=sorted(current),
                stale=sorted(stale),
                turn=at,
            )
        )
    return cases


def all_cases(
    data: Path, split: str
) -> tuple[dict[str, dict[str, Any]], list[Case], dict[str, Any]]:
    schema = load_schema(data, split)
    dialogues, skipped = load_dialogues(data, split)
    dropped: Counter[str] = Counter()
    cases = [c for d in dialogues for c in find_cases(d, schema, dropped)]
    by_id = {d["dialogue_id"]: d for d in dialogues}
    info = {
        "split": split,
        "dialogues": len(dialogues),
        "skipped_files": skipped,
        "cases": len(cases),
        "dialogues_with_cases": len({c.dialogue_id for c in cases}),
        "dropped": dict(dropped),
    }
    return by_id, cases, info


def choose(cases: list[Case], limit: int | None, seed: int) -> list[Case]:
    """All cases, or those of a seeded random sample of ``limit`` of their dialogues."""
    if not limit:
        return cases
    ids = sorted({c.dialogue_id for c in cases})
    chosen = set(random.Random(seed).sample(ids, min(limit, len(ids))))
    return [c for c in cases if c.dialogue_id in chosen]


# ------------------------------------------------------------------------------- the measure


def write_sample(data: Path, out: Path, seed: int) -> int:
    """``SAMPLE_CASES`` seeded-random cases of the train split, one JSON object a line;
    returns how many."""
    by_id, cases, _ = all_cases(data, "train")
    picked = random.Random(seed).sample(cases, min(SAMPLE_CASES, len(cases)))
    picked.sort(key=lambda c: (c.dialogue_id, c.service, c.slot))
    lines = []
    for c in picked:
        turns = [
            {"speaker": t["speaker"], "utterance": t["utterance"]}
            for t in by_id[c.dialogue_id]["turns"]
        ]
        row = {
            k: v
            for k, v in asdict(c).items()
            if k in ("dialogue_id", "service", "slot", "question", "current", "stale")
        }
        lines.append(json.dumps({**row, "turns": turns}, ensure_ascii=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return len(lines)
