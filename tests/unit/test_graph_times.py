"""The graph's one translation of times (``graph/records.py``): floats to nanosecond datetimes
and back exactly, "never" to null, at any depth; and every statement's time names covered."""

from __future__ import annotations

import random
import re
from datetime import UTC

from neo4j._codec.hydration.v2.temporal import dehydrate_datetime
from neo4j.time import DateTime

from core.clock import NEVER
from graph.cypher import all_statements
from graph.migrate_times import batch_statements
from graph.records import TIME_KEYS, bolt_time, epoch_seconds, from_graph, graph_time, to_graph

# A property read or written (`m.created_at`, `row.at`) or a parameter (`$live_at`) whose name
# says it is an instant.
_PROPERTY = re.compile(r"\.([a-z_]*_at|at|valid_from|first_seen|last_seen|since|until)\b")
_PARAM = re.compile(r"\$([a-z_]*(?:_at|_ts|_before|_of)|at|now|since|until)\b")


def test_a_float_goes_to_the_graph_and_comes_back_the_same_float() -> None:
    rng = random.Random(7)
    samples = [rng.uniform(1e8, 4e9) for _ in range(20_000)] + [1_700_000_000.0, 1e7, 0.5e9]
    for seconds in samples:
        assert epoch_seconds(graph_time(seconds)) == seconds  # type: ignore[arg-type]
    at = graph_time(1_700_000_000.25)
    assert at == DateTime(2023, 11, 14, 22, 13, 20, 250_000_000, tzinfo=UTC)
    assert graph_time(NEVER) is None and graph_time(NEVER * 2) is None
    # The embedded engine returns the UTC wall clock without a zone; Neo4j, with one.
    assert epoch_seconds(DateTime(2023, 11, 14, 22, 13, 20, 250_000_000)) == 1_700_000_000.25


def test_a_packed_time_is_what_the_driver_packs_for_the_datetime() -> None:
    """``bolt_time`` skips the driver's conversion of a datetime parameter; what goes on the
    wire must be the very structure the driver (Bolt 5) makes of ``graph_time``'s datetime."""
    rng = random.Random(11)
    samples = [rng.uniform(0, 4e9) for _ in range(20_000)]
    samples += [0.0, 1e-9, 0.9999999999, 1_700_000_000.25, 1_609_459_200.0, 253_402_300_799.0]
    for seconds in samples:
        assert bolt_time(seconds) == dehydrate_datetime(graph_time(seconds)), seconds
    assert bolt_time(NEVER) is None and bolt_time(NEVER * 2) is None


def test_parameters_and_rows_translate_times_at_any_depth_and_nothing_else() -> None:
    embedding = [0.25] * 384
    params = to_graph(
        {
            "now": 1_700_000_000.0,
            "rows": [{"at": 1.7e9, "before": 0.4, "props": {"expires_at": NEVER}}],
            "props": {"created_at": 1.7e9, "importance": 0.5, "profile_embedding": embedding},
            "live_at": None,
            "pinned": True,
        }
    )
    assert isinstance(params["now"], DateTime)
    row = params["rows"][0]
    assert isinstance(row["at"], DateTime) and row["before"] == 0.4  # an importance
    assert row["props"]["expires_at"] is None
    assert (
        params["props"]["importance"] == 0.5 and params["props"]["profile_embedding"] is embedding
    )
    assert params["live_at"] is None and params["pinned"] is True
    packed = to_graph({"now": 1.7e9, "rows": [{"at": 1.7e9, "before": 0.4}]}, packed=True)
    assert packed == {
        "now": bolt_time(1.7e9),
        "rows": [{"at": bolt_time(1.7e9), "before": 0.4}],
    }

    stored = DateTime(2023, 11, 14, 22, 13, 20, 0)
    rows = from_graph(
        {"m": {"created_at": stored, "aliases": ["a", "b"]}, "memories": [["text", 0.5, stored]]}
    )
    assert rows == {
        "m": {"created_at": 1_700_000_000.0, "aliases": ["a", "b"]},
        "memories": [["text", 0.5, 1_700_000_000.0]],
    }


def test_every_time_name_in_a_statement_is_translated_and_none_compares_with_1e15() -> None:
    missing = {}
    for name, text in all_statements().items():
        names = set(_PROPERTY.findall(text)) | set(_PARAM.findall(text))
        if names - TIME_KEYS:
            missing[name] = sorted(names - TIME_KEYS)
        assert "1e15" not in text and "1.0e15" not in text and "$never" not in text, name
    assert missing == {}


def test_the_migration_statements_convert_only_time_properties() -> None:
    count, convert = batch_statements("node", "Memory", ["created_at", "expires_at"])
    assert count.startswith("MATCH (x:Memory) WHERE x.created_at < 1.0e16 OR x.expires_at")
    assert "LIMIT $batch SET x.created_at = CASE" in convert
    for bad in (["content"], ["created_at) DETACH DELETE (x"]):
        try:
            batch_statements("node", "Memory", bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")
