"""How the write path reads what users say, against the dialogue acts of the Schema-Guided
Dialogue corpus (text nobody here wrote, annotated by its authors).

    python -m bench.sgd_acts --data DIR [--split dev] [--dialogues 600] [--out FILE]

Each user turn of the split (``train`` or ``dev``; never ``test``) is read as the write path
reads it (``ingest/slots/analysis.statements``) and compared with its acts:

- **values informed**: a value an ``INFORM`` act gives that the utterance says word for word
  (its slot, say ``time`` = "half past 11 in the morning"). Is it read as a value (a value's
  span overlaps it), of the family its slot holds (a time slot, a time), and in which mood
  (said as so, requested, asked ...)? A value read in a mood that no slot holds (reported,
  a plan, a negation) is one the read path will not let replace anything.
- **questions only**: a turn whose acts only ask (``REQUEST`` a slot's value, ``REQUEST_ALTS``)
  and inform nothing: does the write path read a value said as so or requested in it?
- **no value**: a turn that informs nothing and asks nothing (thanks, goodbye, yes, no): the
  same question.

Prints the figures and the first misreadings of each kind; writes JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from core.settings import Settings
from core.statements import QUESTION, SLOTTED, Statement, Value
from ingest.slots.analysis import statements

ROOT = Path(__file__).resolve().parents[1]
ASKING = frozenset({"REQUEST", "REQUEST_ALTS"})
EXAMPLES = 25


def family_of(slot: str) -> str | None:
    """The family of value a slot holds, where its name says it (None: any)."""
    if slot in ("number_of_days", "stay_length"):
        return "duration"  # "for 3 days"
    if re.search(r"time\b|^time", slot) and "number" not in slot:
        return "time"
    if "date" in slot or slot in ("check_in", "check_out"):
        return "date"
    if re.search(r"number_of|travelers|group_size|^count|seats|rooms|amount", slot):
        return "amount"
    if re.search(r"city|location|destination|origin|address|^to_|^from_|name|title", slot):
        return "thing"
    return None


def _spans(text: str, value: str) -> list[tuple[int, int]]:
    pattern = rf"(?<![\w]){re.escape(value)}(?![\w])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, re.I)]


def _at(said: Sequence[Statement], start: int, end: int) -> tuple[Statement, Value] | None:
    for s in said:
        for v in s.values:
            if v.start < end and start < v.end:
                return s, v
    return None


def read_turn(nlp: Any, turn: dict[str, Any], counts: dict[str, Counter[str]],
              examples: dict[str, list[dict[str, Any]]]) -> None:  # fmt: skip
    text = turn["utterance"]
    said = statements(nlp(text), text)
    acts = {a["act"] for f in turn["frames"] for a in f["actions"]}
    informed = [
        (a["slot"], v)
        for f in turn["frames"]
        for a in f["actions"]
        if a["act"] == "INFORM"
        for v in a["values"]
    ]

    def note(kind: str, row: dict[str, Any]) -> None:
        if len(examples[kind]) < EXAMPLES:
            examples[kind].append({"utterance": text, **row})

    slotted = [(s, v) for s in said if s.mood in SLOTTED for v in s.values]
    if not informed:
        group = "questions only" if acts & ASKING else "no value"
        counts[group]["turns"] += 1
        if slotted:
            counts[group]["with a value said as so or requested"] += 1
            note(group, {"read": [(s.mood, v.text, v.kind) for s, v in slotted]})
        return
    for slot, value in informed:
        spans = _spans(text, value)
        if not spans:
            continue
        c = counts["values informed"]
        c["values"] += 1
        found = _at(said, *spans[0])
        if found is None:
            c["not read"] += 1
            note("not read", {"slot": slot, "value": value})
            continue
        s, v = found
        c[f"mood {s.mood}"] += 1
        if s.mood not in SLOTTED and s.mood != QUESTION:
            note("no slot's mood", {"slot": slot, "value": value, "mood": s.mood, "as": v.text})
        want = family_of(slot)
        if want is not None:
            c["family known"] += 1
            if v.family == want:
                c["family right"] += 1
            else:
                note("wrong family", {"slot": slot, "value": value, "as": v.text, "kind": v.kind})


def run(nlp: Any, data: Path, split: str, dialogues: int, seed: int) -> dict[str, Any]:
    if split == "test":
        raise SystemExit("test/ is reserved for independent measurement")
    every: list[dict[str, Any]] = []
    for f in sorted((data / split).glob("dialogues_*.json")):
        every.extend(json.loads(f.read_text()))
    random.Random(seed).shuffle(every)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for dialogue in every[:dialogues]:
        for turn in dialogue["turns"]:
            if turn["speaker"] == "USER":
                read_turn(nlp, turn, counts, examples)
    v = counts["values informed"]
    rates = {
        "values read": 1 - v["not read"] / max(v["values"], 1),
        "values read in a slot's mood": sum(v[f"mood {m}"] for m in SLOTTED) / max(v["values"], 1),
        "values read as asked": v[f"mood {QUESTION}"] / max(v["values"], 1),
        "family right": v["family right"] / max(v["family known"], 1),
        "questions-only turns with a slotted value": counts["questions only"][
            "with a value said as so or requested"
        ]
        / max(counts["questions only"]["turns"], 1),
        "no-value turns with a slotted value": counts["no value"][
            "with a value said as so or requested"
        ]
        / max(counts["no value"]["turns"], 1),
    }
    return {
        "split": split,
        "dialogues": min(dialogues, len(every)),
        "rates": {k: round(x, 3) for k, x in rates.items()},
        "counts": {k: dict(c) for k, c in counts.items()},
        "examples": dict(examples),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True, help="the extracted SGD corpus")
    parser.add_argument("--split", default="dev", choices=["train", "dev"])
    parser.add_argument("--dialogues", type=int, default=600)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "sgd_acts.json")
    args = parser.parse_args(argv)
    import spacy

    nlp = spacy.load(Settings().resolution.spacy_model)
    result = {"machine": machine(), **run(nlp, args.data, args.split, args.dialogues, args.seed)}
    for name, rate in result["rates"].items():
        print(f"{name:<45} {rate:.3f}")
    for name, c in result["counts"].items():
        print(name, dict(c))
    write_json(args.out, result)


if __name__ == "__main__":
    main()
