"""The Cypher registry enforces tenancy and parameters at load time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph import cypher
from graph.schema import schema_statements


def test_every_tenant_statement_uses_the_tenant_parameter() -> None:
    statements = cypher.all_statements()
    assert len(statements) > 20
    for name, text in statements.items():
        if not name.startswith("system/"):
            assert "$tenant" in text, name


def test_statement_without_tenant_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "leaky.cypher").write_text("// no tenant\nMATCH (m:Memory) RETURN m")
    monkeypatch.setattr(cypher, "CYPHER_DIR", tmp_path)
    cypher.statement.cache_clear()
    try:
        with pytest.raises(cypher.CypherError, match="tenant"):
            cypher.statement("leaky")
    finally:
        cypher.statement.cache_clear()


def test_statement_names_cannot_escape_the_folder() -> None:
    for bad in ["../secret", "system/x", "Memory", ""]:
        with pytest.raises(cypher.CypherError):
            cypher.statement(bad)


def test_no_statement_interpolates_values() -> None:
    # Values must be $parameters: no Python format fields or string concatenation in Cypher.
    for name, text in cypher.all_statements().items():
        assert not re.search(r"\{[a-z_]+\}|%s|\+ *'", text), name


def test_schema_statements_are_idempotent_ddl() -> None:
    ddl = schema_statements()
    assert ddl and all("IF NOT EXISTS" in s for s in ddl)
    assert any("Memory" in s and "UNIQUE" in s for s in ddl)
    assert any("Alias" in s and "key IS UNIQUE" in s for s in ddl)


def test_entity_neutral_statements_exist_and_change_no_entity_property() -> None:
    """``ENTITY_NEUTRAL`` keeps the entity cache across these writes: a renamed statement
    would silently count as an entity write (a cache miss), and one that sets an entity's
    name, aliases, type or merge would serve stale entities."""
    from graph.tenant import ENTITY_NEUTRAL

    statements = cypher.all_statements()
    replaced_by_writer = {"resolution_profile_update", "entity_relate_once"}
    for name in ENTITY_NEUTRAL:
        assert name in statements, name
        if name in replaced_by_writer:
            continue
        sets = re.findall(r"\b(?:SET|REMOVE)\b[^\n]*", statements[name])
        for clause in sets:
            assert not re.search(r"\.(name|aliases|type|merged_into|provisional)\b", clause), (
                name,
                clause,
            )
