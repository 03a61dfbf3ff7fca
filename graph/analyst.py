"""Read-only Cypher for analysts and operators (``brain cypher``), with ``$tenant`` bound.

The analyst queries ship as files in ``cypher/analyst/`` (a fact's history, what was true on
a date, everything said about an entity, entity and memory merges). They are written for
Neo4j Browser as much as for the embedded engine: paste one, set ``:param tenant => 'acme'``.

A query given here must be a read: ArcadeDB runs a ``CREATE`` inside a read transaction
without complaint (measured), so the READ access mode is not enough; the query's text, with
comments, strings and quoted names taken out, may not contain a write or admin clause
(``CREATE MERGE DELETE DETACH SET REMOVE DROP FOREACH LOAD CALL USE`` and the admin verbs),
and must use ``$tenant``. A refused or malformed query is ``InvalidInput`` (exit 2).

The ``$tenant`` rule catches a forgotten filter; it does not confine a query to the tenant
(``WHERE $tenant IS NOT NULL`` reads them all), and nothing here parses how each ``MATCH``
uses it. Only admin keys reach this, and they may act for any tenant: admin Cypher is not
tenant-scoped (docs/GRAPH.md).

Example::

    rows = await run_read_only(store, "acme", query_text("fact_history"), {"id": memory_id})
"""

from __future__ import annotations

import json
import re
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import BackendError, InvalidInput
from graph.cypher import CYPHER_DIR

if TYPE_CHECKING:  # the checks and the query files load without the driver (thin CLI)
    from graph.store import GraphStore

ANALYST_DIR = CYPHER_DIR / "analyst"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# String literals, quoted names and comments: what a keyword check must not look into.
_NOT_CODE = re.compile(
    r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL
)
_WRITE = re.compile(
    r"(?<![\w.$])(CREATE|MERGE|DELETE|DETACH|SET|REMOVE|DROP|FOREACH|LOAD|CALL|USE|GRANT|DENY|"
    r"REVOKE|ALTER|RENAME|TERMINATE|START|STOP|ENABLE|DEALLOCATE|REALLOCATE)(?!\w)(?!\s*:)",
    re.IGNORECASE,
)
_TENANT = re.compile(r"\$tenant\b")
MAX_QUERY = 20_000  # characters


def analyst_queries() -> dict[str, Path]:
    """The shipped analyst queries, by name (the file's stem)."""
    return {p.stem: p for p in sorted(ANALYST_DIR.glob("*.cypher"))}


def query_text(arg: str) -> str:
    """The query ``arg`` names: a shipped analyst query by name, a ``.cypher`` file, or the
    query itself. Raises InvalidInput for a ``.cypher`` path that does not exist."""
    shipped = analyst_queries()
    if _NAME.match(arg) and arg in shipped:
        return shipped[arg].read_text()
    if arg.endswith(".cypher"):
        path = Path(arg)
        if not path.is_file():
            raise InvalidInput(f"no such query file: {arg}", field="query")
        return path.read_text()
    return arg


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs (``brain cypher --param``) as query parameters: VALUE as JSON when
    it parses (numbers, null, lists), else as the string it is."""
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise InvalidInput(f"--param takes NAME=VALUE, got {pair!r}", field="param")
        try:
            params[name] = json.loads(value)
        except ValueError:
            params[name] = value
    return params


def check_read_only(text: str) -> str:
    """``text`` if it is a tenant-bound read; raises InvalidInput naming what is refused."""
    if not text.strip():
        raise InvalidInput("the query is empty", field="query")
    if len(text) > MAX_QUERY:
        raise InvalidInput(f"the query is over {MAX_QUERY} characters", field="query")
    code = _NOT_CODE.sub(" ", text)
    refused = _WRITE.search(code)
    if refused:
        raise InvalidInput(
            f"only read queries run here: {refused.group(1).upper()} is refused", field="query"
        )
    if not _TENANT.search(code):
        raise InvalidInput(
            "the query must filter on $tenant (it is bound for you): " + _tenant_hint(code),
            field="query",
        )
    return text


_NODE = re.compile(r"\(\s*([A-Za-z_]\w*)\s*:\s*([A-Za-z_]\w*)")


def _tenant_hint(code: str) -> str:
    """How to add the tenant filter, shown on the query's own first labelled node."""
    node = _NODE.search(code)
    if node is None:
        return "e.g. MATCH (m:Memory) WHERE m.tenant_id = $tenant RETURN m.content"
    var, label = node.groups()
    return (
        f"add `WHERE {var}.tenant_id = $tenant` after the MATCH of ({var}:{label})"
        " (every node carries tenant_id)"
    )


async def run_read_only(
    store: GraphStore, tenant: str, text: str, params: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Rows of a checked read-only query with ``$tenant`` bound, values made plain (dates as
    ISO-8601 strings, nodes as their properties). A query the engine rejects (syntax, a
    missing parameter) is InvalidInput; ``tenant`` may not be passed in ``params``."""
    from neo4j.exceptions import ClientError

    extra = dict(params or {})
    if "tenant" in extra:
        raise InvalidInput("$tenant is bound from --tenant, not a parameter", field="params")
    check_read_only(text)
    try:
        rows = await store.read_text(text, {**extra, "tenant": tenant})
    except BackendError as e:
        if isinstance(e.__cause__, ClientError):
            raise InvalidInput(f"the engine refused the query: {e.__cause__.message}") from e
        raise
    return [{k: plain(v) for k, v in row.items()} for row in rows]


def plain(value: Any) -> Any:
    """A driver value as JSON-ready data."""
    from neo4j.graph import Node, Relationship
    from neo4j.time import DateTime

    if isinstance(value, Node):
        return {"labels": sorted(value.labels), **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, Relationship):
        return {"type": value.type, **{k: plain(v) for k, v in value.items()}}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, DateTime) and value.tzinfo is None:
        # The embedded engine returns a stored datetime without its zone (it keeps the UTC
        # wall clock): every time in this graph is UTC, so say so, as Neo4j does.
        return value.replace(tzinfo=UTC).iso_format()
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value
