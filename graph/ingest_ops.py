"""Tenant graph operations of the write side (turns, sessions, tasks, documents, profiles).

Statements live in ``cypher/`` like every other; this mixin is composed into ``TenantGraph``.
"""

from __future__ import annotations

from graph.scoped import Scoped


class IngestOps(Scoped):
    pass
