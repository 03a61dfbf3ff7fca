"""Does the context put a replaced value first? Measured on the Schema-Guided Dialogue corpus.

    python -m bench.sgd --data /work/data/sgd --split dev [--limit N] [--seed S] [--out FILE]
        [--workdir DIR] [--concurrency 3]
    python -m bench.sgd --data /work/data/sgd --write-sample tests/data/ingest/sgd_dev_sample.jsonl

Data: the Schema-Guided Dialogue dataset (SGD, DSTC8), google-research-datasets/
dstc8-schema-guided-dialogue, licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/
by-sa/4.0/); text nobody on this project wrote. Only train/ and dev/ are read here: test/ is
kept for independent measurement and no code path opens it.

A case (issue 37, item 7a) is a (dialogue, service, slot) whose value the USER replaced with a
disjoint one. Over the USER turns, the frame state's ``slot_values`` for the slot give a
sequence of value sets; the case exists when the final set is disjoint (case-insensitive) from
an earlier set, and the user's own utterance informed the final value: in the turn where the
final set appears (the first turn of its last run), the USER frame of that service has an
INFORM action for the slot with a value of the final set, and one of that value's forms is in
the utterance (word-bounded).

Forms. A value's forms are its texts in the state plus every ``values`` / ``canonical_values``
entry paired with it in any action of any frame of the dialogue (the two lists are parallel;
a pair that names one of the forms adds the other, to a fixed point): "half past 11 in the
morning", "11:30", "11:30 am". Current = the final value's forms; stale = the forms of the
earlier disjoint values. An integer form from 2 to 12 also gets its English word ("3" ->
"three"), because categorical counts are stored as digits and said as words.

Matching: case-insensitive, whitespace-normalised, word-bounded (no letter, digit or
underscore either side). A numeric form ("2", "4.5") must also not touch a digit-joining
character (``: / - .`` before, ``: /`` or ``.digit`` after), so "2" does not match in
"2:30", "4.2" or "2019-03-02".

Dropped, with a reason counted in the output:
- ``generic``: after removing forms that cannot be matched reliably the current or the stale
  list is empty. Removed forms: one character that is not a digit; the placeholders
  ``dontcare``, ``true``, ``false``, ``none``, ``yes``, ``no``, ``any``; the word ``one``
  (a pronoun as often as a count). Boolean slots therefore never make cases.
- ``overlap``: a current form matches inside a stale form or the other way round (with the
  matcher above, so "1" and "10" do not overlap but "march 1st" and "1st" do).

Public path only: a real ``brain serve`` (bench/service.py) on a moved clock a day after the
conversations, one tenant per dialogue made through the API, every turn through ``recordTurn``
(one session, role USER or ASSISTANT after the SGD speaker, turns a minute apart from 2026-01-05
09:00 UTC; a fixed userId), then, per case, ``assembleContext`` in a new session with that
userId, the default token budget and a question made from the slot's schema description: "What
is the <description>?" (first letter lowercased unless the first word is an acronym, trailing
period and a leading "The" dropped; "City where the restaurant is located." -> "What is the city
where the restaurant is located?"). The context is read as the model reads it: ``Context.text``,
every layer in order. The turns are dated far from SGD's own dates (March 2019, "2019-03-02" is
a canonical form), so the dates on the context's lines ("[episodic, 2026-01-05]") never match a
form.

Per case: current-first (a current form occurs, before any stale form), stale-first (a stale
form occurs first, or only stale forms occur), neither; current present, stale present; and for
stale-first, whether the line holding the first stale occurrence is labelled as old: its
leading "[...]" metadata says "corrected", "superseded", "outdated", "until", "no longer",
"earlier" (not "replaces an earlier statement": that marks the newer version), "previous" or
"replaced", or the line reads "earlier: … (until <date>)" (the contract's label) or carries an
"(until <date>)"; words of an utterance ("until 5 pm") and the recent-conversation summary
("- Earlier: a / b") are not labels. Reported overall, per service and domain, per value kind
(numeric: a form is a number / text), with the layer of the first stale occurrence, the labels
seen, examples, and every case's verdict (to compare two runs case by case).

``--limit N`` measures every case of a seeded random sample of N of the dialogues that have
cases; ``--concurrency`` dialogues are recorded at a time. The service imports the code of
this work tree: run it from a clean checkout when someone is editing the tree.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import machine, percentiles, write_json
from bench.service import ROOT, Service, iso
from bench.sgd_cases import (
    SPLITS,
    Case,
    all_cases,
    choose,
    first_match,
    write_sample,
)

BASE = datetime(2026, 1, 5, 9, 0, tzinfo=UTC).timestamp()  # far from SGD's March 2019 dates
TURN_SPACING_S = 60.0
ASK_AT = BASE + 86_400.0  # the service's clock: a day after the conversations
USER_ID = "sgd-user"
EXAMPLES = 12
CONTEXT_HEAD = 1200  # characters of an example's context kept

LABELS = (
    "corrected",
    "superseded",
    "outdated",
    "until",
    "no longer",
    "earlier",
    "previous",
    "replaced",
)
NEWER = "replaces an earlier statement"
_META = re.compile(r"^-?\s*\[([^\]]*)\]")
_UNTIL = re.compile(r"\(until \d")
_EARLIER = re.compile(r"^-?\s*earlier:")

TURN = """mutation($input: RecordTurnInput!) { recordTurn(input: $input) {
  __typename ... on TurnResult { episode { id } } ... on Error { message } } }"""
ASSEMBLE = """query($input: AssembleContextInput!) { assembleContext(input: $input) { __typename
  ... on Context { text totalTokens tokenBudget
    layers { procedural projectContext memories documentChunks recentConversation } }
  ... on Error { message } } }"""


@dataclass
class Outcome:
    case: Case
    verdict: str  # current_first | stale_first | neither
    current_present: bool
    stale_present: bool
    labelled: bool = False
    stale_line: str = ""
    stale_layer: str = ""
    context: str = ""
    tokens: int = 0
    ms: float = 0.0
    labels: list[str] = field(default_factory=list)
    old_labels_anywhere: bool = False  # some line of the context is labelled as old
    newer_marks_anywhere: bool = False  # some line says it "replaces an earlier statement"


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


HEADERS = {
    "Procedures:": "procedural",
    "Project and core facts:": "projectContext",
    "Relevant memories:": "memories",
    "Document excerpts:": "documentChunks",
    "Recent conversation:": "recentConversation",
}


def _layer_at(text: str, pos: int) -> str:
    """The layer whose header is the last one before ``pos`` (headers start lines)."""
    best, layer = -1, ""
    for header, name in HEADERS.items():
        at = 0 if text.startswith(header) else -1
        found = text.rfind("\n" + header, 0, pos)
        at = max(at, found)
        if at <= pos and at > best:
            best, layer = at, name
    return layer


def stale_labels(line: str) -> list[str]:
    """What on the line tells a model that its value is old: a word of ``LABELS`` in the
    line's leading ``[...]`` metadata (not "replaces an earlier statement", which marks the
    newer version), or the contract's ``earlier: … (until <date>)``. Words of the utterance
    itself ("until 5 pm") and the recent-conversation summary ("- Earlier: a / b") are not
    labels."""
    low = line.strip().lower()
    found = []
    meta = _META.match(low)
    if meta:
        text = meta.group(1).replace(NEWER, "")
        found += [w for w in LABELS if re.search(rf"\b{w}\b", text)]
    if _UNTIL.search(low):
        found.append("earlier (until)" if _EARLIER.match(low) else "(until)")
    return found


def judge(case: Case, text: str) -> Outcome:
    cur = first_match(case.current, text)
    old = first_match(case.stale, text)
    if old is not None and (cur is None or old[0] < cur[0]):
        line = _line_at(text, old[0])
        labels = stale_labels(line)
        return Outcome(
            case,
            "stale_first",
            cur is not None,
            True,
            labelled=bool(labels),
            stale_line=line[:400],
            stale_layer=_layer_at(text, old[0]),
            labels=labels,
        )
    verdict = "current_first" if cur is not None else "neither"
    return Outcome(case, verdict, cur is not None, old is not None)


async def run_dialogue(
    svc: Service, split: str, dialogue: dict[str, Any], cases: list[Case], gate: asyncio.Semaphore
) -> tuple[list[Outcome], list[float]]:
    async with gate:
        did = dialogue["dialogue_id"]
        key = await svc.tenant_key(f"sgd-{split}-{did.replace('_', '-')}")
        turn_ms: list[float] = []
        for i, turn in enumerate(dialogue["turns"]):
            t0 = time.perf_counter()
            data = await svc.gql(
                key,
                TURN,
                input={
                    "sessionId": f"sgd-{did}",
                    "userId": USER_ID,
                    "role": "USER" if turn["speaker"] == "USER" else "ASSISTANT",
                    "content": turn["utterance"],
                    "at": iso(BASE + i * TURN_SPACING_S),
                },
            )
            turn_ms.append((time.perf_counter() - t0) * 1000)
            if data["recordTurn"]["__typename"] != "TurnResult":
                raise RuntimeError(f"recordTurn failed on {did}: {data['recordTurn']}")
        outcomes = []
        for n, case in enumerate(cases):
            t0 = time.perf_counter()
            data = await svc.gql(
                key,
                ASSEMBLE,
                input={
                    "sessionId": f"sgd-{did}-ask-{n}",
                    "userId": USER_ID,
                    "query": case.question,
                },
            )
            ms = (time.perf_counter() - t0) * 1000
            ctx = data["assembleContext"]
            if ctx["__typename"] != "Context":
                raise RuntimeError(f"assembleContext failed on {did}: {ctx}")
            outcome = judge(case, ctx["text"])
            outcome.context, outcome.tokens, outcome.ms = ctx["text"], ctx["totalTokens"], ms
            outcome.old_labels_anywhere = any(stale_labels(ln) for ln in ctx["text"].splitlines())
            outcome.newer_marks_anywhere = NEWER in ctx["text"].lower()
            outcomes.append(outcome)
        return outcomes, turn_ms


def tally(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    counts = Counter(o.verdict for o in outcomes)
    stale_first = [o for o in outcomes if o.verdict == "stale_first"]
    labelled = sum(o.labelled for o in stale_first)

    def share(x: int) -> float:
        return round(x / n, 3) if n else 0.0

    return {
        "cases": n,
        "current_first": counts["current_first"],
        "stale_first": counts["stale_first"],
        "stale_first_labelled": labelled,
        "stale_first_unlabelled": len(stale_first) - labelled,
        "neither": counts["neither"],
        "current_present": sum(o.current_present for o in outcomes),
        "stale_present": sum(o.stale_present for o in outcomes),
        "contexts_with_old_labels": sum(o.old_labels_anywhere for o in outcomes),
        "contexts_with_newer_marks": sum(o.newer_marks_anywhere for o in outcomes),
        "current_first_rate": share(counts["current_first"]),
        "stale_first_rate": share(counts["stale_first"]),
        "neither_rate": share(counts["neither"]),
    }


def grouped(outcomes: Sequence[Outcome], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[key(o)].append(o)
    return {k: tally(v) for k, v in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))}


def example(o: Outcome) -> dict[str, Any]:
    c = o.case
    return {
        "dialogue_id": c.dialogue_id,
        "service": c.service,
        "slot": c.slot,
        "question": c.question,
        "old": c.old,
        "new": c.new,
        "verdict": o.verdict,
        "stale_layer": o.stale_layer,
        "stale_line": o.stale_line,
        "labels": o.labels,
        "context_head": o.context[:CONTEXT_HEAD],
    }


async def measure(
    data: Path,
    split: str,
    limit: int | None,
    seed: int,
    workdir: Path,
    concurrency: int,
    examples: int = EXAMPLES,
) -> dict[str, Any]:
    by_id, cases, info = all_cases(data, split)
    chosen = choose(cases, limit, seed)
    per_dialogue: dict[str, list[Case]] = defaultdict(list)
    for c in chosen:
        per_dialogue[c.dialogue_id].append(c)
    dialogues = [by_id[d] for d in sorted(per_dialogue)]
    turns = sum(len(d["turns"]) for d in dialogues)
    say(
        f"{split}: {info['dialogues']} dialogues ({len(info['skipped_files'])} files skipped), "
        f"{info['cases']} cases in {info['dialogues_with_cases']} dialogues, dropped "
        f"{info['dropped']}; measuring {len(chosen)} cases of {len(dialogues)} dialogues "
        f"({turns} turns)"
    )
    env = {"BRAIN_LIFECYCLE__SCHEDULER": "false"}
    code = _commit()
    started = time.perf_counter()
    load_before = os.getloadavg()
    async with Service(workdir, clock=ASK_AT, env=env) as svc:
        say(f"service ready in {svc.startup_s:.0f} s")
        svc.admin_key()
        gate = asyncio.Semaphore(concurrency)
        results = await asyncio.gather(
            *(run_dialogue(svc, split, d, per_dialogue[d["dialogue_id"]], gate) for d in dialogues)
        )
        startup_s = svc.startup_s
    wall = time.perf_counter() - started
    outcomes = [o for res in results for o in res[0]]
    turn_ms = [ms for res in results for ms in res[1]]
    failures = [o for o in outcomes if o.verdict == "stale_first"]
    random.Random(seed).shuffle(failures)
    neither = [o for o in outcomes if o.verdict == "neither"]
    random.Random(seed).shuffle(neither)
    return {
        "run": {
            "machine": machine(),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "code": code,
            "data": str(data),
            "limit": limit,
            "seed": seed,
            "concurrency": concurrency,
            "dialogues": len(dialogues),
            "turns": turns,
            "startup_s": round(startup_s, 1),
            "wall_s": round(wall, 1),
            "record_turn": percentiles(turn_ms),
            "assemble_context": percentiles([o.ms for o in outcomes]),
            "context_tokens": _spread([o.tokens for o in outcomes]),
        },
        "corpus": info,
        "overall": tally(outcomes),
        "per_value_kind": grouped(outcomes, lambda o: "numeric" if o.case.numeric else "text"),
        "per_domain": grouped(outcomes, lambda o: o.case.service.split("_")[0]),
        "per_service": grouped(outcomes, lambda o: o.case.service),
        "stale_first_layer": dict(Counter(o.stale_layer for o in failures)),
        "stale_first_labels": dict(Counter(w for o in failures for w in o.labels)),
        "stale_first_examples": [example(o) for o in failures[:examples]],
        "neither_examples": [example(o) for o in neither[:4]],
        "cases": [
            {
                "dialogue_id": o.case.dialogue_id,
                "service": o.case.service,
                "slot": o.case.slot,
                "verdict": o.verdict,
                "labelled": o.labelled,
            }
            for o in outcomes
        ],
    }


def _spread(values: Sequence[int]) -> dict[str, int]:
    ordered = sorted(values) or [0]
    return {
        "p50": ordered[len(ordered) // 2],
        "p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "max": ordered[-1],
    }


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        return out.stdout.strip() + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---------------------------------------------------------------------------------- output


def say(*parts: object) -> None:
    print(*parts, flush=True)


def print_table(result: dict[str, Any]) -> None:
    def row(name: str, t: dict[str, Any]) -> str:
        n = t["cases"] or 1
        return (
            f"{name:<22}{t['cases']:>6}{t['current_first']:>8} ({t['current_first'] / n:>4.0%})"
            f"{t['stale_first']:>7} ({t['stale_first'] / n:>4.0%}){t['stale_first_labelled']:>6}"
            f"{t['neither']:>8}{t['current_present']:>8}{t['stale_present']:>8}"
        )

    head = (
        f"{'':<22}{'cases':>6}{'current-first':>15}{'stale-first':>14}{'label':>6}"
        f"{'neither':>8}{'cur in':>8}{'old in':>8}"
    )
    say(head)
    say(row("all", result["overall"]))
    for kind, t in result["per_value_kind"].items():
        say(row(f"  {kind} values", t))
    for domain, t in result["per_domain"].items():
        say(row(f"  {domain}", t))
    r = result["run"]
    say(
        f"{r['dialogues']} dialogues, {r['turns']} turns in {r['wall_s']} s (startup "
        f"{r['startup_s']} s); recordTurn p50 {r['record_turn']['p50_ms']} ms, assembleContext "
        f"p50 {r['assemble_context']['p50_ms']} ms; context p50 {r['context_tokens']['p50']} tokens"
    )
    o = result["overall"]
    say(
        f"first stale occurrence by layer {result['stale_first_layer']}; contexts with a line "
        f"labelled old {o['contexts_with_old_labels']}, with a line marked as replacing an "
        f"earlier statement {o['contexts_with_newer_marks']} (of {o['cases']})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, required=True, help="holds train/ and dev/")
    parser.add_argument("--split", choices=SPLITS, default="dev")
    parser.add_argument("--limit", type=int, help="a seeded random sample of N dialogues")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--out", type=Path, help="default bench/results/sgd_<split>.json")
    parser.add_argument("--workdir", type=Path, help="keep the service's data here")
    parser.add_argument("--concurrency", type=int, default=3, help="dialogues at a time")
    parser.add_argument(
        "--examples", type=int, default=EXAMPLES, help="stale-first cases kept with their context"
    )
    parser.add_argument("--write-sample", type=Path, help="write the train sample and exit")
    args = parser.parse_args(argv)
    if args.write_sample:
        written = write_sample(args.data, args.write_sample, args.seed)
        say(f"wrote {written} cases to {args.write_sample}")
        return
    if args.workdir:
        result = asyncio.run(
            measure(
                args.data,
                args.split,
                args.limit,
                args.seed,
                args.workdir,
                args.concurrency,
                args.examples,
            )
        )
    else:
        with tempfile.TemporaryDirectory(prefix="sgd-") as tmp:
            result = asyncio.run(
                measure(
                    args.data,
                    args.split,
                    args.limit,
                    args.seed,
                    Path(tmp),
                    args.concurrency,
                    args.examples,
                )
            )
    print_table(result)
    write_json(args.out or ROOT / "bench" / "results" / f"sgd_{args.split}.json", result)


if __name__ == "__main__":
    main()
