"""A year of one business tenant through the front door, with the scheduler on a moved clock.

    python -m bench.lifecycle [--days 365] [--turns-per-day 8] [--ticks-per-day 2]
                              [--variants jobs,baseline] [--out bench/results/lifecycle.json]

A synthetic business tenant (WOBS, ``bench/lifecycle_tenant.py``) speaks to its assistant every
day: one session per day, every turn through ``recordTurn`` (the facade's write path, stamped
with the simulated time), the session closed at the end of the day. The foundations are taught
the way users teach them: identity and the content check said in turns, the other procedures
written in handbook documents through ``ingestDocument``; nothing is created through an
internal call. Before each of the user's questions is recorded, it is searched (top 10, with
the session) as an app looks up context to answer with (``--no-ask``: not). The same script
feeds two tenants of one Brain (the variants):

- ``jobs``: sessions closed with ``Brain.close_session`` (the working-memory flush), and the
  lifecycle scheduler's tick run ``--ticks-per-day`` times a simulated day: every job runs
  when its interval (``BRAIN_LIFECYCLE__INTERVALS``) has passed on the simulated clock;
- ``baseline``: no lifecycle at all (sessions closed without the flush, no jobs).

At the end of every month each variant reports: turns recorded and turns visible (the record
stays: the target is none hidden), memories current and live, the duplicate rate, the recall
of a fixed probe set through ``search`` (top 10: foundations, current facts after
corrections; a probe passes when a current hit states the expected value), and the same probes
through ``assembleContext``: recall (the context states the expected value) and precision
(no replaced value stated as current: a turn that said it is marked "corrected later").

Time: ``core.clock.set_now`` moves the service's only clock to each turn's simulated time, so
session expiry, the scheduler's intervals, decay and compression age all run on the simulated
calendar (2025-01-01 onwards), not on the real one.
"""

from __future__ import annotations

import argparse
import asyncio
import calendar
import os
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from api.brain import Brain
from bench.common import machine, percentiles, write_json
from bench.lifecycle_measure import Variant, fates, measure
from bench.lifecycle_tenant import (
    DAY,
    START,
    USER,
    Remembered,
    build_script,
    day_time,
)
from core.clock import set_now
from core.ingest_types import TurnInput
from core.retrieval_types import SearchQuery
from core.settings import GraphSettings, LifecycleSettings, Settings

PROBE_KINDS = ("foundation", "current", "conflict", "recurring")


VARIANTS = {
    "jobs": (True, True),
    "baseline": (False, True),
    "jobs-no-access": (True, False),  # the probes record no access counts
}
# When the scheduler ticks on a simulated day (after the day's session has closed at 18:00).
TICK_HOURS = {1: (23.0,), 2: (19.0, 23.0), 4: (19.0, 20.5, 22.0, 23.5)}


def month_ends(days: int) -> list[int]:
    """Days (0-based) that end a calendar month, plus the last simulated day."""
    out = []
    for day in range(days):
        date = datetime.fromtimestamp(START + day * DAY, tz=UTC)
        if date.day == calendar.monthrange(date.year, date.month)[1]:
            out.append(day)
    if not out or out[-1] != days - 1:
        out.append(days - 1)
    return out


async def simulate(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    script = build_script(args.days, args.turns_per_day, args.weekend_turns, args.seed)
    variants = [Variant(name, f"sim-{name}", *VARIANTS[name]) for name in args.variants.split(",")]
    settings = Settings(
        data_dir=data_dir,
        graph=GraphSettings(heap="2g"),
        lifecycle=LifecycleSettings(scheduler=False),
    )
    brain = await Brain.open(settings)
    ends = month_ends(args.days)
    end_set = set(ends)
    phases = {"turns": 0.0, "close": 0.0, "consolidate": 0.0, "measure": 0.0}
    started = time.perf_counter()
    try:
        for day in range(args.days):
            today = script.turns[day]
            set_now(day_time(day, 0, len(today)) - 60)
            session = f"day-{day:03d}"
            for item in (r for r in script.remembered if r.day == day):
                await asyncio.gather(*(teach(brain, v, item, session) for v in variants))
            t0 = time.perf_counter()
            for slot, (kind, text) in enumerate(today):
                at = day_time(day, slot, len(today))
                set_now(at)
                if kind == "question" and args.ask:  # the app looks up what to answer with
                    query = SearchQuery(query=text, session_id=session, top_k=10)
                    await asyncio.gather(*(brain.reads.search(v.tenant, query) for v in variants))
                turn = TurnInput(session_id=session, user_id=USER, content=text, at=at)
                # The variants are independent tenants: their turns run concurrently.
                await asyncio.gather(*(record(brain, v, turn) for v in variants))
            phases["turns"] += time.perf_counter() - t0

            t0 = time.perf_counter()
            set_now(START + day * DAY + 18 * 3600)
            await asyncio.gather(*(close(brain, v, session) for v in variants))
            phases["close"] += time.perf_counter() - t0

            for hour in TICK_HOURS[args.ticks_per_day]:  # the scheduler, on the moved clock
                set_now(START + day * DAY + hour * 3600)
                for v in variants:
                    if v.jobs:
                        t0 = time.perf_counter()
                        runs = await brain.lifecycle.scheduler.tick_tenant(v.tenant)
                        spent = time.perf_counter() - t0
                        phases["consolidate"] += spent
                        if runs:
                            v.consolidations.append(
                                {"day": day + 1, "hour": hour, "runs": runs, "s": round(spent, 2)}
                            )

            if day in end_set:
                set_now(START + day * DAY + 23 * 3600)
                t0 = time.perf_counter()
                for v in variants:
                    v.months.append(await measure(brain, v, script, day, brain.access))
                phases["measure"] += time.perf_counter() - t0
                print_progress(day, variants, started)
        for v in variants:
            v.fates = await fates(brain, v.tenant)
    finally:
        set_now(None)
        await brain.close()
    return {
        "machine": machine(),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "days": args.days,
        "turns_per_day": args.turns_per_day,
        "weekend_turns": args.weekend_turns,
        "seed": args.seed,
        "scheduler_ticks_per_day": args.ticks_per_day,
        "intervals": settings.lifecycle.intervals,
        "in_session_search": args.ask,
        "turns_by_kind": script.kinds,
        "turns_per_variant": sum(len(d) for d in script.turns),
        "taught_per_variant": {
            "in_turns": sum(1 for r in script.remembered if r.path is None),
            "in_documents": sum(1 for r in script.remembered if r.path is not None),
        },
        "probes": {k: sum(1 for p in script.probes if p.kind == k) for k in PROBE_KINDS},
        "seconds": round(time.perf_counter() - started, 1),
        "phase_seconds": {k: round(v, 1) for k, v in phases.items()},
        "variants": {
            v.name: {
                "tenant": v.tenant,
                "jobs": v.jobs,
                "probes_record_access": v.record_access,
                "record_turn": percentiles(v.turn_ms),
                "months": v.months,
                "consolidations": v.consolidations,
                "fates_at_end": v.fates,
            }
            for v in variants
        },
    }


async def record(brain: Brain, variant: Variant, turn: TurnInput) -> None:
    start = time.perf_counter()
    result = await brain.ingest.turns.record_turn(variant.tenant, turn)
    variant.turn_ms.append((time.perf_counter() - start) * 1000)
    variant.turn_ids.add(result.episode.id)


async def teach(brain: Brain, variant: Variant, item: Remembered, session: str) -> None:
    """A foundation as users give it: a turn that says it, or a document that holds it."""
    if item.path is not None:
        await brain.ingest.ingest_document(variant.tenant, item.path, item.content)
        return
    await record(brain, variant, TurnInput(session_id=session, user_id=USER, content=item.content))


async def close(brain: Brain, variant: Variant, session: str) -> None:
    if variant.jobs:  # closed and flushed: used turns promoted, every turn kept
        await brain.close_session(variant.tenant, session)
    else:  # closed only: without the lifecycle every turn stays
        await brain.ingest.turns.close_session(variant.tenant, session)


def _pct(recall: dict[str, dict[str, int]], kind: str) -> str:
    r = recall.get(kind)
    return f"{r['passed']}/{r['total']}" if r else "-"


def print_progress(day: int, variants: Sequence[Variant], started: float) -> None:
    parts = []
    for v in variants:
        m = v.months[-1]
        parts.append(
            f"{v.name}: {m['memories_current_live']} live, "
            f"F {_pct(m['recall'], 'foundation')} C {_pct(m['recall'], 'current')}, "
            f"dup {m['duplicate_rate']:.1%}"
        )
    load = os.getloadavg()[0]
    print(
        f"day {day + 1:>3} ({time.perf_counter() - started:6.0f}s, load {load:.1f}) | "
        + " | ".join(parts),
        flush=True,
    )


def print_table(result: dict[str, Any]) -> None:
    for name, v in result["variants"].items():
        print(f"\n{name} (probes record access: {v['probes_record_access']})")
        print(
            f"{'month':<8}{'turns':>7}{'hidden':>7}{'live':>7}{'dup %':>7}{'found.':>8}"
            f"{'current':>9}{'ctx recall':>11}{'ctx prec.':>10}{'stale facts':>12}"
        )
        for m in v["months"]:
            r, c = m["recall"], m["contexts"]
            print(
                f"{m['month']:<8}{m['turns_recorded']:>7}{m['turns_hidden']:>7}"
                f"{m['memories_current_live']:>7}{100 * m['duplicate_rate']:>7.1f}"
                f"{_pct(r, 'foundation'):>8}{_pct(r, 'current'):>9}"
                f"{c['recall']:>11.3f}{c['precision']:>10.3f}{m['stale_hits']['facts']:>12}"
            )
        last = v["months"][-1] if v["months"] else None
        if last and last["failed"]:
            print("  failed probes at the end: " + ", ".join(f["probe"] for f in last["failed"]))
        if last and last["contexts"]["failed"]:
            print("  contexts at the end: " + "; ".join(last["contexts"]["failed"]))
        for kind, fate in v["fates_at_end"].get("by_type", {}).items():
            print(f"  {kind:<11}" + ", ".join(f"{k} {n}" for k, n in sorted(fate.items())))
    print(
        f"\n{result['seconds']} s in all ({result['phase_seconds']}), "
        f"load average at the end {result['load_average_at_end']}"
    )


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--turns-per-day", type=int, default=8, help="Monday to Friday")
    p.add_argument("--weekend-turns", type=int, default=3, help="Saturday and Sunday")
    p.add_argument("--ticks-per-day", type=int, choices=sorted(TICK_HOURS), default=2)
    p.add_argument("--variants", default="jobs,baseline")
    p.add_argument("--seed", type=int, default=2025)
    p.add_argument(
        "--no-ask",
        dest="ask",
        action="store_false",
        help="do not search for the user's questions during the day (no in-session access)",
    )
    p.add_argument("--out", type=Path, default=Path("bench/results/lifecycle.json"))
    p.add_argument("--data-dir", type=Path, help="default: a fresh temporary directory")
    args = p.parse_args()
    unknown = set(args.variants.split(",")) - set(VARIANTS)
    if unknown:
        p.error(f"unknown variants {sorted(unknown)}; known: {sorted(VARIANTS)}")
    if args.days < 14 or args.turns_per_day < 3 or args.weekend_turns < 2:
        p.error(
            "--days >= 14 (the foundations take two weeks to say), --turns-per-day >= 3, "
            "--weekend-turns >= 2"
        )
    with tempfile.TemporaryDirectory(prefix="brain-lifecycle-") as tmp:
        result = asyncio.run(simulate(args, args.data_dir or Path(tmp)))
    print_table(result)
    write_json(args.out, result)


if __name__ == "__main__":
    main()
