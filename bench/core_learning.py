"""Core memory learned from conversation (docs/CORE.md): how well it generalizes, and whether
it floods core on real chatter.

    python -m bench.core_learning heldout|heldout2 [--out FILE.json]
    python -m bench.core_learning corpora [--out FILE.json]
    python -m bench.core_learning locomo --data FILE.json [--out FILE.json]

- ``heldout``: ``bench/data/core_heldout.json`` (sentences of each kind and negatives, worded
  unlike the tests, frozen before the recogniser first saw them) through the same three
  readings ``recordTurn`` makes of a user turn (statements, extraction, recognition):
  precision and recall per kind, and every miss and false alarm. Its first run drove fixes,
  so ``heldout2`` (``core_heldout2.json``, written after them) is the generalization figure.
- ``corpora``: every sentence of the statement sets under ``tests/data/ingest`` (written by
  others for the extractor: facts, changes, preferences, chatter): how many become core and
  which, for a reviewer to judge.
- ``locomo``: one LoCoMo conversation recorded through the public path (a real ``brain
  serve``, ``recordTurn`` with each turn's speaker and session date, one tenant, one user), then
  what ``core`` holds: every learned line, for a reviewer to judge whether it is really an
  identity, a role, a project or a rule. It must not flood core with chatter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import write_json
from bench.locomo import TURN_SPACING_S, sessions
from bench.service import Service, iso
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = {
    "heldout": ROOT / "bench" / "data" / "core_heldout.json",
    "heldout2": ROOT / "bench" / "data" / "core_heldout2.json",
}
CORPORA = sorted((ROOT / "tests" / "data" / "ingest").glob("statements_*.jsonl"))
TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { extracted { id pinned learned } } ... on Error { message } } }"""
CORE = """query($user: String) { core(userId: $user) {
  ... on MemoryList { memories { content learned source userId } } } }"""


def _reader() -> Any:
    """What ``recordTurn`` reads a user's turn with: statements, extraction, recognition."""
    import spacy

    from ingest.extract.statements import extract
    from ingest.learned.recognise import recognise
    from ingest.slots.analysis import statements
    from ingest.write.slots import asserted

    nlp = spacy.load(Settings().resolution.spacy_model)

    def read(text: str) -> list[Any]:
        doc = nlp(text)
        said = statements(doc, text)
        return recognise(doc, said, asserted(extract(doc, text), said))

    return read


def heldout(path: Path) -> dict[str, Any]:
    read = _reader()
    cases = json.loads(path.read_text())["cases"]
    tp: Counter[str] = Counter()
    said: Counter[str] = Counter()
    wanted: Counter[str] = Counter()
    misses, alarms = [], []
    for case in cases:
        kinds = {item.kind for item in read(case["text"])}
        want = case["kind"]
        if want is not None:
            wanted[want] += 1
        for kind in kinds:
            said[kind] += 1
            if kind == want:
                tp[kind] += 1
            else:
                alarms.append({"text": case["text"], "want": want, "got": kind})
        if want is not None and want not in kinds:
            misses.append({"text": case["text"], "want": want, "got": sorted(kinds)})
    per_kind = {
        k: {
            "precision": round(tp[k] / said[k], 3) if said[k] else None,
            "recall": round(tp[k] / wanted[k], 3) if wanted[k] else None,
            "said": said[k],
            "wanted": wanted[k],
        }
        for k in sorted(wanted)
    }
    total_tp, total_said = sum(tp.values()), sum(said.values())
    return {
        "cases": len(cases),
        "negatives": sum(1 for c in cases if c["kind"] is None),
        "precision": round(total_tp / total_said, 3) if total_said else None,
        "recall": round(total_tp / sum(wanted.values()), 3),
        "negatives_pinned": sum(1 for a in alarms if a["want"] is None),
        "per_kind": per_kind,
        "misses": misses,
        "false_alarms": alarms,
    }


def corpora() -> dict[str, Any]:
    read = _reader()
    out: dict[str, Any] = {"sets": {}, "learned": []}
    for path in CORPORA:
        lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        found = 0
        for row in lines:
            for item in read(row["text"]):
                found += 1
                out["learned"].append({"set": path.stem, "kind": item.kind, "line": item.text})
        out["sets"][path.stem] = {"sentences": len(lines), "learned": found}
    return out


async def locomo(data: Path) -> dict[str, Any]:
    raw = json.loads(data.read_text())
    conv = raw.get("conversation", raw)
    turns = [(n, at, i, t) for n, at, ts in sessions(conv) for i, t in enumerate(ts)]
    with tempfile.TemporaryDirectory(prefix="core-locomo-") as workdir:
        async with Service(Path(workdir), clock=turns[-1][1] + 86_400) as svc:
            key = await svc.tenant_key(f"locomo-{data.stem}")
            start = time.perf_counter()
            pinned = 0
            for n, at, i, turn in turns:
                result = (
                    await svc.gql(
                        key,
                        TURN,
                        input={
                            "sessionId": f"session-{n}",
                            "userId": f"user-{data.stem}",
                            "speaker": turn["speaker"],
                            "content": turn["text"],
                            "at": iso(at + i * TURN_SPACING_S),
                        },
                    )
                )["recordTurn"]
                assert result["__typename"] == "TurnResult", result
                pinned += sum(1 for m in result["extracted"] if m["pinned"])
            spent = time.perf_counter() - start
            user = f"user-{data.stem}"
            memories = (await svc.gql(key, CORE, user=user))["core"]["memories"]
    kinds = Counter((m["source"] or "").split(":")[1] for m in memories if m["learned"])
    return {
        "conversation": data.stem,
        "turns": len(turns),
        "pinned_when_said": pinned,
        "in_core_at_the_end": len(memories),
        "per_kind": dict(kinds),
        "core": [m["content"] for m in memories],
        "seconds_per_turn": round(spent / len(turns), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=[*HELDOUT, "corpora", "locomo"])
    parser.add_argument("--data", type=Path, help="a LoCoMo conversation (locomo)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.what in HELDOUT:
        result = heldout(HELDOUT[args.what])
    elif args.what == "corpora":
        result = corpora()
    else:
        if args.data is None:
            parser.error("locomo needs --data")
        result = asyncio.run(locomo(args.data))
    print(json.dumps(result, indent=2))
    if args.out:
        write_json(args.out, result)


if __name__ == "__main__":
    main()
