"""Does a later statement replace an earlier one? Precision and recall of the slot matcher
(``core/slots.py`` over ``ingest/slots/analysis.py``) on labelled sentence pairs.

    python -m bench.slot_pairs [--sgd DIR] [--split train] [--dialogues 400] [--out FILE]

Two sets:

- **dev** (``tests/data/ingest/slot_pairs.jsonl``): pairs written beside the matcher,
  near-misses included (the staging vs the production server, warehouse 1 vs warehouse 3,
  one person's role vs another's, a plan vs a fact). A development set: its author wrote
  the rules.
- **SGD** (held out: nobody here wrote it): pairs of user turns of one Schema-Guided
  Dialogue (``--sgd``, the extracted corpus; ``train`` or ``dev``, never ``test``). A pair is
  *positive* when the later turn informs a slot the earlier turn informed, with a disjoint
  value (the annotation says so); *negative* when the later turn informs only slots the
  earlier one did not inform (a value of another slot).

A pair counts as "replaces" when any statement of the later text replaces a statement of the
earlier by slot (``same_slot``) or, for pairs said in one session, as a correction
(``corrects``). Prints precision, recall and F1 per set (and per kind for dev) and writes JSON.

``--masked`` also scores the issue's wording-free candidate: the embedder's similarity of the
two statements with their values masked ("Tell me the weather in [thing] on [date]"), for
statements said as so that give values of one kind, not the same ones, and name no one the
other does not; a pair "replaces" above a threshold. Reported alone and with the rules, at
several thresholds, on both sets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import machine, write_json
from core.settings import Settings
from core.slots import corrects, same_slot
from core.statements import ASSERT, REQUEST, Statement
from ingest.slots.analysis import statements
from vectors.embedding.local import LocalEmbedder

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "ingest" / "slot_pairs.jsonl"


def replaces(new: Sequence[Statement], old: Sequence[Statement], session: bool) -> bool:
    for n in new:
        if session and any(r.changed for _, r in corrects(n, [(o, True) for o in old[::-1]])):
            return True
        for o in old:
            match = same_slot(n, o)
            if match is not None and match.changed:
                return True
    return False


MASKED_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
# each pair as read: (truth, the rules' answer, the later text's statements, the earlier's)
Read = list[tuple[bool, bool, list[Statement], list[Statement]]]


def masked(s: Statement) -> str:
    """The statement's text with each value replaced by its family: "[time]", "[thing]"."""
    out, at = [], 0
    for v in sorted(s.values, key=lambda v: v.start):
        a, b = v.start - s.start, v.end - s.start
        if a < at or b > len(s.text):
            continue
        out += [s.text[at:a], f"[{v.family}]"]
        at = b
    return "".join([*out, s.text[at:]])


async def masked_similarity(
    embed: Callable[[str], Awaitable[list[float]]],
    new: Sequence[Statement],
    old: Sequence[Statement],
) -> float:
    """The highest similarity of two masked statements that could be one slot (see the
    module docstring); 0 when no two could."""
    best = 0.0
    for n in new:
        for o in old:
            if n.mood not in (ASSERT, REQUEST) or o.mood not in (ASSERT, REQUEST):
                continue
            kinds = {v.family for v in n.values} & {v.family for v in o.values}
            changed = [
                v for v in n.values if v.family in kinds and not any(v.same(w) for w in o.values)
            ]
            names, others = {v.norm for v in n.named}, {v.norm for v in o.named}
            if not changed or names and others and not names & others:
                continue
            a, b = await embed(masked(n)), await embed(masked(o))
            best = max(best, sum(x * y for x, y in zip(a, b, strict=True)))
    return best


def thresholds(rows: Sequence[tuple[bool, bool, float]]) -> dict[str, Any]:
    """Precision and recall of masked similarity at each threshold, alone and with the rules
    (``rows``: truth, the rules' answer, the similarity)."""
    return {
        f"{t:g}": {
            "masked": score([(truth, sim >= t) for truth, _, sim in rows]),
            "rules_or_masked": score([(truth, said or sim >= t) for truth, said, sim in rows]),
        }
        for t in MASKED_THRESHOLDS
    }


def score(rows: Sequence[tuple[bool, bool]]) -> dict[str, float]:
    tp = sum(1 for truth, said in rows if truth and said)
    fp = sum(1 for truth, said in rows if not truth and said)
    fn = sum(1 for truth, said in rows if truth and not said)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"pairs": len(rows), "precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp,
            "fn": fn}  # fmt: skip


def dev_pairs(nlp: Any) -> tuple[dict[str, Any], list[dict[str, Any]], Read]:
    rows, by_kind, errors = [], defaultdict(list), []
    read: Read = []
    for line in DEV.read_text().splitlines():
        pair = json.loads(line)
        new, old = statements(nlp(pair["new"])), statements(nlp(pair["old"]))
        said = replaces(new, old, pair.get("session", False))
        rows.append((pair["same"], said))
        read.append((pair["same"], said, new, old))
        by_kind[pair.get("kind", "same" if pair["same"] else "other")].append((pair["same"], said))
        if said != pair["same"]:
            errors.append(pair)
    result = score(rows)
    result["per_kind"] = {k: score(v) for k, v in sorted(by_kind.items())}
    return result, errors, read


def sgd_pairs(
    nlp: Any, data: Path, split: str, dialogues: int, seed: int
) -> tuple[dict[str, Any], list[dict[str, Any]], Read]:
    if split == "test":
        raise SystemExit("test/ is reserved for independent measurement")
    files = sorted((data / split).glob("dialogues_*.json"))
    every: list[dict[str, Any]] = []
    for f in files:
        try:
            every.extend(json.loads(f.read_text()))
        except (json.JSONDecodeError, OSError):
            continue
    random.Random(seed).shuffle(every)
    rows: list[tuple[bool, bool]] = []
    read: Read = []
    errors: list[dict[str, Any]] = []
    cache: dict[str, list[Statement]] = {}

    def parsed(text: str) -> list[Statement]:
        if text not in cache:
            cache[text] = statements(nlp(text))
        return cache[text]

    for dialogue in every[:dialogues]:
        users = [
            (t["utterance"], _informed(t)) for t in dialogue["turns"] if t["speaker"] == "USER"
        ]
        for j, (new_text, new_slots) in enumerate(users):
            for old_text, old_slots in users[:j]:
                shared = set(new_slots) & set(old_slots)
                changed = any(
                    not {v.lower() for v in new_slots[k]} & {v.lower() for v in old_slots[k]}
                    for k in shared
                )
                if shared and not changed:
                    continue  # the same value said again: neither kind
                truth = bool(shared)
                if not new_slots or not old_slots:
                    continue
                said = replaces(parsed(new_text), parsed(old_text), session=True)
                rows.append((truth, said))
                read.append((truth, said, parsed(new_text), parsed(old_text)))
                if said != truth and len(errors) < 40:
                    errors.append({"old": old_text, "new": new_text, "same": truth})
    return score(rows), errors, read


async def masked_rows(read: Read) -> list[tuple[bool, bool, float]]:
    """Each pair's masked similarity (``masked_similarity``), by the service's embedder."""
    embedder = LocalEmbedder(Settings().embedder)
    vectors: dict[str, list[float]] = {}

    async def embed(text: str) -> list[float]:
        if text not in vectors:
            vectors[text] = await embedder.embed_query(text)
        return vectors[text]

    try:
        return [
            (truth, said, await masked_similarity(embed, new, old))
            for truth, said, new, old in read
        ]
    finally:
        await embedder.close()


def _informed(turn: dict[str, Any]) -> dict[str, list[str]]:
    """The slots a user turn informs (service-qualified), with the values it says."""
    out: dict[str, list[str]] = {}
    for frame in turn["frames"]:
        for action in frame["actions"]:
            if action["act"] == "INFORM" and action["values"]:
                said = [v for v in action["values"] if v.lower() in turn["utterance"].lower()]
                if said:
                    out[f"{frame['service']}:{action['slot']}"] = said
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sgd", type=Path, help="the extracted SGD corpus (train/ and dev/)")
    parser.add_argument("--split", default="train", choices=["train", "dev"])
    parser.add_argument("--dialogues", type=int, default=400)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--masked", action="store_true", help="score masked similarity too")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "slot_pairs.json")
    args = parser.parse_args(argv)
    import spacy

    nlp = spacy.load(Settings().resolution.spacy_model)
    result: dict[str, Any] = {"machine": machine()}
    dev, dev_errors, dev_read = dev_pairs(nlp)
    result["dev"], result["dev_errors"] = dev, dev_errors
    print(_line("dev (development set)", dev))
    for kind, figures in dev["per_kind"].items():
        print(_line(f"  {kind}", figures))
    sets = {"dev": dev_read}
    if args.sgd is not None:
        sgd, sgd_errors, sets[f"sgd_{args.split}"] = sgd_pairs(
            nlp, args.sgd, args.split, args.dialogues, args.seed
        )
        result[f"sgd_{args.split}"], result[f"sgd_{args.split}_errors"] = sgd, sgd_errors
        print(_line(f"SGD {args.split} (held out)", sgd))
    if args.masked:
        for name, read in sets.items():
            figures = thresholds(asyncio.run(masked_rows(read)))
            result[f"{name}_masked"] = figures
            for t, f in figures.items():
                print(_line(f"{name} masked >= {t}", f["masked"]))
                print(_line(f"{name} rules or masked >= {t}", f["rules_or_masked"]))
    write_json(args.out, result)


def _line(label: str, f: dict[str, Any]) -> str:
    return (
        f"{label:<28} pairs {f['pairs']:>5}  precision {f['precision']:.3f}  "
        f"recall {f['recall']:.3f}  F1 {f['f1']:.3f}"
    )


if __name__ == "__main__":
    main()
