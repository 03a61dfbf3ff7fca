"""The one-time migration of a graph written with epoch-second floats to native datetimes.

Until this migration a time was stored as a float and "never" as ``1e15``; now it is a Cypher
``datetime`` (nanosecond precision, so the float read back is the one written) and "never"
is null (``graph/records.py``). On a database that has not had it, ``GraphStore`` runs it at
start-up, before anything else reads, and records it as the ``Migration`` node
``native_times``: the graph's schema-version marker.

It converts label by label and relationship type by type, in batches of ``BATCH`` records,
each batch its own transaction. A converted value is a datetime, which ``x < 1.0e16`` does
not select (comparing a datetime with a number is null), so a batch only ever picks up
floats: run again after a crash (even a ``kill -9`` in the middle of a batch) it converts
what is left, and on a converted graph it changes nothing.

Labels and property names cannot be parameters in Cypher, so the statements are built here,
like the schema's DDL (``graph/schema.py``), from the constants below and the property
names the records carry, each checked against ``TIME_KEYS`` and an identifier pattern:
never from input.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from graph.records import TIME_KEYS
from graph.schema import MODELS

log = logging.getLogger(__name__)

MIGRATION = "native_times"
# The embedded engine's zoned datetimes, left by the first version of ``MIGRATION``, made local.
LOCAL_MIGRATION = "local_times"
BATCH = 2000
# Every node label and relationship type that holds times (the ones without a model in
# graph/schema.py too).
NODE_LABELS = (*(m.__name__ for m in MODELS), "DocumentJob")
RELATION_TYPES = (
    "MERGED_INTO",
    "SUPERSEDED_BY",
    "SUMMARIZES",
    "CONFLICTS_WITH",
    "POSSIBLY_SAME_AS",
    "DISTINCT_FROM",
    "RELATED",
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A float below 1e15 becomes the datetime of those epoch seconds (to the nanosecond, as
# graph.records.graph_time does), 1e15 ("never") becomes null; anything else (a datetime
# already, null) stays as it is.
_DATETIME = (
    "datetime({{epochSeconds: toInteger(floor({x})), "
    "nanosecond: toInteger(round(({x} - floor({x})) * 1.0e9))}})"
)
_CONVERT = "CASE WHEN {x} < 1.0e15 THEN {datetime} WHEN {x} >= 1.0e15 THEN null ELSE {x} END"
# The embedded engine keeps a datetime parameter (what every write sends) as a local
# datetime holding the UTC wall clock, but a Cypher ``datetime()`` value as a zoned one, which
# it reads back two to four times slower (5,000 memories' times: 0.6-1.4 s against 0.26-0.35
# s). So there the conversion stores what a write would: the local wall clock.
_LOCAL = "localdatetime(" + _DATETIME + ")"
# A zoned value of the embedded engine prints with its zone ("...Z"), a local one without.
_ZONED = "toString({x}) ENDS WITH 'Z'"

Run = Callable[[str, dict[str, Any], bool], Awaitable[list[dict[str, Any]]]]


def _pattern(kind: str, name: str) -> str:
    if not _IDENT.match(name):
        raise ValueError(f"unsafe identifier {name!r}")
    return f"(x:{name})" if kind == "node" else f"()-[x:{name}]->()"


def keys_statement(kind: str, name: str) -> str:
    """The property names the records of ``name`` carry."""
    return f"MATCH {_pattern(kind, name)} UNWIND keys(x) AS k RETURN DISTINCT k"


def batch_statements(kind: str, name: str, keys: list[str], local: bool = False) -> tuple[str, str]:
    """(count, convert) statements for the float times ``keys`` of ``name``'s records;
    ``local``: store local datetimes (the embedded engine, see ``_LOCAL``)."""
    _check(keys)
    match = f"MATCH {_pattern(kind, name)} WHERE " + " OR ".join(f"x.{k} < 1.0e16" for k in keys)
    to = _LOCAL if local else _DATETIME
    sets = ", ".join(
        f"x.{k} = {_CONVERT.format(x=f'x.{k}', datetime=to.format(x=f'x.{k}'))}" for k in keys
    )
    count = f"{match} RETURN count(x) AS left"
    convert = f"{match} WITH x LIMIT $batch SET {sets} RETURN count(x) AS changed"
    return count, convert


def local_statements(kind: str, name: str, keys: list[str]) -> tuple[str, str]:
    """(count, convert) statements for the zoned datetimes among ``keys`` of ``name``'s
    records (the embedded engine; ``LOCAL_MIGRATION``)."""
    _check(keys)
    zoned = [_ZONED.format(x=f"x.{k}") for k in keys]
    match = f"MATCH {_pattern(kind, name)} WHERE " + " OR ".join(zoned)
    sets = ", ".join(
        f"x.{k} = CASE WHEN {z} THEN localdatetime(x.{k}) ELSE x.{k} END"
        for k, z in zip(keys, zoned, strict=True)
    )
    count = f"{match} RETURN count(x) AS left"
    convert = f"{match} WITH x LIMIT $batch SET {sets} RETURN count(x) AS changed"
    return count, convert


def _check(keys: list[str]) -> None:
    for key in keys:
        if key not in TIME_KEYS or not _IDENT.match(key):
            raise ValueError(f"not a time property: {key!r}")


async def migrate_times(run: Run, batch: int | None = None, local: bool = False) -> int:
    """Convert every float time of the graph, ``batch`` records (default ``BATCH``) per
    transaction; returns how many records changed. ``run`` runs one statement (text, params,
    write) in its own transaction; ``local``: the embedded engine (``_LOCAL``)."""

    def statements(kind: str, name: str, keys: list[str]) -> tuple[str, str]:
        return batch_statements(kind, name, keys, local)

    return await _each_target(run, batch or BATCH, MIGRATION, statements)


async def localize_times(run: Run, batch: int | None = None) -> int:
    """Make the zoned datetimes the first version of ``MIGRATION`` left on the embedded
    engine local ones, as its writes store them (``_LOCAL``); returns how many records
    changed. Resumable like ``migrate_times``: a converted value is no longer selected."""
    return await _each_target(run, batch or BATCH, LOCAL_MIGRATION, local_statements)


async def _each_target(
    run: Run,
    batch: int,
    migration: str,
    statements: Callable[[str, str, list[str]], tuple[str, str]],
) -> int:
    total = 0
    targets = [("node", n) for n in NODE_LABELS] + [("relationship", t) for t in RELATION_TYPES]
    for kind, name in targets:
        rows = await run(keys_statement(kind, name), {}, False)
        keys = sorted(str(r["k"]) for r in rows if r["k"] in TIME_KEYS)
        if keys:
            count, convert = statements(kind, name, keys)
            total += await _convert(run, kind, name, count, convert, batch, migration)
    if total:
        log.warning("graph migration %s: done, %d records converted", migration, total)
    return total


async def _convert(
    run: Run, kind: str, name: str, count: str, convert: str, batch: int, migration: str
) -> int:
    left = int((await run(count, {}, False))[0]["left"] or 0)
    if not left:
        return 0
    # Warnings, not info: a one-time conversion the operator should see progress through,
    # whatever the command's log level (the CLI's short commands log warnings only).
    log.warning("graph migration %s: converting %d %s records of %s", migration, left, kind, name)
    done = 0
    while True:
        rows = await run(convert, {"batch": batch}, True)
        changed = int(rows[0]["changed"] or 0) if rows else 0
        if not changed:
            return done
        done += changed
        log.warning("graph migration %s: %s %d/%d", migration, name, done, left)
